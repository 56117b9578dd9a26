"""What a stream carries, when it is over, and the iterator that remembers where a stream stands.

A stream remembers what it has delivered (`Delivered`), so that a Task snapshot arriving later
(1.0's SubscribeToTask always starts with one, and a task that ended while the stream was down is
fetched whole) reaches the caller as only what is new: the parts of each artifact not delivered
yet and the task's current status. The caller sees each chunk once, and no gap.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Callable
from types import TracebackType
from typing import Self

from a2a_core.core.tasklog.lifecycle import RETURN_STATES
from a2a_core.domain import (
    Artifact,
    Message,
    Part,
    Task,
    TaskArtifactUpdateEvent,
    TaskStatus,
    TaskStatusUpdateEvent,
)

Event = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent


def is_final(event: Event) -> bool:
    """Whether a stream ends after ``event``: a reply message, or a task that stopped working."""
    if isinstance(event, Message):
        return True
    if isinstance(event, TaskStatusUpdateEvent):
        return event.final or event.status.state in RETURN_STATES
    if isinstance(event, Task):
        return event.status.state in RETURN_STATES
    return False


def task_id_of(event: Event) -> str | None:
    return event.id if isinstance(event, Task) else event.task_id


class Delivered:
    """The task as the events delivered so far have described it: its status and artifacts."""

    def __init__(self) -> None:
        self.status: TaskStatus | None = None
        self.artifacts: dict[str, list[Part]] = {}
        self.any = False

    def record(self, event: Event) -> None:
        self.any = True
        if isinstance(event, Task):
            self.status = event.status
            self.artifacts = {a.artifact_id: list(a.parts) for a in event.artifacts or []}
        elif isinstance(event, TaskStatusUpdateEvent):
            self.status = event.status
        elif isinstance(event, TaskArtifactUpdateEvent):
            parts = self.artifacts.get(event.artifact.artifact_id)
            if event.append and parts is not None:
                parts.extend(event.artifact.parts)
            else:
                self.artifacts[event.artifact.artifact_id] = list(event.artifact.parts)

    def news(self, task: Task) -> list[Event]:
        """``task`` as the events that bring the caller from what it has seen to it.

        A caller that has seen nothing gets the Task itself. Otherwise: an append of the new parts
        of each artifact that grew, the whole of one that is new or was replaced, then the status
        when it changed or ends the stream (its ``final`` derived from its state).
        """
        if not self.any:
            return [task]
        events: list[Event] = [
            update for artifact in task.artifacts or [] if (update := self._artifact_news(task, artifact))
        ]
        state = task.status.state
        if task.status != self.status or state in RETURN_STATES:
            final = state in RETURN_STATES
            events.append(
                TaskStatusUpdateEvent(
                    task_id=task.id, context_id=task.context_id, status=task.status, final=final
                )
            )
        return events

    def _artifact_news(self, task: Task, artifact: Artifact) -> TaskArtifactUpdateEvent | None:
        seen = self.artifacts.get(artifact.artifact_id)
        if seen == artifact.parts:
            return None
        grew = seen is not None and artifact.parts[: len(seen)] == seen
        if grew and seen is not None:
            artifact = artifact.model_copy(update={"parts": artifact.parts[len(seen) :]})
        return TaskArtifactUpdateEvent(
            task_id=task.id, context_id=task.context_id, artifact=artifact, append=grew or None
        )


class Closing(ABC):
    """``async with`` closes it (`aclose`) on the way out, however the block ends."""

    @abstractmethod
    async def aclose(self) -> None:
        """Release what it holds (its HTTP connections)."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


class EventStream(Closing):
    def __init__(
        self,
        events: Callable[[EventStream], AsyncGenerator[Event]],
        *,
        task_id: str | None = None,
        last_event_id: str | None = None,
        delivered: Delivered | None = None,
    ) -> None:
        """The events of one streaming call (send-and-stream, or a subscription), as an async iterator.

        ``task_id`` and ``last_event_id`` say where the stream stands, and ``delivered`` what it
        has delivered, so a caller can continue it later with `A2AClient.resubscribe`. Use
        ``async with`` (or `aclose`) when leaving early, so the HTTP connection is released at once.
        """
        self.task_id = task_id
        self.last_event_id = last_event_id
        self.delivered = delivered or Delivered()
        self._events = events(self)

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Event:
        return await anext(self._events)

    async def aclose(self) -> None:
        await self._events.aclose()
