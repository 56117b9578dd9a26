"""What a stream carries, when it is over, and the iterator that remembers where a stream stands."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Callable
from types import TracebackType
from typing import Self

from a2a_core.core.lifecycle import RETURN_STATES
from a2a_core.types import Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent

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
    ) -> None:
        """The events of one ``message/stream`` or ``tasks/resubscribe``, as an async iterator.

        ``task_id`` and ``last_event_id`` say where the stream stands, so a caller can resume it
        later with `A2AClient.resubscribe`. Use ``async with`` (or `aclose`) when leaving early,
        so the HTTP connection is released at once.
        """
        self.task_id = task_id
        self.last_event_id = last_event_id
        self._events = events(self)

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Event:
        return await anext(self._events)

    async def aclose(self) -> None:
        await self._events.aclose()
