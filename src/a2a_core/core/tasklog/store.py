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
import threading
from abc import ABC, abstractmethod
from collections.abc import Collection
from dataclasses import dataclass
from functools import cached_property

from a2a_core.core.errors import ConcurrentUpdateError
from a2a_core.core.tasklog.list_keys import IndexedTask, IndexQuery, InvalidPositionError, OwnedTasks
from a2a_core.core.tasklog.memory_index import MemoryListIndex
from a2a_core.core.tasklog.records import ANONYMOUS_OWNER, Commit
from a2a_core.core.wakeups import Wakeups

__all__ = [
    "InMemoryTaskStore",
    "IndexQuery",
    "IndexedTask",
    "InvalidPositionError",
    "LogEntry",
    "OwnedTasks",
    "TaskStore",
]


@dataclass(frozen=True)
class LogEntry:
    """A stored commit (its JSON) and the snapshot stored with it: None when it has none (or when
    the read did not ask for snapshots), empty bytes when it has one whose body is gone."""

    body: str | bytes
    snapshot: bytes | None = None
    # A lease renewed in place since the commit was stored (`TaskStore.renew_lease`), if any.
    lease_until: float | None = None

    @cached_property
    def commit(self) -> Commit:
        """The commit, parsed on first use: a reader parses only the entries it folds."""
        return renewed(Commit.model_validate_json(self.body), self.lease_until)


def renewed(commit: Commit, lease_until: float | None) -> Commit:
    """``commit`` with its run's lease pushed back to ``lease_until`` (when that is later)."""
    run = commit.run
    if lease_until is None or run is None or (run.lease_until or 0.0) >= lease_until:
        return commit
    return commit.model_copy(update={"run": run.model_copy(update={"lease_until": lease_until})})


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

    async def renew_lease(self, commit: Commit, lease_until: float) -> bool:
        """Push the lease of the stored ``commit``'s run back to ``lease_until``, in place: no new
        commit, no new sequence number, nothing a follower of the log sees (a heartbeat of the
        long-turn worker, `a2a_core.core.turn.leases.renew`). False, changing nothing, when no
        commit with ``commit``'s first_seq and write_id is stored. Whether ``commit`` is still the
        head is the caller's to check: a renewal of a commit that is no longer the head changes
        nothing anyone reads (readers take the lease from the head). Idempotent; a lease is never
        moved earlier."""
        raise NotImplementedError(f"{type(self).__name__} cannot renew leases in place")

    @abstractmethod
    async def list_owned(
        self, owner: str, query: IndexQuery, *, after: str | None = None, limit: int
    ) -> OwnedTasks:
        """Candidates for a page of ``owner``'s tasks that match ``query``: every task that
        matches, maybe with others (the caller reads each candidate and keeps those that match
        when it reads them: a submitted task is a candidate for ``working`` too).

        Isolation: only tasks whose first commit names ``owner`` (a commit without an owner
        counts as `ANONYMOUS_OWNER`'s, as the ledger treats it).
        Order: with ``query.context_id``, newest created first (the first commit's
        ``created_at``); otherwise by `list_keys.sort_value` of the commit carrying each task's
        entry, largest first (tasks in progress first, then the others by status timestamp,
        newest first). Ties come in an adapter-defined order that is the same on every call.
        Filters: ``listed`` keeps the entries carried by commits of that class; ``since`` those
        whose sort value is at least ``since`` (every task in progress, and the others whose
        status changed at or after it); both are applied to entries, so with ``context_id``
        (whose index holds no state) an adapter may leave them to the caller.
        Pages: at most ``limit`` entries, continuing after ``after`` (a ``position`` or a
        ``next_position`` this adapter returned for the same owner and query; None starts at
        the top). ``next_position`` is None once nothing follows; otherwise the next call with
        it returns the entries that follow. To bound one call's work (filters skipping many
        entries) an adapter may return fewer than ``limit`` entries, even none, with a
        ``next_position``; a position may also lead to an empty last page. Positions are opaque,
        short strings meant to travel inside page tokens; a string this adapter did not produce
        raises `InvalidPositionError`.
        Consistency: may lag appends briefly on adapters backed by an eventually consistent
        index (DynamoDB's global secondary indexes), unlike `head` and `read`. An entry moves
        when a newer commit carries it (`Commit.listing`): the old one is removed by `unlist`
        just after that commit is stored, so for a moment (or, if the writer died in between,
        until the task moves again) both may be listed; the old one's ``seq`` is no longer the
        head's carrier. A task listed may have expired since (reading it finds nothing). Tasks
        past their retention are not listed.
        """

    @abstractmethod
    async def unlist(self, task_id: str, seq: int) -> None:
        """Remove the listing entry the commit at ``seq`` carries: a newer commit of the task
        carries it now (`Commit.listing`). Nothing if it has none, or is gone. Idempotent.

        Adapters whose index moves an entry as the commit taking it over is appended (the
        in-memory one) have nothing to do."""

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
    lease_until: float | None = None  # renewed in place (`renew_lease`)


class InMemoryTaskStore(TaskStore):
    """Logs kept in this process; commits are serialized, so readers never share objects."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Per task, in order.
        self._logs: dict[str, list[_Stored]] = {}
        self._index = MemoryListIndex()
        self._owners: dict[str, str] = {}  # task id -> the owner of its first commit
        self._wakeups = Wakeups()

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
            else:
                if log is None:
                    raise ConcurrentUpdateError(f"task {commit.task_id} does not exist")
                if log[-1].last_seq + 1 != commit.first_seq:
                    raise ConcurrentUpdateError(f"seq {commit.first_seq} of {commit.task_id} is taken")
                log.append(entry)
            self._index.add(commit)
        self._wakeups.wake(commit.task_id)

    async def head(self, task_id: str) -> Commit | None:
        with self._lock:
            log = self._logs.get(task_id)
            blob = log[-1].commit if log else None
            until = log[-1].lease_until if log else None
        return None if blob is None else renewed(Commit.model_validate_json(blob), until)

    async def read(self, task_id: str, after_seq: int = 0) -> list[Commit]:
        with self._lock:
            log = self._logs.get(task_id, [])
            # Sequence numbers only grow: bisect to the first commit ending after ``after_seq``.
            start = bisect.bisect_right(log, after_seq, key=lambda entry: entry.last_seq)
            stored = log[start:]
        return [_entry(entry, snapshots=False).commit for entry in stored]

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
            by_seq = {entry.first_seq: entry for entry in self._logs.get(task_id, [])}
            stored = [by_seq[seq] for seq in sorted(set(first_seqs)) if seq in by_seq]
        return [_entry(entry, snapshots=False).commit for entry in stored]

    async def attach_snapshot(self, commit: Commit, snapshot: bytes) -> bool:
        with self._lock:
            log = self._logs.get(commit.task_id, [])
            index = bisect.bisect_left(log, commit.first_seq, key=_first_seq)
            if index == len(log) or log[index].first_seq != commit.first_seq:
                return False
            log[index].snapshot = snapshot
        return True

    async def renew_lease(self, commit: Commit, lease_until: float) -> bool:
        with self._lock:
            log = self._logs.get(commit.task_id, [])
            index = bisect.bisect_left(log, commit.first_seq, key=_first_seq)
            if index == len(log) or log[index].first_seq != commit.first_seq:
                return False
            stored = log[index]
            if commit.write_id is not None and stored.write_id != commit.write_id:
                return False
            stored.lease_until = max(stored.lease_until or 0.0, lease_until)
        return True

    async def owned(self, task_id: str, owner: str) -> bool:
        with self._lock:
            return self._owners.get(task_id) == owner

    async def list_owned(
        self, owner: str, query: IndexQuery, *, after: str | None = None, limit: int
    ) -> OwnedTasks:
        with self._lock:
            return self._index.list(owner, query, after, limit)

    async def unlist(self, task_id: str, seq: int) -> None:
        pass  # its index moved the entry when the commit that carries it now was appended

    async def wait_for_append(self, task_id: str, after_seq: int, timeout: float) -> None:
        await self._wakeups.wait(task_id, timeout, ready=lambda: self._last_seq(task_id) > after_seq)

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
    return LogEntry(stored.commit, stored.snapshot if snapshots else None, stored.lease_until)
