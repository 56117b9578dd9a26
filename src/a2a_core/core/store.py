"""The task store port and its in-memory adapter.

The port is deliberately small: append a commit at the next sequence number (optionally with a
snapshot stored beside it), read the head, read the log by position, list an owner's tasks.
Everything the protocol means by a task (state machine, history, artifacts, what a snapshot
holds, list filters) is built on top of it by `TaskLedger`, so adapters stay simple and share
one contract suite. To an adapter a snapshot is opaque bytes that belong to one commit.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Collection
from dataclasses import dataclass
from functools import cached_property

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


@dataclass(frozen=True)
class LogEntry:
    """A stored commit (its JSON) and the snapshot stored with it: None when it has none (or when
    the read did not ask for snapshots), empty bytes when it has one whose body is gone."""

    body: str | bytes
    snapshot: bytes | None = None

    @cached_property
    def commit(self) -> Commit:
        """The commit, parsed on first use: a reader parses only the entries it folds."""
        return Commit.model_validate_json(self.body)


class TaskStore(ABC):
    """Durable, append-only task logs."""

    @abstractmethod
    async def append(self, commit: Commit, snapshot: bytes | None = None) -> None:
        """Store ``commit`` as the next entry of its task's log, with ``snapshot`` beside it.

        Callers append at the ``next_seq`` of a head they read (``first_seq == 1`` creates the
        task). Adapters guarantee only that a taken sequence number is refused: they raise
        `ConcurrentUpdateError` when a commit of that task already starts at ``commit.first_seq``
        (for ``first_seq == 1``: the task already exists), and then store neither. Whether a gap
        or an append to an unknown task is refused is adapter-specific (it would cost a
        transaction or a read on DynamoDB). The ledger decides what a lost race means.

        Idempotent per commit: when the commit stored at ``commit.first_seq`` has the same
        ``write_id`` (a call whose answer was lost, say a `StoreUnavailableError` raised after the
        write landed), the append returns normally. So a caller that does not know whether its
        append landed appends the same commit again to find out.
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
    async def latest(self, task_id: str, *, limit: int, through: int | None = None) -> list[LogEntry]:
        """The last ``limit`` entries of the log, newest first, with their snapshots: of the
        commits starting at or before ``through`` when given. One strongly consistent read."""

    @abstractmethod
    async def entries(self, task_id: str, first: int, last: int, *, snapshots: bool = True) -> list[LogEntry]:
        """The entries whose commit starts in ``[first, last]``, in order; their snapshots only
        when ``snapshots`` (else every ``snapshot`` is None)."""

    @abstractmethod
    async def commits_at(self, task_id: str, first_seqs: Collection[int]) -> list[Commit]:
        """The commits starting at ``first_seqs``, in order; those that do not exist are left out."""

    @abstractmethod
    async def attach_snapshot(self, commit: Commit, snapshot: bytes) -> bool:
        """Store ``snapshot`` with the stored ``commit`` (the same task and first_seq), replacing
        any it has; False, storing nothing, when there is no such commit. Idempotent."""

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

    @abstractmethod
    async def owned(self, task_id: str, owner: str) -> bool:
        """Whether the task exists and ``owner`` created it (a first commit without an owner is
        `ANONYMOUS_OWNER`'s). False alike for another caller's task and for one that does not
        exist, and the same work either way, reading no task content: ownership is checked
        before anything is read, so a refusal's cost does not tell a caller which ids exist (a
        wrapper forwards it: reading the head to answer would undo that). Strongly consistent.
        """

    async def wait_for_append(self, task_id: str, after_seq: int, timeout: float) -> None:
        """Return once the log may hold events past ``after_seq``, or after ``timeout`` seconds.

        Adapters that can be told about appends (in-process) wake early; remote ones just sleep
        and let the caller poll. Never raises on timeout.
        """
        await asyncio.sleep(timeout)


@dataclass
class _Stored:
    first_seq: int
    last_seq: int
    commit: bytes  # serialized
    snapshot: bytes | None
    write_id: str | None = None


class InMemoryTaskStore(TaskStore):
    """Logs kept in this process; commits are serialized, so readers never share objects."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Per task, in order.
        self._logs: dict[str, list[_Stored]] = {}
        # Per owner: (created_at, task_id, context_id) of each task, oldest first.
        self._owned: dict[str, list[tuple[float, str, str]]] = {}
        self._owners: dict[str, str] = {}  # task id -> the owner of its first commit
        self._notifier = Notifier()

    async def append(self, commit: Commit, snapshot: bytes | None = None) -> None:
        entry = _Stored(
            commit.first_seq, commit.last_seq, commit.model_dump_json().encode(), snapshot, commit.write_id
        )
        with self._lock:
            log = self._logs.get(commit.task_id)
            stored = None if log is None else _stored_at(log, commit)
            if stored is not None:
                if commit.write_id is not None and stored == commit.write_id:
                    return  # appended before, by a call whose answer was lost
                raise ConcurrentUpdateError(f"seq {commit.first_seq} of {commit.task_id} is taken")
            if commit.first_seq == 1:
                if log is not None:
                    raise ConcurrentUpdateError(f"task {commit.task_id} already exists")
                self._logs[commit.task_id] = [entry]
                self._owners[commit.task_id] = commit.owner or ANONYMOUS_OWNER
                owned = self._owned.setdefault(commit.owner or ANONYMOUS_OWNER, [])
                bisect.insort(owned, (commit.created_at, commit.task_id, commit.context_id))
            else:
                if log is None:
                    raise ConcurrentUpdateError(f"task {commit.task_id} does not exist")
                if log[-1].last_seq + 1 != commit.first_seq:
                    raise ConcurrentUpdateError(f"seq {commit.first_seq} of {commit.task_id} is taken")
                log.append(entry)
        self._notifier.notify(commit.task_id)

    async def head(self, task_id: str) -> Commit | None:
        with self._lock:
            log = self._logs.get(task_id)
            blob = log[-1].commit if log else None
        return None if blob is None else Commit.model_validate_json(blob)

    async def read(self, task_id: str, after_seq: int = 0) -> list[Commit]:
        with self._lock:
            log = self._logs.get(task_id, [])
            # Sequence numbers only grow: bisect to the first commit ending after ``after_seq``.
            start = bisect.bisect_right(log, after_seq, key=lambda entry: entry.last_seq)
            blobs = [entry.commit for entry in log[start:]]
        return [Commit.model_validate_json(blob) for blob in blobs]

    async def latest(self, task_id: str, *, limit: int, through: int | None = None) -> list[LogEntry]:
        with self._lock:
            log = self._logs.get(task_id, [])
            end = len(log) if through is None else bisect.bisect_right(log, through, key=_first_seq)
            stored = log[max(0, end - limit) : end][::-1]
        return [_entry(entry, snapshots=True) for entry in stored]

    async def entries(self, task_id: str, first: int, last: int, *, snapshots: bool = True) -> list[LogEntry]:
        with self._lock:
            log = self._logs.get(task_id, [])
            stored = log[
                bisect.bisect_left(log, first, key=_first_seq) : bisect.bisect_right(
                    log, last, key=_first_seq
                )
            ]
        return [_entry(entry, snapshots=snapshots) for entry in stored]

    async def commits_at(self, task_id: str, first_seqs: Collection[int]) -> list[Commit]:
        with self._lock:
            by_seq = {entry.first_seq: entry.commit for entry in self._logs.get(task_id, [])}
            blobs = [by_seq[seq] for seq in sorted(set(first_seqs)) if seq in by_seq]
        return [Commit.model_validate_json(blob) for blob in blobs]

    async def attach_snapshot(self, commit: Commit, snapshot: bytes) -> bool:
        with self._lock:
            log = self._logs.get(commit.task_id, [])
            index = bisect.bisect_left(log, commit.first_seq, key=_first_seq)
            if index == len(log) or log[index].first_seq != commit.first_seq:
                return False
            log[index].snapshot = snapshot
        return True

    async def owned(self, task_id: str, owner: str) -> bool:
        with self._lock:
            return self._owners.get(task_id) == owner

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
            return log[-1].last_seq if log else 0


def _first_seq(entry: _Stored) -> int:
    return entry.first_seq


def _stored_at(log: list[_Stored], commit: Commit) -> str | None:
    """The write_id of the commit stored at ``commit.first_seq`` ("" without one); None if none is."""
    index = bisect.bisect_left(log, commit.first_seq, key=_first_seq)
    if index == len(log) or log[index].first_seq != commit.first_seq:
        return None
    return log[index].write_id or ""


def _entry(stored: _Stored, *, snapshots: bool) -> LogEntry:
    return LogEntry(stored.commit, stored.snapshot if snapshots else None)


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
