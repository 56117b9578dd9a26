"""What an a2a-sdk executor enqueues, written through the turn's `TaskContext`, in every order
a2a-sdk's own servers accept (version-neutral: each generation's module converts its events to
the domain model first).

- A `Message` first, before any task event, is the turn's answer with no task (`ctx.reply`);
  once a task is being reported, a message is a progress message (a ``working`` status with it),
  where a2a-sdk 1.x would refuse it. A second answer is dropped, as by a closed queue.
- A `Task` (the executor's opening ``new_task(...)``, or a final one carrying everything, as some
  frameworks send) is compared with what the task holds: artifacts it does not have are added,
  agent messages of its history it does not have become progress messages, and its status is
  applied. The opening ``submitted`` Task therefore writes nothing.
- A status update is applied by state: ``submitted`` (the task was already submitted, then
  claimed) and a bare ``working`` (it is working) add nothing unless they carry a message;
  ``input-required``, ``auth-required`` and the terminal states end the turn, with their message.
- An artifact update is appended as it is (``append``, ``lastChunk``).

Events naming another task or context are refused: the turn fails as an invalid agent response.
Events after the turn ended are dropped with a warning (a2a-sdk's closed queue drops them too).
"""

from __future__ import annotations

import asyncio
import logging

from a2a_core.core.errors import (
    InvalidAgentResponseError,
    InvalidTransitionError,
    StoreUnavailableError,
    TaskCanceledError,
)
from a2a_core.core.turn.context import TaskContext
from a2a_core.domain import (
    Message,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

logger = logging.getLogger(__name__)

Event = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent

# States a status update may carry that the durable task already has (claimed, it is working).
_ALREADY = frozenset({TaskState.submitted, TaskState.working, TaskState.unknown})


class TurnEvents:
    def __init__(self, ctx: TaskContext, *, known_messages: set[str]) -> None:
        """``known_messages``: the ids of the messages the task holds (its history as read)."""
        self.ctx = ctx
        self.answered = False  # with a message and no task
        self.reporting = False  # a task: something was written, or an event said so
        self.refused: InvalidAgentResponseError | None = None
        self.refusal = asyncio.Event()
        self._known = set(known_messages)
        self._artifacts = {artifact.artifact_id: artifact for artifact in ctx.task.artifacts or []}
        self._lock = asyncio.Lock()  # one write at a time, in the order enqueued

    def refuse(self, error: InvalidAgentResponseError) -> None:
        """Refuse the executor's output: nothing more is written, and the turn fails."""
        if self.refused is None:
            self.refused = error
            self.refusal.set()

    async def handle(self, event: Event) -> None:
        """Write ``event``; never raises into the executor (a2a-sdk's queues do not either)."""
        async with self._lock:
            await self._handle(event)

    async def _handle(self, event: Event) -> None:
        if self.refused is not None:
            return
        if self.ctx.ended or self.ctx.interruption is not None:
            if self.ctx.interruption is None:
                logger.warning(
                    "task %s: %s after the turn ended, dropped", self.ctx.task_id, type(event).__name__
                )
            return
        try:
            self._check_ids(event)
            if isinstance(event, Message):
                await self._message(event)
            elif isinstance(event, Task):
                await self._task(event)
            elif isinstance(event, TaskStatusUpdateEvent):
                await self._status(event.status)
            else:
                await self._artifact(event)
        except (TaskCanceledError, StoreUnavailableError):
            pass  # noted on the context: the run is stopped
        except InvalidTransitionError as error:
            logger.warning("task %s: %s dropped: %s", self.ctx.task_id, type(event).__name__, error)
        except InvalidAgentResponseError as error:
            self.refuse(error)

    def _check_ids(self, event: Event) -> None:
        if isinstance(event, Message):
            return  # a2a-sdk's helpers leave a message's ids out; ours are filled in
        task_id = event.id if isinstance(event, Task) else event.task_id
        if task_id != self.ctx.task_id:
            raise InvalidAgentResponseError(
                f"the executor enqueued a {type(event).__name__} of task {task_id!r}, but this turn is "
                f"task {self.ctx.task_id!r}'s (use context.task_id, or new_task(context.message))"
            )
        if event.context_id and event.context_id != self.ctx.context_id:
            raise InvalidAgentResponseError(
                f"the executor enqueued a {type(event).__name__} of context {event.context_id!r}, but "
                f"task {self.ctx.task_id!r} is in context {self.ctx.context_id!r}"
            )

    async def _message(self, message: Message) -> None:
        if self.answered:
            logger.warning("task %s: a second answer dropped (a turn answers once)", self.ctx.task_id)
        elif self.reporting:
            await self._progress(message)
        else:
            self.answered = True
            await self.ctx.reply(message)

    async def _task(self, task: Task) -> None:
        self.reporting = True
        status_message = task.status.message
        for message in task.history or []:
            if (
                message.role == Role.agent
                and message.message_id not in self._known
                and message != status_message
            ):
                await self._progress(message)
        for artifact in task.artifacts or []:
            if self._artifacts.get(artifact.artifact_id) != artifact:
                await self._artifact(
                    TaskArtifactUpdateEvent(
                        task_id=task.id, context_id=self.ctx.context_id, artifact=artifact, last_chunk=True
                    )
                )
        await self._status(task.status)

    async def _status(self, status: TaskStatus) -> None:
        self.reporting = True
        message = status.message
        if message is not None and message.message_id in self._known:
            message = None  # already in the history (a Task repeating its status)
        if status.state in _ALREADY:
            if message is not None:
                await self._progress(message)
            return
        if message is not None:
            self._known.add(message.message_id)
        await self.ctx.emit_status(status.state, message)

    async def _artifact(self, event: TaskArtifactUpdateEvent) -> None:
        self.reporting = True
        artifact = event.artifact
        await self.ctx.emit_artifact(artifact, append=bool(event.append), last_chunk=event.last_chunk)
        current = self._artifacts.get(artifact.artifact_id)
        if event.append and current is not None:
            artifact = current.model_copy(update={"parts": [*current.parts, *artifact.parts]})
        self._artifacts[artifact.artifact_id] = artifact

    async def _progress(self, message: Message) -> None:
        self._known.add(message.message_id)
        await self.ctx.emit_status(TaskState.working, message.model_copy(update={"role": Role.agent}))
