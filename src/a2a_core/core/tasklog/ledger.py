"""Task lifecycle on top of a `TaskStore`: every write and every read of every component goes
through here.

Each write reads the task's head, lets the caller decide what to append given that head (or to
append nothing), checks every status change against the state machine, and appends the commit
at the next sequence number. If another writer won the race the whole decision is taken again
on the new head, so a decision is never made on stale state: a cancel and a completion racing
end in exactly one terminal state, and a duplicate request finds its own earlier write. A commit
that is due one (`a2a_core.snapshots.is_due`) is stored with a snapshot of the task folded up to
it, in the same write.

Reads (`load`, `view`, `views`, `commits_after`, `commits_since`) go through `TaskReader`: the
newest snapshot plus the commits after it, never the whole log.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection

from a2a_core.core.backoff import Backoff
from a2a_core.core.errors import (
    ConcurrentUpdateError,
    InternalError,
    StoreUnavailableError,
    TaskNotFoundError,
)
from a2a_core.core.tasklog.changes import CREATED_SEQ, LAST_SEQ, Decide, next_commit, now_iso
from a2a_core.core.tasklog.list_keys import carries_entry
from a2a_core.core.tasklog.records import (
    ANONYMOUS_OWNER,
    Commit,
    MessageAdded,
    RunLease,
    StatusChanged,
    TurnRequest,
    generation_of,
    new_write_id,
)
from a2a_core.core.tasklog.snapshots import SNAPSHOT_EVERY, Folding, fold, is_due, next_mark, taken_mark
from a2a_core.core.tasklog.store import TaskStore
from a2a_core.core.tasklog.store_retries import RetryingTaskStore
from a2a_core.core.tasklog.task_reads import TaskReader, TaskView
from a2a_core.domain import Message, Task, TaskState, TaskStatus

logger = logging.getLogger(__name__)


class TaskLedger:
    def __init__(
        self,
        store: TaskStore,
        *,
        clock: Callable[[], float] = time.time,
        max_races: int = 50,
        history_cap: int = 1000,
        snapshot_every: int = SNAPSHOT_EVERY,
        repair_snapshots: bool = True,
    ) -> None:
        """``history_cap``: the most messages a read returns (the server's historyLength cap);
        ``snapshot_every``: the fewest commits between snapshots; ``repair_snapshots`` False for
        a reader that may not write (the push function): it then never stores a snapshot.

        Every call to ``store`` is tried again a few times while it raises
        `StoreUnavailableError` (`RetryingTaskStore`), appends included: they are idempotent."""
        self.store: TaskStore = store if isinstance(store, RetryingTaskStore) else RetryingTaskStore(store)
        store = self.store
        self._clock = clock
        self._max_races = max_races
        self._snapshot_every = snapshot_every
        # A page of `snapshot_every` entries holds the newest snapshot while snapshots are small
        # (one every that many commits): one read whose 4 KB units are not wasted on commits
        # older than it. A larger snapshot, spaced further back, takes one more, exact read.
        self._reader = TaskReader(
            store, history_cap=history_cap, page=snapshot_every, repair=repair_snapshots
        )

    @property
    def history_cap(self) -> int:
        return self._reader.history_cap

    async def create(
        self,
        *,
        task_id: str,
        context_id: str,
        message: Message,
        run_id: str,
        metadata: dict[str, object] | None = None,
        owner: str | None = None,
        request: TurnRequest | None = None,
    ) -> tuple[Task, bool]:
        """Create a submitted task owned by ``owner``, on its first turn; returns (task, created).
        Idempotent on ``task_id``. ``request``: what the call said besides the message and the
        task's ``metadata``."""
        first = Commit(
            task_id=task_id,
            context_id=context_id,
            first_seq=1,
            events=(
                MessageAdded(seq=1, message=message, request=request),
                StatusChanged(
                    seq=CREATED_SEQ, status=TaskStatus(state=TaskState.submitted, timestamp=now_iso())
                ),
            ),
            state=TaskState.submitted,
            run=RunLease(run_id=run_id, turn=1),
            created_at=self._clock(),
            metadata=metadata,
            owner=owner,
            write_id=new_write_id(),
            listing=1,
        )
        commit = first.model_copy(update={"snapshot_mark": next_mark(None, _size(first))})
        try:
            await self.store.append(commit)
        except ConcurrentUpdateError:
            return await self.load(task_id, owner=owner), False
        folding = fold([commit])
        return folding.task(folding.messages), True

    # Reads and writes for a client pass ``owner`` (its principal): a task someone else owns is
    # reported exactly like a task that does not exist, checked before any content is read
    # (`_check_owner`). None skips the check (the worker's writes).
    async def load(
        self, task_id: str, history_length: int | None = None, *, owner: str | None = None
    ) -> Task:
        """The task with its last ``history_length`` messages (None: as many as the cap allows)."""
        return (await self.view(task_id, history_length=history_length, owner=owner)).task

    async def view(
        self,
        task_id: str,
        *,
        history_length: int | None = None,
        through: int | None = None,
        owner: str | None = None,
    ) -> TaskView:
        """`load`, with the head it was folded through; as of the commit starting at or before
        ``through`` when given (a stream's start, a push notification's commit)."""
        await self._check_owner(task_id, owner)
        view = await self._reader.view(task_id, history_length=history_length, through=through)
        if view is None or not _owned(view.head, owner):
            raise TaskNotFoundError(f"Task {task_id} not found")
        return view

    async def views(
        self, task_ids: list[str], *, history_length: int | None = None, owner: str | None = None
    ) -> list[TaskView]:
        """`view` of many tasks (a list page); unknown tasks and others' are left out."""
        views = await self._reader.views(task_ids, history_length=history_length)
        return [view for view in views if _owned(view.head, owner)]

    async def commits_after(self, task_id: str, seq: int) -> list[Commit]:
        """The commits starting after ``seq``, which must end a commit (a follower's last one);
        one read, and [] when nothing is new."""
        return [
            entry.commit for entry in await self.store.entries(task_id, seq + 1, LAST_SEQ, snapshots=False)
        ]

    async def wait_for_append(self, task_id: str, after_seq: int, timeout: float) -> None:
        """Return once the log may hold events past ``after_seq``, or after ``timeout`` seconds
        (`TaskStore.wait_for_append`: early only where the store can tell)."""
        await self.store.wait_for_append(task_id, after_seq, timeout)

    async def commits_since(self, task_id: str, after_seq: int) -> list[Commit]:
        """The commits holding any event after ``after_seq`` (which may fall inside a commit)."""
        return await self.store.read(task_id, after_seq)

    async def head(self, task_id: str, *, owner: str | None = None) -> Commit:
        await self._check_owner(task_id, owner)
        head = await self.store.head(task_id)
        if head is None or not _owned(head, owner):
            raise TaskNotFoundError(f"Task {task_id} not found")
        return head

    async def _check_owner(self, task_id: str, owner: str | None) -> None:
        """TaskNotFoundError unless ``owner`` (None: anyone) owns the task, before any of its
        content is read: another caller's task and an unknown id cost the same one small read
        (`TaskStore.owned`), so neither the answer nor its timing tells them apart."""
        if owner is not None and not await self.store.owned(task_id, owner):
            raise TaskNotFoundError(f"Task {task_id} not found")

    async def write(
        self,
        task_id: str,
        decide: Decide,
        *,
        head: Commit | None = None,
        folding: Folding | None = None,
        owner: str | None = None,
    ) -> Commit | None:
        """Append what ``decide(head)`` returns; None if it chose to append nothing.

        ``decide`` may raise a domain error to refuse; it is called again on the fresh head
        whenever another writer got there first. A writer that knows the head (its own last
        commit) passes it to save a read; decisions on it are re-taken on a fresh head if the
        append loses a race or ``decide`` refuses. One that also knows the task folded through
        that head (``folding``, left unchanged) saves the read a snapshot would otherwise take.
        """
        if head is None:
            await self._check_owner(task_id, owner)  # once: a task's owner never changes
        for _ in range(self._max_races):
            cached = head is not None
            current = head or await self.head(task_id)
            known = folding if cached else None
            if not _owned(current, owner):
                raise TaskNotFoundError(f"Task {task_id} not found")
            head = folding = None  # whatever happens below, a further attempt reads afresh
            try:
                change = decide(current)
            except Exception:
                if cached:
                    continue
                raise
            if change is None:
                if cached:
                    continue
                return None
            commit, snapshot = await self._with_snapshot(
                current, next_commit(current, change, self._clock()), known
            )
            try:
                await self.store.append(commit, snapshot)
            except ConcurrentUpdateError:
                continue
            await self._move_entry(current, commit)
            return commit
        raise InternalError(f"Task {task_id} is too busy: gave up after {self._max_races} write races")

    async def wait_for(
        self, task_id: str, states: Collection[TaskState], timeout: float, *, poll: float = 0.05
    ) -> Commit:
        """The head once the task reaches one of ``states``, or the head when ``timeout`` runs out.

        Polls with backoff (0.05 s growing to 1 s) on stores that cannot push appends to us.
        """
        deadline = time.monotonic() + timeout
        backoff = Backoff(poll)
        head = await self.head(task_id)
        while head.state not in states and (remaining := deadline - time.monotonic()) > 0:
            await self.wait_for_append(task_id, head.last_seq, min(remaining, backoff.next()))
            head = await self.head(task_id)
        return head

    async def wait_past_generation(
        self, task_id: str, generation: int, timeout: float, *, owner: str | None = None
    ) -> Commit:
        """The head once the task's generation (`generation_of`) is past ``generation``, or the
        head when ``timeout`` runs out (A2A 1.1's long-poll GetTask). Woken by the append where
        the store can tell (in-process, dev); else each look is one head read, backing off from
        0.05 s to 1 s. A task without generations (0) is returned at once: it would never move."""
        deadline = time.monotonic() + timeout
        backoff = Backoff(0.05)
        head = await self.head(task_id, owner=owner)
        while 0 < generation_of(head) <= generation and (remaining := deadline - time.monotonic()) > 0:
            await self.wait_for_append(task_id, head.last_seq, min(remaining, backoff.next()))
            head = await self.head(task_id)
        return head

    async def _move_entry(self, head: Commit, commit: Commit) -> None:
        """Once ``commit`` (stored) carries the task's listing entry, remove ``head``'s carrier's.

        Best effort: the commit is stored whatever happens here, and a listing drops an entry its
        task's head no longer names (`a2a_core.core.listing.pages`): an entry left behind costs a read,
        never a wrong answer."""
        if head.listing is None or head.listing == commit.listing or not carries_entry(commit):
            return
        try:
            await self.store.unlist(commit.task_id, head.listing)
        except StoreUnavailableError:
            logger.warning("task %s: the listing entry of commit %d stays", commit.task_id, head.listing)

    async def _with_snapshot(
        self, head: Commit, commit: Commit, known: Folding | None
    ) -> tuple[Commit, bytes | None]:
        """``commit`` with its mark, and the snapshot it carries if one is due."""
        mark = next_mark(head, _size(commit))
        if not is_due(mark, self._snapshot_every):
            return commit.model_copy(update={"snapshot_mark": mark}), None
        if known is not None and known.upto == head.last_seq:
            folding = known.copy()
        else:
            folded = await self._reader.fold(head.task_id, through=head.first_seq)
            if folded is None or folded[1].first_seq != head.first_seq:  # the head is gone: no snapshot
                return commit.model_copy(update={"snapshot_mark": mark}), None
            folding = folded[0]
        folding.apply(commit)
        snapshot = folding.snapshot(self.history_cap).model_dump_json(exclude_none=True).encode()
        return commit.model_copy(update={"snapshot_mark": taken_mark(commit, len(snapshot))}), snapshot


def _owned(commit: Commit, owner: str | None) -> bool:
    return owner is None or (commit.owner or ANONYMOUS_OWNER) == owner


def _size(commit: Commit) -> int:
    """What the commit weighs in the log (its stored JSON, before a mark is added)."""
    return len(commit.model_dump_json(exclude_none=True))
