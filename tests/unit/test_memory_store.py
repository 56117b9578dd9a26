"""What the in-memory task store guarantees beyond the shared contract (tests/contract)."""

from __future__ import annotations

import time

import pytest

from a2a_core.core.errors import ConcurrentUpdateError
from a2a_core.core.tasklog.records import Commit
from a2a_core.core.tasklog.store import InMemoryTaskStore, LogEntry
from a2a_core.core.tasklog.waking_store import WakingTaskStore
from a2a_core.domain import TaskState
from contract.test_task_store import commit

pytestmark = pytest.mark.anyio


async def test_a_skipped_sequence_number_is_refused() -> None:
    store = InMemoryTaskStore()
    first = commit("t1", 1, TaskState.submitted)
    await store.append(first)
    with pytest.raises(ConcurrentUpdateError):
        await store.append(commit("t1", first.next_seq + 5, TaskState.canceled))
    assert await store.read("t1") == [first]


async def test_appending_to_an_unknown_task_is_refused() -> None:
    store = InMemoryTaskStore()
    with pytest.raises(ConcurrentUpdateError):
        await store.append(commit("ghost", 3, TaskState.working))
    assert await store.head("ghost") is None


async def test_wait_for_append_returns_at_once_when_the_log_is_already_ahead() -> None:
    store = InMemoryTaskStore()
    await store.append(commit("t1", 1, TaskState.submitted))
    started = time.monotonic()
    await store.wait_for_append("t1", after_seq=0, timeout=5.0)
    assert time.monotonic() - started < 1.0


async def test_the_waking_wrapper_knows_its_own_appends_without_a_read() -> None:
    """A follower that starts waiting just after an append in this process returns at once."""
    store = WakingTaskStore(InMemoryTaskStore())
    await store.append(commit("t1", 1, TaskState.submitted))
    started = time.monotonic()
    await store.wait_for_append("t1", after_seq=1, timeout=5.0)
    assert time.monotonic() - started < 1.0


class _CountingReads(InMemoryTaskStore):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def head(self, task_id: str) -> Commit | None:
        self.reads += 1
        return await super().head(task_id)

    async def latest(self, task_id: str, *, limit: int, through: int | None = None) -> list[LogEntry]:
        self.reads += 1
        return await super().latest(task_id, limit=limit, through=through)


async def test_the_waking_wrapper_reads_the_tasks_it_wrote_from_memory_and_the_others_from_the_store() -> (
    None
):
    """dev's store: it alone writes its table, so a task it wrote from its first commit on is read
    back without a call to the emulator; a task from before it started is read from the store."""
    inner = _CountingReads()
    older = commit("older", 1, TaskState.submitted)
    await inner.append(older)  # written before this process
    store = WakingTaskStore(inner)
    first = commit("t1", 1, TaskState.submitted)
    second = commit("t1", first.next_seq, TaskState.working)
    await store.append(first)
    await store.append(second)
    await store.attach_snapshot(second, b"{}")

    assert await store.head("t1") == second
    assert [entry.commit for entry in await store.latest("t1", limit=5)] == [second, first]
    assert (await store.latest("t1", limit=1))[0].snapshot == b"{}"
    assert await store.read("t1", after_seq=first.last_seq) == [second]
    assert inner.reads == 0
    assert await store.head("older") == older
    assert inner.reads == 1


async def test_the_waking_wrapper_keeps_a_bounded_number_of_logs() -> None:
    inner = _CountingReads()
    store = WakingTaskStore(inner, kept_tasks=2)
    for task_id in ("t1", "t2", "t3"):
        await store.append(commit(task_id, 1, TaskState.submitted))
    await store.head("t3")
    await store.head("t2")
    assert inner.reads == 0
    assert (await store.head("t1")) is not None  # pushed out: read from the store
    assert inner.reads == 1
