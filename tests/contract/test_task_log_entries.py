"""The log by position, and the snapshots stored beside commits: the same on every TaskStore.

(The ``dynamodb+s3`` store moves every body and every snapshot to S3.)
"""

from __future__ import annotations

import asyncio

import pytest

from a2a_core.core.errors import ConcurrentUpdateError
from a2a_core.core.tasklog.store import TaskStore
from a2a_core.domain import TaskState
from contract.test_task_store import commit

pytestmark = pytest.mark.anyio

LAST = 9_999_999_999


async def five_commits(store: TaskStore, task_id: str = "t1") -> None:
    """Commits starting at 1 (seqs 1-2), 3, 4 (4-5), 6 and 7, snapshots with the 2nd and 4th."""
    await store.append(commit(task_id, 1, TaskState.submitted))
    await store.append(commit(task_id, 3, TaskState.working), b'{"snapshot": 3}')
    await store.append(commit(task_id, 4, TaskState.working, TaskState.input_required))
    await store.append(commit(task_id, 6, TaskState.working), b'{"snapshot": 6}')
    await store.append(commit(task_id, 7, TaskState.completed))


async def test_latest_gives_the_newest_entries_first_with_their_snapshots(store: TaskStore) -> None:
    await five_commits(store)
    entries = await store.latest("t1", limit=3)
    assert [entry.commit.first_seq for entry in entries] == [7, 6, 4]
    assert [entry.snapshot for entry in entries] == [None, b'{"snapshot": 6}', None]
    assert [entry.commit.first_seq for entry in await store.latest("t1", limit=10)] == [7, 6, 4, 3, 1]
    assert await store.latest("nope", limit=3) == []


async def test_latest_through_a_sequence_number_stops_at_the_commit_starting_there(store: TaskStore) -> None:
    await five_commits(store)
    assert [e.commit.first_seq for e in await store.latest("t1", limit=2, through=4)] == [4, 3]
    assert [e.commit.first_seq for e in await store.latest("t1", limit=2, through=5)] == [4, 3]
    assert [e.commit.first_seq for e in await store.latest("t1", limit=9, through=1)] == [1]


async def test_entries_are_the_commits_starting_in_a_range_in_order(store: TaskStore) -> None:
    await five_commits(store)
    entries = await store.entries("t1", 3, 6)
    assert [entry.commit.first_seq for entry in entries] == [3, 4, 6]
    assert [entry.snapshot for entry in entries] == [b'{"snapshot": 3}', None, b'{"snapshot": 6}']
    bare = await store.entries("t1", 1, LAST, snapshots=False)
    assert [entry.commit for entry in bare] == await store.read("t1")
    assert all(entry.snapshot is None for entry in bare)
    assert await store.entries("t1", 8, LAST) == []
    assert await store.entries("t1", 5, 5) == []  # seq 5 is inside the commit starting at 4


async def test_commits_at_gives_those_that_exist_in_order(store: TaskStore) -> None:
    await five_commits(store)
    found = await store.commits_at("t1", [7, 3, 5, 3, 1])
    assert [c.first_seq for c in found] == [1, 3, 7]
    assert found == [c for c in await store.read("t1") if c.first_seq in (1, 3, 7)]
    assert await store.commits_at("nope", [1]) == []
    assert await store.commits_at("t1", []) == []


async def test_a_snapshot_attached_later_replaces_the_one_stored(store: TaskStore) -> None:
    await five_commits(store)
    (fourth,) = await store.entries("t1", 4, 4)
    assert await store.attach_snapshot(fourth.commit, b'{"snapshot": "late"}')
    (third,) = await store.entries("t1", 3, 3)
    assert await store.attach_snapshot(third.commit, b'{"snapshot": "replaced"}')
    assert await store.attach_snapshot(third.commit, b'{"snapshot": "replaced"}')  # idempotent

    entries = await store.entries("t1", 1, LAST)
    assert [e.snapshot for e in entries] == [
        None,
        b'{"snapshot": "replaced"}',
        b'{"snapshot": "late"}',
        b'{"snapshot": 6}',
        None,
    ]
    assert [e.commit for e in entries] == await store.read("t1")  # the commits are untouched


async def test_a_snapshot_is_never_attached_to_a_commit_that_is_not_there(store: TaskStore) -> None:
    await five_commits(store)
    assert not await store.attach_snapshot(commit("t1", 8, TaskState.completed), b"{}")
    assert not await store.attach_snapshot(commit("nope", 1, TaskState.submitted), b"{}")
    assert [e.commit.first_seq for e in await store.latest("t1", limit=9)] == [7, 6, 4, 3, 1]
    assert await store.latest("nope", limit=1) == []


async def test_the_loser_of_a_race_stores_neither_its_commit_nor_its_snapshot(store: TaskStore) -> None:
    await store.append(commit("t1", 1, TaskState.submitted))

    async def attempt(state: TaskState, snapshot: bytes) -> bytes | None:
        try:
            await store.append(commit("t1", 3, state), snapshot)
        except ConcurrentUpdateError:
            return None
        return snapshot

    results = await asyncio.gather(
        *(attempt(state, f'{{"by": "{state.value}-{i}"}}'.encode()) for i in range(4) for state in TaskState)
    )
    (won,) = [r for r in results if r is not None]
    (entry,) = await store.entries("t1", 3, 3)
    assert entry.snapshot == won


async def test_a_large_snapshot_is_stored_whole(store: TaskStore) -> None:
    """Larger than one DynamoDB item can hold beside its commit: it goes where large bodies go."""
    snapshot = b'{"big": "' + b"x" * 350_000 + b'"}'
    await store.append(commit("t1", 1, TaskState.submitted))
    await store.append(commit("t1", 3, TaskState.working), snapshot)
    (third,) = await store.entries("t1", 3, 3)
    assert third.snapshot == snapshot
    assert await store.attach_snapshot(third.commit, snapshot + b" ")
    (latest, _) = await store.latest("t1", limit=2)
    assert latest.snapshot == snapshot + b" "
