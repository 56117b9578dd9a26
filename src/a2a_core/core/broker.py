"""The broker port (hand a run operation to some worker) and its in-memory adapter."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections import deque

from pydantic import BaseModel, ConfigDict

from a2a_core.core.wakeups import Wakeups


class RunOperation(BaseModel):
    """Ask a worker to run the agent for one turn of a task.

    ``run_id`` names the turn (the triggering user message); a worker runs it only while it is
    still the task's current turn, so stale and duplicate deliveries are harmless.
    """

    model_config = ConfigDict(frozen=True)

    task_id: str
    run_id: str

    @property
    def dedup_id(self) -> str:
        return f"{self.task_id}:{self.run_id}"


class Broker(ABC):
    @abstractmethod
    async def enqueue(self, operation: RunOperation) -> None:
        """Queue ``operation`` for a worker. At-least-once: a worker may see it more than once.

        Enqueuing the same operation again (same ``dedup_id``) is allowed and must not make the
        agent run twice; adapters may drop it, workers tolerate it.
        """


class InMemoryBroker(Broker):
    """A process-local queue, drained by `receive` (the dev server's worker loop)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: deque[RunOperation] = deque()
        self._queued: set[str] = set()  # dedup ids in the queue: the duplicate check is O(1)
        self._wakeups = Wakeups()

    async def enqueue(self, operation: RunOperation) -> None:
        with self._lock:
            if operation.dedup_id in self._queued:
                return
            self._queued.add(operation.dedup_id)
            self._queue.append(operation)
        self._wakeups.wake("queue")

    async def receive(self, timeout: float = 1.0) -> RunOperation | None:
        """The next queued operation, or None if none arrives within ``timeout`` seconds."""
        operation = self._pop()
        if operation is None:
            await self._wakeups.wait("queue", timeout, ready=lambda: bool(self._queue))
            operation = self._pop()
        return operation

    def __len__(self) -> int:
        return len(self._queue)

    def _pop(self) -> RunOperation | None:
        with self._lock:
            if not self._queue:
                return None
            operation = self._queue.popleft()
            self._queued.discard(operation.dedup_id)
            return operation
