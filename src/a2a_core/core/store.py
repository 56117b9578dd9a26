"""The task store port and its in-memory adapter.

The port is deliberately tiny: append a commit at the next sequence number, read the head,
read the log, list an owner's tasks. Everything the protocol means by a task (state machine,
history, artifacts, filters) is built on top of it by `TaskLedger`, so adapters stay simple and
share one contract suite.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass

from a2a_core.core.errors import ConcurrentUpdateError
from a2a_core.core.notify import Notifier
from a2a_core.core.records import ANONYMOUS_OWNER, Commit


class InvalidPositionError(ValueError):
    """A list position this adapter did not produce (`TaskStore.list_owned`)."""


@dataclass(frozen=True)
class IndexedTask:
    """One task as the owner index holds it: enough to read it, or to skip it."""

    task_id: str
    context_id: str
    created_at: float
    # Where a listing resumes to continue after this task (opaque, see `TaskStore.list_owned`).
    position: str


@dataclass(frozen=True)
class OwnedTasks:
    tasks: tuple[IndexedTask, ...]
    # Where the next call continues; None once the listing is exhausted.
    next_position: str | None


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
    async def list_owned(
        self, owner: str, *, context_id: str | None = None, after: str | None = None, limit: int
    ) -> OwnedTasks:
        """A page of ``owner``'s tasks (those created in ``context_id`` only, if given).

        Isolation: only tasks whose first commit names ``owner`` (a commit without an owner
        counts as `ANONYMOUS_OWNER`'s, as the ledger treats it).
        Order: newest created first (the first commit's ``created_at``); tasks created at the same
        instant come in an adapter-defined order that is the same on every call.
        Pages: at most ``limit`` tasks, continuing after ``after`` (a ``position`` or a
        ``next_position`` this adapter returned for the same owner and context; None starts at
        the newest). ``next_position`` is None once nothing follows; otherwise the next call with
        it returns the tasks that follow, each task exactly once across the calls. To bound one
        call's work (a context filter skipping many tasks) an adapter may return fewer than
        ``limit`` tasks, even none, with a ``next_position``; a position may also lead to an
        empty last page. Positions are opaque, short strings meant to travel inside page tokens;
        a string this adapter did not produce raises `InvalidPositionError`.
        Consistency: may lag task creation briefly on adapters backed by an eventually
        consistent index (DynamoDB's global secondary index), unlike `head` and `read`; a task
        listed may have expired since (reading it finds nothing). Tasks past their retention are
        not listed.
        """

    @abstractmethod
    async def count_owned(self, owner: str, *, context_id: str | None = None) -> int:
        """How many tasks `list_owned` would list for ``owner`` (and ``context_id``) in all.

        Same isolation and consistency as `list_owned`; costs a read of the owner's whole index.
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
        # Per owner: (created_at, task_id, context_id) of each task, oldest first.
        self._owned: dict[str, list[tuple[float, str, str]]] = {}
        self._notifier = Notifier()

    async def append(self, commit: Commit) -> None:
        entry = (commit.first_seq, commit.last_seq, commit.model_dump_json().encode())
        with self._lock:
            log = self._logs.get(commit.task_id)
            if commit.first_seq == 1:
                if log is not None:
                    raise ConcurrentUpdateError(f"task {commit.task_id} already exists")
                self._logs[commit.task_id] = [entry]
                owned = self._owned.setdefault(commit.owner or ANONYMOUS_OWNER, [])
                bisect.insort(owned, (commit.created_at, commit.task_id, commit.context_id))
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

    async def list_owned(
        self, owner: str, *, context_id: str | None = None, after: str | None = None, limit: int
    ) -> OwnedTasks:
        with self._lock:
            owned = self._owned.get(owner, [])
            # Newest first: walk the (oldest first) list backwards from below ``after``.
            end = len(owned) if after is None else bisect.bisect_left(owned, _position_key(after))
            found: list[IndexedTask] = []
            index = end
            while index > 0 and len(found) <= limit:
                index -= 1
                created_at, task_id, context = owned[index]
                if context_id is None or context == context_id:
                    found.append(IndexedTask(task_id, context, created_at, _position(created_at, task_id)))
        if len(found) <= limit:
            return OwnedTasks(tuple(found), None)
        page = tuple(found[:limit])
        return OwnedTasks(page, page[-1].position)

    async def count_owned(self, owner: str, *, context_id: str | None = None) -> int:
        with self._lock:
            owned = self._owned.get(owner, [])
            return sum(1 for _, _, context in owned if context_id is None or context == context_id)

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

    async def list_owned(
        self, owner: str, *, context_id: str | None = None, after: str | None = None, limit: int
    ) -> OwnedTasks:
        return await self.inner.list_owned(owner, context_id=context_id, after=after, limit=limit)

    async def count_owned(self, owner: str, *, context_id: str | None = None) -> int:
        return await self.inner.count_owned(owner, context_id=context_id)

    async def wait_for_append(self, task_id: str, after_seq: int, timeout: float) -> None:
        # No cheap "already ahead?" check here (it would be a read): an append that lands just
        # before we register is caught by the caller's next poll, at most ``timeout`` later.
        await self._notifier.wait(task_id, timeout)


def _position(created_at: float, task_id: str) -> str:
    return json.dumps([created_at, task_id], separators=(",", ":"))


def _position_key(position: str) -> tuple[float, str]:
    """The (created_at, task_id) a position stands for."""
    try:
        parsed = json.loads(position)
    except ValueError:
        parsed = None
    match parsed:
        case [int() | float() as created_at, str(task_id)] if not isinstance(created_at, bool):
            return float(created_at), task_id
        case _:
            raise InvalidPositionError(f"not a task list position: {position!r}")
