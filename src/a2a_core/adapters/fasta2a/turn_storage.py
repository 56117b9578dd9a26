"""`TurnStorage`: fasta2a's `Storage` over the turn a hosted worker runs (see the package docstring).

- ``load_task`` is the durable task as the turn found it (its whole history), "submitted" until
  the worker's first ``update_task``, then with what the worker wrote;
- ``update_task`` is one fenced write of this attempt of the turn: the new artifacts, the new
  messages (each as a status message: the last one on the new state, the ones before it on
  ``working``) and the state, all in one commit; an ending state ends the turn. Saying again what
  was said (fasta2a's worker marks failed a task its ``run_task`` failed already) writes nothing;
- ``load_context``/``update_context`` keep the worker's context in the kit's context store, under
  the task owner's space, exactly once per turn: a retried turn (its worker died after storing)
  loads the context as the turn found it, not as the interrupted attempt left it.
"""

from __future__ import annotations

import logging
from typing import Any, Generic

from fasta2a.schema import Artifact as Fasta2aArtifact
from fasta2a.schema import Message as Fasta2aMessage
from fasta2a.schema import Task as Fasta2aTask
from fasta2a.schema import TaskState as Fasta2aState
from fasta2a.storage import ContextT, Storage
from pydantic import JsonValue, TypeAdapter
from pydantic_core import to_jsonable_python

from a2a_core.adapters.fasta2a.convert import (
    from_fasta2a_artifact,
    from_fasta2a_message,
    to_fasta2a_task,
    trim,
)
from a2a_core.adapters.fasta2a.turn import HostedTurn, current
from a2a_core.core.errors import TaskCanceledError, TurnLostError
from a2a_core.core.tasklog.changes import status
from a2a_core.core.tasklog.lifecycle import RETURN_STATES
from a2a_core.core.tasklog.records import ArtifactUpdated, StatusChanged
from a2a_core.domain import TaskState

logger = logging.getLogger(__name__)

# The context value the kit stores: the worker's context, the turn that stored it, and the
# context as that turn found it (what a retry of the turn starts from again).
ENVELOPE = "fasta2a_context"


class TurnStorage(Storage[ContextT], Generic[ContextT]):
    def __init__(self, context_type: Any = Any) -> None:
        """``context_type``: what the worker keeps as its context (its ``Worker[ContextT]``), stored
        as JSON and read back as that type (pydantic-ai's ``list[ModelMessage]``, say)."""
        self._context: TypeAdapter[Any] | None = None if context_type is Any else TypeAdapter(context_type)

    async def load_task(self, task_id: str, history_length: int | None = None) -> Fasta2aTask | None:
        turn = current()
        if task_id != turn.ctx.task_id:
            return None  # a turn's storage holds its own task only
        reported = "canceled" if _canceled(turn) else "submitted" if turn.state is None else None
        task: Fasta2aTask = to_fasta2a_task(trim(turn.task, history_length), state=reported)  # type: ignore[assignment]
        return task

    async def submit_task(self, context_id: str, message: Fasta2aMessage) -> Fasta2aTask:
        raise RuntimeError(
            "a hosted fasta2a worker runs the task it is given; a new task is a message sent to the "
            "agent's A2A API"
        )

    async def update_task(
        self,
        task_id: str,
        state: Fasta2aState,
        new_artifacts: list[Fasta2aArtifact] | None = None,
        new_messages: list[Fasta2aMessage] | None = None,
    ) -> Fasta2aTask:
        turn = current()
        ctx = turn.ctx
        if task_id != ctx.task_id:
            raise ValueError(f"this turn runs task {ctx.task_id}; it cannot update task {task_id}")
        new_state = TaskState(state)
        artifacts = [from_fasta2a_artifact(dict(a)) for a in new_artifacts or []]
        messages = [
            from_fasta2a_message(dict(m), task_id=ctx.task_id, context_id=ctx.context_id)
            for m in new_messages or []
        ]
        if not (artifacts or messages) and _said(turn, new_state):
            return await self._task(turn)
        if new_state == TaskState.submitted:
            raise ValueError(
                f"task {task_id} is {turn.task.status.state.value}; it cannot be submitted again"
            )
        events: list[Any] = [ArtifactUpdated(seq=0, artifact=artifact) for artifact in artifacts]
        events += [status(TaskState.working, message) for message in messages[:-1]]
        events.append(status(new_state, messages[-1] if messages else None))
        await ctx.attempt.write(events, ends=new_state in RETURN_STATES)
        turn.record(new_state, artifacts, [e.status.message for e in events if _carries_message(e)])
        return await self._task(turn)

    async def load_context(self, context_id: str) -> ContextT | None:
        turn = _of_context(context_id)
        stored = _envelope(await turn.ctx.load_context())
        if stored is None:
            return None
        value = stored["before"] if stored["run"] == turn.ctx.run_id else stored["value"]
        return None if value is None else self._read(value)

    async def update_context(self, context_id: str, context: ContextT) -> None:
        turn = _of_context(context_id)
        run = turn.ctx.run_id
        value = self._write(context)

        def stored(current: JsonValue | None) -> JsonValue:
            found = _envelope(current)
            before = None if found is None else found["before"] if found["run"] == run else found["value"]
            return {ENVELOPE: {"value": value, "run": run, "before": before}}

        await turn.ctx.change_context(stored)

    async def _task(self, turn: HostedTurn) -> Fasta2aTask:
        task = await self.load_task(turn.ctx.task_id)
        assert task is not None
        return task

    def _read(self, value: JsonValue) -> Any:
        return value if self._context is None else self._context.validate_python(value)

    def _write(self, context: Any) -> JsonValue:
        if self._context is None:
            written: JsonValue = to_jsonable_python(context)
            return written
        dumped: JsonValue = self._context.dump_python(context, mode="json", by_alias=True)
        return dumped


def _said(turn: HostedTurn, state: TaskState) -> bool:
    """Whether ``state`` with nothing new says nothing new: the worker's last state again, the
    "working" the kit marked the task when it started the turn, or the "canceled" a cancel left."""
    if _canceled(turn):
        return state == TaskState.canceled
    if turn.state is None:
        return state in (TaskState.submitted, TaskState.working)
    return state == turn.state


def _canceled(turn: HostedTurn) -> bool:
    """Whether a client canceled the task while this turn ran (the kit saw it: a write, its watch)."""
    interruption = turn.ctx.interruption
    return isinstance(interruption, TaskCanceledError) and not isinstance(interruption, TurnLostError)


def _carries_message(event: Any) -> bool:
    return isinstance(event, StatusChanged) and event.status.message is not None


def _of_context(context_id: str) -> HostedTurn:
    turn = current()
    if context_id != turn.ctx.context_id:
        raise ValueError(f"this turn's task is of context {turn.ctx.context_id}, not {context_id}")
    return turn


def _envelope(value: JsonValue | None) -> dict[str, Any] | None:
    found = value.get(ENVELOPE) if isinstance(value, dict) else None
    return found if isinstance(found, dict) else None
