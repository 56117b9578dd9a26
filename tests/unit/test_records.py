"""Stored commits: when their task started, carried across commits; newer fields tolerated."""

from __future__ import annotations

import pytest

from a2a_core.core.tasklog.changes import Change, Decide, status
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.records import Commit
from a2a_core.core.tasklog.store import InMemoryTaskStore
from a2a_core.domain import TaskState
from support import user_message

pytestmark = pytest.mark.anyio


def decide_to(state: TaskState) -> Decide:
    return lambda _head: Change([status(state)])


async def test_every_commit_knows_when_its_task_was_created() -> None:
    now = [1_000.0]
    ledger = TaskLedger(InMemoryTaskStore(), clock=lambda: now[0])
    await ledger.create(task_id="t", context_id="c", message=user_message(), run_id="r")
    for state in (TaskState.working, TaskState.input_required):
        now[0] += 3600
        await ledger.write("t", decide_to(state))
    commits = await ledger.store.read("t")
    assert [commit.created_at for commit in commits] == [1_000.0, 4_600.0, 8_200.0]
    assert [commit.started_at for commit in commits] == [1_000.0] * 3
    assert commits[0].task_created_at is None  # the first commit is its own creation time


async def test_a_commit_from_a_newer_version_is_read_without_its_new_fields() -> None:
    ledger = TaskLedger(InMemoryTaskStore())
    await ledger.create(task_id="t", context_id="c", message=user_message(), run_id="r")
    stored = (await ledger.head("t")).model_dump(mode="json")
    newer = Commit.model_validate({**stored, "fieldFromTheFuture": {"any": "thing"}})
    assert newer == Commit.model_validate(stored)
