"""Pages of one owner's tasks: the owner index, read a task at a time, filtered on current state.

The store's owner index says which tasks exist and in what order (newest created first), and
can filter by context; it cannot filter by state, which changes with every commit. Filters on
the current state therefore read each candidate task (through the ledger, like every other read)
and may examine more candidates than a page holds: a call reads at most ``scan_limit`` of them
and says where the next call continues.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from a2a_core.core.store import IndexedTask, TaskStore
from a2a_core.domain import Task

# Tasks read at once for one page (each read is a store query running in a thread).
PARALLEL_READS = 8
# Candidates read per round while counting: large enough to keep the reads parallel.
_COUNT_CHUNK = 100

Read = Callable[[str], Awaitable[Task | None]]  # a task by id; None if it is gone


@dataclass(frozen=True)
class TaskList:
    tasks: tuple[Task, ...]
    # Where the next page starts (a store position); None on the last page.
    next_position: str | None
    # With a filter: the candidates this call found matching (all of them when it counted and
    # ``complete``). Without one: len(tasks).
    matched: int
    # The call examined every candidate from its start to the end of the index.
    complete: bool


async def read_all(read: Read, entries: Sequence[IndexedTask]) -> list[Task | None]:
    """Read ``entries``' tasks concurrently (at most `PARALLEL_READS` at once), in order."""
    slots = asyncio.Semaphore(PARALLEL_READS)

    async def one(entry: IndexedTask) -> Task | None:
        async with slots:
            return await read(entry.task_id)

    return list(await asyncio.gather(*map(one, entries)))


async def index_page(
    store: TaskStore, read: Read, owner: str, *, context_id: str | None, after: str | None, limit: int
) -> TaskList:
    """The next ``limit`` tasks of the index; tasks that vanished since it listed them are skipped."""
    index = await store.list_owned(owner, context_id=context_id, after=after, limit=limit)
    tasks = tuple(task for task in await read_all(read, index.tasks) if task is not None)
    return TaskList(tasks, index.next_position, len(tasks), index.next_position is None)


async def filtered_page(
    store: TaskStore,
    read: Read,
    owner: str,
    *,
    context_id: str | None,
    after: str | None,
    limit: int,
    keep: Callable[[Task], bool],
    scan_limit: int,
    count: bool = False,
) -> TaskList:
    """Up to ``limit`` tasks that ``keep`` accepts, from at most ``scan_limit`` candidates.

    The page ends where the next match would start once one more match is seen (so the last page
    says so), or where the scan stopped. ``count`` keeps scanning past a full page, to the end of
    the index or ``scan_limit``, so that ``matched`` counts every match.
    """
    tasks: list[Task] = []
    matched = scanned = 0
    budget = scan_limit
    position, page_end, next_position = after, after, None
    while budget > 0:
        # A round that finds fewer candidates than it asked for (a context filter skipping index
        # entries) still spends what it asked for, so the rounds are bounded too.
        chunk = min(_next_chunk(limit + 1 - matched, matched, scanned, count), budget)
        budget -= chunk
        index = await store.list_owned(owner, context_id=context_id, after=position, limit=chunk)
        for entry, task in zip(index.tasks, await read_all(read, index.tasks), strict=True):
            scanned += 1
            if task is None or not keep(task):
                continue
            matched += 1
            if len(tasks) < limit:
                tasks.append(task)
                page_end = entry.position
            elif next_position is None:
                next_position = page_end  # a match follows the full page
        position = index.next_position
        if position is None:
            return TaskList(tuple(tasks), next_position, matched, complete=True)
        if next_position is not None and not count:
            break
    return TaskList(tuple(tasks), next_position or position, matched, complete=False)


def _next_chunk(needed: int, matched: int, scanned: int, count: bool) -> int:
    """How many candidates to read next: when counting, many at once; otherwise the matches the
    page still needs (one more than it holds, to know whether a next page exists), scaled by how
    often candidates have matched so far."""
    if count or needed <= 0:
        return _COUNT_CHUNK
    if matched == 0:
        return min(max(needed, 2 * scanned), _COUNT_CHUNK)
    return max(1, min(-(-needed * scanned // matched), _COUNT_CHUNK))
