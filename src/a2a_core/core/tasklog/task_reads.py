"""The ledger's read side: a task read from its newest snapshot plus the commits after it.

Every read of a task goes through `TaskReader` (behind `TaskLedger`): one ``latest`` read of the
last `SNAPSHOT_EVERY` log entries (a ``page``) finds the newest snapshot (a commit carries one
every that many commits while the task is small) and the commits after it, which are folded onto
it; a snapshot further back (spaced out by a large task) is reached with one more, exact read.
``historyLength`` beyond the snapshot's recent messages reads exactly the commits that hold the
older ones (by the positions the snapshot keeps), so a read costs O(1) entries plus O(k)
messages, whatever the log's length. Reading a task whose artifacts are large is O(their size).

A snapshot is never trusted over the log: one that cannot be read, is of an unknown newer format
or does not fit the commit it is stored with is skipped, and the task is folded from the log
instead (found through the head's `SnapshotMark`, or from the first commit); such a reader then
stores a fresh snapshot with the head (``repair``), unless it may only read.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from a2a_core.core.errors import StoreUnavailableError
from a2a_core.core.tasklog.records import Commit, generation_of
from a2a_core.core.tasklog.snapshots import (
    SNAPSHOT_EVERY,
    SNAPSHOT_FORMAT,
    Folding,
    TaskSnapshot,
    messages_of,
)
from a2a_core.core.tasklog.store import LogEntry, TaskStore
from a2a_core.domain import Message, Task

logger = logging.getLogger(__name__)

# A snapshot's format field: the JSON's first key, as every version's `TaskSnapshot` writes it.
_FORMAT = re.compile(rb'^\s*\{\s*"format"\s*:\s*(\d+)')
# Tasks read at once by `TaskReader.views` (one list page).
_PARALLEL_READS = 8


@dataclass(frozen=True)
class TaskView:
    """A task as read: the Task a client sees, the head commit it is folded through, and the
    fold itself (the caller's to keep folding its own commits onto)."""

    task: Task
    head: Commit
    folding: Folding


@dataclass
class _Found:
    """What a look through log entries (newest first) found."""

    index: int  # of the entry whose snapshot the fold starts from; len(entries): from scratch
    folding: Folding | None
    damaged: bool = False  # a snapshot was skipped as unreadable: worth replacing
    newer: bool = False  # a snapshot of a newer format was skipped: leave it to that version


class TaskReader:
    def __init__(
        self, store: TaskStore, *, history_cap: int, page: int = SNAPSHOT_EVERY, repair: bool = True
    ) -> None:
        """``history_cap``: the most messages a read returns (and a snapshot indexes); ``page``:
        log entries asked for at once; ``repair``: store fresh snapshots (False: read-only)."""
        self._store = store
        self.history_cap = history_cap
        self._page = page
        self._repair = repair

    async def view(
        self, task_id: str, *, history_length: int | None = None, through: int | None = None
    ) -> TaskView | None:
        """The task with its last ``history_length`` messages (None: the cap; never more), as of
        the commit starting at or before ``through`` (None: now); None for an unknown task."""
        folded = await self.fold(task_id, through=through)
        if folded is None:
            return None
        folding, head = folded
        limit = self.history_cap if history_length is None else min(max(history_length, 0), self.history_cap)
        history = await self.history(task_id, folding, limit)
        return TaskView(folding.task(history), head, folding)

    async def views(self, task_ids: Sequence[str], *, history_length: int | None = None) -> list[TaskView]:
        """`view` of each task (a list page), a few at a time; unknown tasks are left out."""
        slots = asyncio.Semaphore(_PARALLEL_READS)

        async def one(task_id: str) -> TaskView | None:
            async with slots:
                return await self.view(task_id, history_length=history_length)

        return [view for view in await asyncio.gather(*map(one, task_ids)) if view is not None]

    async def fold(self, task_id: str, *, through: int | None = None) -> tuple[Folding, Commit] | None:
        """The task folded through its head (or the commit starting at or before ``through``),
        and that commit; None for an unknown task."""
        entries = await self._store.latest(task_id, limit=self._page, through=through)
        if not entries:
            return None
        head = entries[0].commit
        entries, found = await self._from_snapshot(task_id, entries)
        tail = [entry.commit for entry in reversed(entries[: found.index])]
        folding = found.folding or Folding.begin(tail[0])
        for commit in tail:
            folding.apply(commit)
        unusable = found.damaged or found.folding is None
        if self._repair and unusable and not found.newer and len(tail) > self._page:
            await self._attach(head, folding)
        return folding, head

    async def _from_snapshot(self, task_id: str, entries: list[LogEntry]) -> tuple[list[LogEntry], _Found]:
        """``entries`` (newest first) extended back to the newest usable snapshot, or to the
        first commit if there is none; and where that snapshot is."""
        found = _newest_snapshot(entries)
        if found.folding is not None or entries[-1].commit.first_seq == 1:
            return entries, found
        before = entries[-1].commit.first_seq
        mark = entries[0].commit.snapshot_mark
        if mark is not None and mark.at is not None and mark.at < before:
            # The head's mark names the commit holding the newest snapshot: read exactly to it.
            older = (await self._store.entries(task_id, mark.at, before - 1))[::-1]
            deeper = _newest_snapshot(older, damaged=found.damaged, newer=found.newer)
            if deeper.folding is not None:
                return entries + older, replace(deeper, index=len(entries) + deeper.index)
            entries, found, before = entries + older, deeper, mark.at
        # No usable snapshot where the mark says: the whole log before it.
        rest = (await self._store.entries(task_id, 1, before - 1, snapshots=False))[::-1]
        entries = entries + rest
        return entries, replace(found, index=len(entries))

    async def history(self, task_id: str, folding: Folding, count: int) -> list[Message]:
        """The last ``count`` messages of ``folding``'s task (all, if it has fewer)."""
        count = min(count, folding.message_count)
        have = folding.messages
        if count <= len(have):
            return have[len(have) - count :]
        positions = folding.positions
        if len(positions) >= count:
            start, stop = len(positions) - count, len(positions) - len(have)
            commits = await self._commits(task_id, positions[start:stop])
            older = _pick(positions, start, stop, commits)
            if older is not None:
                return [*older, *have]
            logger.warning(
                "task %s: a snapshot's message positions do not fit its log; reading the log", task_id
            )
        # More than the snapshot indexes (the cap was raised since), or an index that does not fit.
        entries = await self._store.entries(task_id, 1, folding.upto, snapshots=False)
        everything = Folding.begin(entries[0].commit)
        for entry in entries:
            everything.apply(entry.commit)
        return everything.messages[len(everything.messages) - min(count, len(everything.messages)) :]

    async def _commits(self, task_id: str, positions: list[int]) -> dict[int, Commit]:
        """The commits at ``positions``: one range read where they are dense, else by key."""
        wanted = sorted(set(positions))
        if wanted[-1] - wanted[0] < 4 * len(wanted):
            entries = await self._store.entries(task_id, wanted[0], wanted[-1], snapshots=False)
            commits = [entry.commit for entry in entries]
        else:
            commits = await self._store.commits_at(task_id, wanted)
        return {commit.first_seq: commit for commit in commits}

    async def _attach(self, head: Commit, folding: Folding) -> None:
        snapshot = folding.snapshot(self.history_cap).model_dump_json(exclude_none=True).encode()
        try:
            await self._store.attach_snapshot(head, snapshot)
        except StoreUnavailableError:
            # A read must not fail for want of a derived copy; the next reader tries again.
            logger.warning("could not store a repaired snapshot of task %s", head.task_id)


def _newest_snapshot(entries: Sequence[LogEntry], *, damaged: bool = False, newer: bool = False) -> _Found:
    for index, entry in enumerate(entries):
        if entry.snapshot is None:
            continue
        if _format(entry.snapshot) > SNAPSHOT_FORMAT:
            newer = True
            continue
        try:
            snapshot = TaskSnapshot.model_validate_json(entry.snapshot)
            if snapshot.task_id != entry.commit.task_id or snapshot.upto != entry.commit.last_seq:
                raise ValueError(f"it folds {snapshot.task_id} up to {snapshot.upto}")
            folding = Folding.resume(snapshot)
            folding.generation = generation_of(entry.commit)
            return _Found(index, folding, damaged, newer)
        except ValueError as error:  # pydantic's ValidationError included
            logger.warning(
                "task %s: skipping the snapshot stored with commit %d: %s",
                entry.commit.task_id,
                entry.commit.first_seq,
                error,
            )
            damaged = True
    return _Found(len(entries), None, damaged, newer)


def _format(snapshot: bytes) -> int:
    """The format a stored snapshot says it has (a newer one may not parse as this version's)."""
    found = _FORMAT.search(snapshot)
    return int(found.group(1)) if found else SNAPSHOT_FORMAT


def _pick(positions: list[int], start: int, stop: int, commits: dict[int, Commit]) -> list[Message] | None:
    """The messages at ``positions[start:stop]`` out of ``commits``; None if they do not fit.

    A commit may hold several messages (a user message and a status message); which of them
    ``positions[i]`` is counts from the commit's last message, whose position is always in the
    list (the list runs to the newest message).
    """
    picked = []
    for index in range(start, stop):
        position = positions[index]
        commit = commits.get(position)
        if commit is None:
            return None
        last = index
        while last + 1 < len(positions) and positions[last + 1] == position:
            last += 1
        messages = messages_of(commit)
        if last - index >= len(messages):
            return None
        picked.append(messages[len(messages) - 1 - (last - index)])
    return picked
