"""`TaskStore.renew_lease`: a heartbeat pushes a stored commit's lease back in place, on every
adapter: no new commit, never earlier, only the very commit named (its write id)."""

from __future__ import annotations

import pytest

from a2a_core.core.tasklog.records import Commit, RunLease
from a2a_core.core.tasklog.store import TaskStore
from a2a_core.domain import TaskState
from contract.test_task_store import commit

pytestmark = pytest.mark.anyio


async def _leased(store: TaskStore, lease_until: float) -> Commit:
    first = commit("t1", 1, TaskState.submitted).model_copy(update={"write_id": "w1"})
    await store.append(first)
    run = RunLease(run_id="m1", lease_until=lease_until, attempt=1, turn=1)
    claimed = commit("t1", first.next_seq, TaskState.working).model_copy(
        update={"write_id": "w2", "run": run}
    )
    await store.append(claimed)
    return claimed


def _until(head: Commit | None) -> float | None:
    assert head is not None
    assert head.run is not None
    return head.run.lease_until


async def test_a_renewed_lease_is_read_from_the_head_and_the_log_with_no_new_commit(store: TaskStore) -> None:
    claimed = await _leased(store, 100.0)
    assert await store.renew_lease(claimed, 160.0)
    assert _until(await store.head("t1")) == 160.0
    log = await store.read("t1")
    assert [c.first_seq for c in log] == [1, claimed.first_seq]
    assert _until(log[-1]) == 160.0
    (entry,) = await store.latest("t1", limit=1)
    assert _until(entry.commit) == 160.0
    # Everything else about the commit is as it was stored.
    assert log[-1].model_copy(update={"run": claimed.run}) == claimed


async def test_a_lease_never_moves_earlier(store: TaskStore) -> None:
    claimed = await _leased(store, 100.0)
    assert await store.renew_lease(claimed, 160.0)
    await store.renew_lease(claimed, 130.0)  # a late heartbeat
    assert _until(await store.head("t1")) == 160.0


async def test_a_commit_not_stored_as_named_is_not_renewed(store: TaskStore) -> None:
    claimed = await _leased(store, 100.0)
    assert not await store.renew_lease(claimed.model_copy(update={"write_id": "another"}), 160.0)
    assert not await store.renew_lease(claimed.model_copy(update={"first_seq": 9}), 160.0)
    assert not await store.renew_lease(claimed.model_copy(update={"task_id": "t2"}), 160.0)
    assert _until(await store.head("t1")) == 100.0
