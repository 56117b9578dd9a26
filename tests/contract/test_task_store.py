from __future__ import annotations

import asyncio
import time

import pytest

from a2a_core.core.errors import ConcurrentUpdateError
from a2a_core.core.records import ANONYMOUS_OWNER, Commit, MessageAdded, StatusChanged
from a2a_core.core.store import InvalidPositionError, OwnedTasks, TaskStore
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


async def _list_all(store: TaskStore, owner: str, *, limit: int, context_id: str | None = None) -> list[str]:
    """Every task id `list_owned` gives ``owner``, following positions page by page."""
    listed: list[str] = []
    after: str | None = None
    for _ in range(1000):
        page = await store.list_owned(owner, context_id=context_id, after=after, limit=limit)
        assert len(page.tasks) <= limit
        listed += [task.task_id for task in page.tasks]
        if page.next_position is None:
            return listed
        after = page.next_position
    raise AssertionError("the listing never ended")


async def test_list_owned_lists_each_of_the_owners_tasks_once_newest_created_first(store: TaskStore) -> None:
    now = time.time()
    await store.append(commit("t-mid", 1, TaskState.submitted, owner="alice", created_at=now - 20))
    await store.append(commit("t-old", 1, TaskState.submitted, owner="alice", created_at=now - 30))
    await store.append(commit("t-new", 1, TaskState.submitted, owner="alice", created_at=now - 10))
    await store.append(commit("t-bob", 1, TaskState.submitted, owner="bob", created_at=now - 15))
    # Later commits of a task neither add it again nor move it: the order is by creation.
    await store.append(commit("t-old", 3, TaskState.working, owner="alice", created_at=now))

    page = await store.list_owned("alice", limit=10)
    assert [task.task_id for task in page.tasks] == ["t-new", "t-mid", "t-old"]
    assert page.next_position is None
    assert page.tasks[0].context_id == "ctx"
    assert page.tasks[0].created_at == pytest.approx(now - 10, abs=1e-5)
    assert [task.task_id for task in (await store.list_owned("bob", limit=10)).tasks] == ["t-bob"]
    assert await store.list_owned("carol", limit=10) == OwnedTasks((), None)
    assert [await store.count_owned(owner) for owner in ("alice", "bob", "carol")] == [3, 1, 0]


async def test_list_owned_pages_continue_after_a_position(store: TaskStore) -> None:
    now = time.time()
    ids = [f"t{i:02d}" for i in range(7)]
    for i, task_id in enumerate(ids):
        await store.append(commit(task_id, 1, TaskState.submitted, owner="alice", created_at=now - 100 + i))
    newest_first = ids[::-1]

    first = await store.list_owned("alice", limit=3)
    assert [task.task_id for task in first.tasks] == newest_first[:3]
    assert first.next_position is not None
    second = await store.list_owned("alice", after=first.next_position, limit=3)
    assert [task.task_id for task in second.tasks] == newest_first[3:6]
    # Each task's own position resumes right after it, mid-page too.
    resumed = await store.list_owned("alice", after=first.tasks[0].position, limit=2)
    assert [task.task_id for task in resumed.tasks] == newest_first[1:3]
    for limit in (1, 2, 3, 7, 50):
        assert await _list_all(store, "alice", limit=limit) == newest_first


async def test_list_owned_filters_by_context_across_pages(store: TaskStore) -> None:
    now = time.time()
    for i in range(9):
        context = "c1" if i % 3 == 0 else "c2"
        await store.append(
            commit(
                f"t{i}", 1, TaskState.submitted, owner="alice", context_id=context, created_at=now - 50 + i
            )
        )
    await store.append(commit("t-bob", 1, TaskState.submitted, owner="bob", context_id="c1", created_at=now))
    assert await _list_all(store, "alice", context_id="c1", limit=2) == ["t6", "t3", "t0"]
    assert await _list_all(store, "alice", context_id="c2", limit=4) == ["t8", "t7", "t5", "t4", "t2", "t1"]
    assert await _list_all(store, "alice", context_id="c3", limit=4) == []
    assert await store.count_owned("alice", context_id="c1") == 3
    assert await store.count_owned("alice", context_id="c2") == 6
    assert await store.count_owned("bob", context_id="c2") == 0


async def test_tasks_created_at_the_same_instant_are_each_listed_once(store: TaskStore) -> None:
    now = time.time()
    ids = [f"t{i}" for i in range(6)]
    for task_id in ids:
        await store.append(commit(task_id, 1, TaskState.submitted, owner="alice", created_at=now))
    listed = await _list_all(store, "alice", limit=1)
    assert sorted(listed) == ids
    assert await _list_all(store, "alice", limit=4) == listed  # the same order on every call


async def test_a_task_without_an_owner_is_listed_as_the_anonymous_callers(store: TaskStore) -> None:
    await store.append(commit("t1", 1, TaskState.submitted))
    assert [task.task_id for task in (await store.list_owned(ANONYMOUS_OWNER, limit=5)).tasks] == ["t1"]
    assert await store.count_owned(ANONYMOUS_OWNER) == 1


@pytest.mark.parametrize(
    "position", ["", "nope", "[]", '["x"]', "[1, 2]", '{"1": 0, "t1": 0}', "[null, null]", '["1", "t1", 3]']
)
async def test_a_position_the_store_did_not_produce_is_refused(store: TaskStore, position: str) -> None:
    await store.append(commit("t1", 1, TaskState.submitted, owner="alice"))
    with pytest.raises(InvalidPositionError):
        await store.list_owned("alice", after=position, limit=5)


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
