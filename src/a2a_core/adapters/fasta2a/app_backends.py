"""`KitStorage` and `KitBroker`: fasta2a's ``Storage`` and ``Broker`` for a ``FastA2A`` app of your
own, over the kit's task engine (DynamoDB and SQS when deployed, moto in ``dev``)::

    storage, broker = fasta2a_backends()  # a2a_core.compose.fasta2a: from the A2A_* settings
    app = FastA2A(storage=storage, broker=broker)
    handler = Mangum(app)  # the API Lambda; the kit's worker Lambda runs your Worker

``submit_task`` stores the task and queues its turn in one step (a crash between them loses
nothing), so ``run_task`` has nothing left to do; ``cancel_task`` is the kit's cancel, seen by
the worker running the task wherever it runs; ``load_task`` reads the durable task;
``message/stream`` follows the durable task (`KitEventBus`: its changes, polled). The worker
is the kit's worker Lambda hosting your fasta2a ``Worker`` (`WorkerAgent`), so the app's process
updates no task and keeps no context itself: those calls are refused.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Self, cast

import anyio
import anyio.abc
from fasta2a.broker import Broker, TaskOperation
from fasta2a.event_bus import EventBus, InMemoryEventBus
from fasta2a.schema import (
    STREAM_ENDING_STATES,
    Artifact,
    Message,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskIdParams,
    TaskSendParams,
    TaskState,
    TaskStatusUpdateEvent,
)
from fasta2a.storage import Storage

from a2a_core.adapters.fasta2a.convert import from_fasta2a_message, to_fasta2a_task
from a2a_core.core.caller import Caller
from a2a_core.core.engine import TaskEngine
from a2a_core.core.errors import TaskNotCancelableError, TaskNotFoundError
from a2a_core.core.requests import SendRequest, TaskQuery, TaskRef

WORKER_SIDE = (
    "a FastA2A app over the kit's storage serves requests only; the kit's worker (its Lambda, or "
    "a2a-serverless dev) runs your fasta2a Worker, with a storage of its own for each turn"
)


class KitStorage(Storage[Any]):
    def __init__(self, engine: TaskEngine, caller: Caller | None = None) -> None:
        """Tasks in ``engine``'s store, owned by ``caller`` (anonymous by default: FastA2A
        authenticates no one)."""
        self.engine = engine
        self.caller = caller or Caller()

    async def load_task(self, task_id: str, history_length: int | None = None) -> Task | None:
        try:
            task = await self.engine.get_task(TaskQuery(task_id, history_length or None), self.caller)
        except TaskNotFoundError:
            return None
        return cast(Task, to_fasta2a_task(task))

    async def submit_task(self, context_id: str, message: Message) -> Task:
        kit_message = from_fasta2a_message(dict(message), context_id=context_id)
        submission = await self.engine.submit(SendRequest(message=kit_message, blocking=False), self.caller)
        if submission.created is not None:
            return cast(Task, to_fasta2a_task(submission.created))
        task = await self.load_task(submission.operation.task_id)  # a message continuing a task
        assert task is not None
        return task

    async def update_task(
        self,
        task_id: str,
        state: TaskState,
        new_artifacts: list[Artifact] | None = None,
        new_messages: list[Message] | None = None,
    ) -> Task:
        raise RuntimeError(WORKER_SIDE)

    async def load_context(self, context_id: str) -> Any:
        raise RuntimeError(WORKER_SIDE)

    async def update_context(self, context_id: str, context: Any) -> None:
        raise RuntimeError(WORKER_SIDE)


# How often a stream of FastA2A's reads its task (seconds).
POLL_SECONDS = 0.25


class KitEventBus(EventBus):
    """FastA2A's ``message/stream`` and ``tasks/resubscribe`` over the durable task: a worker in
    another process publishes nothing here, so a subscription reads the task every
    `POLL_SECONDS` and relays each new state and each new or changed artifact, ending with the
    state that ends fasta2a's stream."""

    def __init__(self, engine: TaskEngine, caller: Caller | None = None, poll: float = POLL_SECONDS) -> None:
        self.engine, self.caller, self.poll = engine, caller or Caller(), poll

    @contextlib.asynccontextmanager
    async def subscribe(self, task_id: str) -> AsyncIterator[anyio.abc.ObjectReceiveStream[StreamResponse]]:
        """The task's changes from now on, until it ends or waits on the client."""
        send, receive = anyio.create_memory_object_stream[StreamResponse](max_buffer_size=64)
        async with anyio.create_task_group() as group:
            group.start_soon(self._follow, task_id, send)
            try:
                yield receive
            finally:
                group.cancel_scope.cancel()
                await receive.aclose()

    async def emit(self, task_id: str, event: StreamResponse) -> None:
        """Nothing: what a worker does reaches the stream through the task."""

    async def close(self, task_id: str) -> None:
        """Nothing: a stream ends when its task reaches an ending state."""

    async def _follow(self, task_id: str, send: anyio.abc.ObjectSendStream[StreamResponse]) -> None:
        state: str | None = None
        artifacts: dict[str, Any] = {}
        async with send:
            while True:
                task = to_fasta2a_task(await self.engine.get_task(TaskQuery(task_id, 0), self.caller))
                context_id = task["context_id"]
                for artifact in task["artifacts"]:
                    if artifacts.get(artifact["artifact_id"]) != artifact:
                        artifacts[artifact["artifact_id"]] = artifact
                        update = TaskArtifactUpdateEvent(
                            task_id=task_id, context_id=context_id, artifact=artifact, last_chunk=True
                        )
                        await send.send(StreamResponse(artifact_update=update))
                if task["status"]["state"] != state:
                    state = task["status"]["state"]
                    changed = TaskStatusUpdateEvent(
                        task_id=task_id, context_id=context_id, status=task["status"]
                    )
                    await send.send(StreamResponse(status_update=changed))
                if state in STREAM_ENDING_STATES:
                    return
                await anyio.sleep(self.poll)


@dataclass
class KitBroker(Broker):
    engine: TaskEngine | None = None
    caller: Caller | None = None

    def __post_init__(self) -> None:
        if self.engine is not None and isinstance(self.event_bus, InMemoryEventBus):
            self.event_bus = KitEventBus(self.engine, self.caller)

    async def run_task(self, params: TaskSendParams) -> None:
        """Nothing: `KitStorage.submit_task` queued the task's turn as it stored the task."""

    async def cancel_task(self, params: TaskIdParams) -> None:
        """Cancel the task the kit's way; a task that is unknown or over is left as it is (the
        app answers with it as fasta2a's does)."""
        assert self.engine is not None, "KitBroker(engine=...)"
        try:
            await self.engine.cancel_task(TaskRef(params["id"]), self.caller or Caller())
        except (TaskNotFoundError, TaskNotCancelableError):
            return

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        return None

    async def receive_task_operations(self) -> AsyncIterator[TaskOperation]:
        """None here: the kit's worker takes the turns off its queue."""
        raise RuntimeError(WORKER_SIDE)
        yield  # an async generator, as fasta2a's loop iterates it
