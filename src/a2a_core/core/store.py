"""The task store port and its in-memory adapter.

The port is deliberately tiny: append a commit at the next sequence number, read the head,
read the log. Everything the protocol means by a task (state machine, history, artifacts) is
built on top of it by `TaskLedger`, so adapters stay simple and share one contract suite.
"""

from __future__ import annotations

import asyncio
import bisect
import threading
from abc import ABC, abstractmethod

from a2a_core.core.errors import ConcurrentUpdateError
from a2a_core.core.notify import Notifier
from a2a_core.core.records import Commit


class TaskStore(ABC):
    """Durable, append-only task logs."""

    @abstractmethod
    async def append(self, commit: Commit) -> None:
        """Store ``commit`` as the next entry of its task's log.

        Callers append at the ``next_seq`` of a head they read (``first_seq == 1`` creates the
        task). Adapters guarantee only that a taken sequence number is refused: they raise
        `ConcurrentUpdateError` when a commit of that task already starts at ``commit.first_seq``
        (for ``first_seq == 1``: the task already exists). Whether a gap or an append to an
        unknown task is refused is adapter-specific (it would cost a transaction or a read on
        DynamoDB). Not idempotent by itself: the ledger decides what a lost race means.
        """

    @abstractmethod
    async def head(self, task_id: str) -> Commit | None:
        """The task's latest commit (its current state), or None if the task does not exist.

        Strongly consistent: reflects every append that has returned.
        """

    @abstractmethod
    async def read(self, task_id: str, after_seq: int = 0) -> list[Commit]:
        """Commits holding any event with ``seq > after_seq``, in order; [] for an unknown task."""

    @abstractmethod
    async def tasks_in_context(self, context_id: str) -> list[str]:
        """Ids of the tasks created in ``context_id``, oldest first; [] for an unknown context.

        May lag task creation briefly on adapters backed by an eventually consistent index
        (DynamoDB's global secondary index), unlike `head` and `read`.
        """

    async def wait_for_append(self, task_id: str, after_seq: int, timeout: float) -> None:
        """Return once the log may hold events past ``after_seq``, or after ``timeout`` seconds.

        Adapters that can be told about appends (in-process) wake early; remote ones just sleep
        and let the caller poll. Never raises on timeout.
        """
        await asyncio.sleep(timeout)


class InMemoryTaskStore(TaskStore):
    """Logs kept in this process; commits are serialized, so readers never share objects."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Per task: (first_seq, last_seq, serialized commit), in order.
        self._logs: dict[str, list[tuple[int, int, bytes]]] = {}
        # Per context: (created_at, task_id) of each task, in creation order.
        self._contexts: dict[str, list[tuple[float, str]]] = {}
        self._notifier = Notifier()

    async def append(self, commit: Commit) -> None:
        entry = (commit.first_seq, commit.last_seq, commit.model_dump_json().encode())
        with self._lock:
            log = self._logs.get(commit.task_id)
            if commit.first_seq == 1:
                if log is not None:
                    raise ConcurrentUpdateError(f"task {commit.task_id} already exists")
                self._logs[commit.task_id] = [entry]
                self._contexts.setdefault(commit.context_id, []).append((commit.created_at, commit.task_id))
            else:
                if log is None:
                    raise ConcurrentUpdateError(f"task {commit.task_id} does not exist")
                if log[-1][1] + 1 != commit.first_seq:
                    raise ConcurrentUpdateError(f"seq {commit.first_seq} of {commit.task_id} is taken")
                log.append(entry)
        self._notifier.notify(commit.task_id)

    async def head(self, task_id: str) -> Commit | None:
        with self._lock:
            log = self._logs.get(task_id)
            blob = log[-1][2] if log else None
        return None if blob is None else Commit.model_validate_json(blob)

    async def read(self, task_id: str, after_seq: int = 0) -> list[Commit]:
        with self._lock:
            log = self._logs.get(task_id, [])
            # Sequence numbers only grow: bisect to the first commit ending after ``after_seq``.
            start = bisect.bisect_right(log, after_seq, key=lambda entry: entry[1])
            blobs = [blob for _, _, blob in log[start:]]
        return [Commit.model_validate_json(blob) for blob in blobs]

    async def tasks_in_context(self, context_id: str) -> list[str]:
        with self._lock:
            tasks = sorted(self._contexts.get(context_id, ()), key=lambda task: task[0])
        return [task_id for _, task_id in tasks]

    async def wait_for_append(self, task_id: str, after_seq: int, timeout: float) -> None:
        await self._notifier.wait(task_id, timeout, ready=lambda: self._last_seq(task_id) > after_seq)

    def _last_seq(self, task_id: str) -> int:
        with self._lock:
            log = self._logs.get(task_id)
            return log[-1][1] if log else 0


class NotifyingTaskStore(TaskStore):
    """Wraps a remote store so followers in this process wake on its appends instead of polling.

    `a2a-serverless dev` runs the API and the worker in one process over moto; the wrapper gives
    it the in-memory adapter's immediacy while every write still goes to the real store.
    """

    def __init__(self, inner: TaskStore) -> None:
        self.inner = inner
        self._notifier = Notifier()

    async def append(self, commit: Commit) -> None:
        await self.inner.append(commit)
        self._notifier.notify(commit.task_id)

    async def head(self, task_id: str) -> Commit | None:
        return await self.inner.head(task_id)

    async def read(self, task_id: str, after_seq: int = 0) -> list[Commit]:
        return await self.inner.read(task_id, after_seq)

    async def tasks_in_context(self, context_id: str) -> list[str]:
        return await self.inner.tasks_in_context(context_id)

    async def wait_for_append(self, task_id: str, after_seq: int, timeout: float) -> None:
        # No cheap "already ahead?" check here (it would be a read): an append that lands just
        # before we register is caught by the caller's next poll, at most ``timeout`` later.
        await self._notifier.wait(task_id, timeout)
