from __future__ import annotations

import asyncio
import time

import pytest

from a2a_core.core.errors import ConcurrentUpdateError
from a2a_core.core.tasklog.records import ANONYMOUS_OWNER, Commit, MessageAdded, StatusChanged
from a2a_core.core.tasklog.store import TaskStore
from a2a_core.domain import Message, Role, TaskState, TaskStatus, TextPart

pytestmark = pytest.mark.anyio


def commit(
    task_id: str,
    first_seq: int,
    *states: TaskState,
    context_id: str = "ctx",
    created_at: float | None = None,
    owner: str | None = None,
) -> Commit:
    events: list[MessageAdded | StatusChanged] = [
        StatusChanged(seq=first_seq + i, status=TaskStatus(state=state)) for i, state in enumerate(states)
    ]
    if first_seq == 1:
        message = Message(role=Role.user, parts=[TextPart(text="hi")], message_id="m1")
        events = [
            MessageAdded(seq=1, message=message),
            *(e.model_copy(update={"seq": e.seq + 1}) for e in events),
        ]
    return Commit(
        task_id=task_id,
        context_id=context_id,
        first_seq=first_seq,
        events=tuple(events),
        state=states[-1],
        created_at=time.time() if created_at is None else created_at,
        owner=owner,
    )


async def test_unknown_task_has_no_head_and_no_log(store: TaskStore) -> None:
    assert await store.head("nope") is None
    assert await store.read("nope") == []


async def test_append_then_read_back_in_order(store: TaskStore) -> None:
    first = commit("t1", 1, TaskState.submitted)
    await store.append(first)
    second = commit("t1", first.next_seq, TaskState.working, TaskState.completed)
    await store.append(second)
    assert await store.head("t1") == second
    assert await store.read("t1") == [first, second]


async def test_creating_an_existing_task_is_refused(store: TaskStore) -> None:
    await store.append(commit("t1", 1, TaskState.submitted))
    with pytest.raises(ConcurrentUpdateError):
        await store.append(commit("t1", 1, TaskState.submitted))
    assert len(await store.read("t1")) == 1


async def test_a_taken_sequence_number_is_refused(store: TaskStore) -> None:
    first = commit("t1", 1, TaskState.submitted)
    await store.append(first)
    await store.append(commit("t1", first.next_seq, TaskState.working))
    with pytest.raises(ConcurrentUpdateError):
        await store.append(commit("t1", first.next_seq, TaskState.canceled))
    head = await store.head("t1")
    assert head is not None
    assert head.state == TaskState.working
    assert [c.state for c in await store.read("t1")] == [TaskState.submitted, TaskState.working]


async def test_appending_a_commit_again_finds_it_stored_and_changes_nothing(store: TaskStore) -> None:
    """What a writer does when it cannot know whether its append landed (its answer was lost)."""
    first = commit("t1", 1, TaskState.submitted).model_copy(update={"write_id": "w1"})
    await store.append(first)
    await store.append(first)
    second = commit("t1", first.next_seq, TaskState.working).model_copy(update={"write_id": "w2"})
    await store.append(second)
    await store.append(second)
    assert await store.read("t1") == [first, second]
    # Another commit at a taken sequence number is still refused, and so is one without an id.
    rival = commit("t1", first.next_seq, TaskState.canceled).model_copy(update={"write_id": "w3"})
    for taken in (rival, second.model_copy(update={"write_id": None})):
        with pytest.raises(ConcurrentUpdateError):
            await store.append(taken)
    assert await store.read("t1") == [first, second]


async def test_tasks_are_kept_apart(store: TaskStore) -> None:
    await store.append(commit("t1", 1, TaskState.submitted))
    await store.append(commit("t2", 1, TaskState.submitted, TaskState.working))
    await store.append(commit("t2", 4, TaskState.completed))
    assert [c.first_seq for c in await store.read("t1")] == [1]
    assert [c.first_seq for c in await store.read("t2")] == [1, 4]
    head = await store.head("t1")
    assert head is not None
    assert head.task_id == "t1"


async def test_read_after_seq_returns_commits_holding_later_events(store: TaskStore) -> None:
    first = commit("t1", 1, TaskState.submitted)  # seqs 1-2
    second = commit("t1", 3, TaskState.working, TaskState.input_required)  # seqs 3-4
    third = commit("t1", 5, TaskState.working)  # seq 5
    for c in (first, second, third):
        await store.append(c)
    assert await store.read("t1", after_seq=2) == [second, third]
    assert await store.read("t1", after_seq=3) == [second, third]  # seq 4 lives in the second
    assert await store.read("t1", after_seq=5) == []


async def test_read_after_seq_inside_the_first_commit_includes_it(store: TaskStore) -> None:
    first = commit("t1", 1, TaskState.submitted, TaskState.working)  # seqs 1-3
    second = commit("t1", 4, TaskState.completed)
    for c in (first, second):
        await store.append(c)
    assert await store.read("t1", after_seq=1) == [first, second]
    assert await store.read("t1", after_seq=3) == [second]


async def test_returned_commits_are_copies(store: TaskStore) -> None:
    first = commit("t1", 1, TaskState.submitted)
    await store.append(first)
    (read,) = await store.read("t1")
    assert read == first
    assert read is not first


async def test_concurrent_appends_at_one_seq_have_exactly_one_winner(store: TaskStore) -> None:
    first = commit("t1", 1, TaskState.submitted)
    await store.append(first)
    contenders = [
        commit("t1", first.next_seq, state) for state in (TaskState.canceled, TaskState.working)
    ] * 5

    async def attempt(c: Commit) -> bool:
        try:
            await store.append(c)
        except ConcurrentUpdateError:
            return False
        return True

    results = await asyncio.gather(*(attempt(c) for c in contenders))
    assert results.count(True) == 1
    assert len(await store.read("t1")) == 2


async def test_wait_for_append_returns_by_the_timeout(store: TaskStore) -> None:
    await store.append(commit("t1", 1, TaskState.submitted))
    started = time.monotonic()
    await store.wait_for_append("t1", after_seq=2, timeout=0.05)
    assert time.monotonic() - started < 2.0


async def test_owned_says_whose_task_it_is_and_the_same_for_another_s_and_an_unknown_one(
    store: TaskStore,
) -> None:
    long_owner = "jwt:https://issuer/|" + "x" * 2000  # indexed by its digest on DynamoDB
    await store.append(commit("mine", 1, TaskState.submitted, owner="alice"))
    await store.append(commit("long", 1, TaskState.submitted, owner=long_owner))
    await store.append(commit("nobody", 1, TaskState.submitted))
    await store.append(commit("mine", 3, TaskState.working, owner="alice"))
    assert await store.owned("mine", "alice") is True
    assert await store.owned("mine", "mallory") is False
    assert await store.owned("unknown", "alice") is False
    assert await store.owned("long", long_owner) is True
    assert await store.owned("long", long_owner[:-1] + "y") is False
    assert await store.owned("nobody", ANONYMOUS_OWNER) is True
