"""An a2a-sdk executor that runs a framework's executor unchanged and notes each event it
enqueues, in order, as one JSON line in ``$RECORD_EVENTS``: the order the framework emits,
which the kit must accept. Runs in a framework's environment (a2a-sdk 1.x or 0.3), served as
``recording:agent`` with ``$FRAMEWORK_AGENT`` naming the executor's factory (``module:name``)
and ``$FRAMEWORK_OPTIONS`` its keyword arguments (JSON).

An event is noted as ``Task:<state>``, ``Message``, ``status:<state>`` (``+message`` when it
carries one) or ``artifact`` (``+append``, ``+last`` as flagged), states in 0.3's spelling.
"""

from __future__ import annotations

import importlib
import json
import os
from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue


def describe(event: Any) -> str:
    kind = type(event).__name__
    if kind == "Task":
        return f"Task:{_state(event.status)}"
    if kind == "TaskStatusUpdateEvent":
        return f"status:{_state(event.status)}" + ("+message" if _has(event.status, "message") else "")
    if kind == "TaskArtifactUpdateEvent":
        flags = [flag for flag in ("append", "last_chunk") if getattr(event, flag, False)]
        return "artifact" + "".join(f"+{flag.removesuffix('_chunk')}" for flag in flags)
    return kind


def _state(status: Any) -> str:
    state = status.state
    if isinstance(state, int):  # 1.x: a protobuf enum, TASK_STATE_INPUT_REQUIRED
        from a2a.types import TaskState

        return str(TaskState.Name(state)).removeprefix("TASK_STATE_").lower().replace("_", "-")
    return str(state.value)


def _has(message: Any, field: str) -> bool:
    if hasattr(message, "HasField"):  # 1.x protobuf
        return bool(message.HasField(field))
    return getattr(message, field) is not None


class RecordingQueue:
    """The executor's queue, noting each event before it goes on."""

    def __init__(self, queue: EventQueue, log: str, task_id: str | None) -> None:
        self._queue = queue
        self._log = log
        self._task_id = task_id

    async def enqueue_event(self, event: Any) -> None:
        with open(self._log, "a", encoding="utf-8") as file:  # noqa: ASYNC230  # one line, in a test
            file.write(json.dumps({"task": self._task_id, "event": describe(event)}) + "\n")
        await self._queue.enqueue_event(event)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._queue, name)


class Recording(AgentExecutor):
    def __init__(self, executor: AgentExecutor, log: str) -> None:
        self.executor = executor
        self.log = log

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        queue: Any = RecordingQueue(event_queue, self.log, context.task_id)  # an EventQueue to it
        await self.executor.execute(context, queue)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await self.executor.cancel(context, event_queue)


def agent() -> Recording:
    module, _, name = os.environ["FRAMEWORK_AGENT"].partition(":")
    factory = getattr(importlib.import_module(module), name)
    options = json.loads(os.environ.get("FRAMEWORK_OPTIONS", "{}"))
    return Recording(factory(**options), os.environ["RECORD_EVENTS"])
