"""What the in-memory task store guarantees beyond the shared contract (tests/contract)."""

from __future__ import annotations

import time

import pytest

from a2a_core.core.errors import ConcurrentUpdateError
from a2a_core.core.notifying_store import NotifyingTaskStore
from a2a_core.core.store import InMemoryTaskStore
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


async def test_the_notifying_wrapper_knows_its_own_appends_without_a_read() -> None:
    """A follower that starts waiting just after an append in this process returns at once."""
    store = NotifyingTaskStore(InMemoryTaskStore())
    await store.append(commit("t1", 1, TaskState.submitted))
    started = time.monotonic()
    await store.wait_for_append("t1", after_seq=1, timeout=5.0)
    assert time.monotonic() - started < 1.0
