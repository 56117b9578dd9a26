"""`TaskStore.list_owned`, the listing index behind ListTasks, on every adapter: which tasks it
gives for a query, in what order, page by page, and how an entry moves with its task's class."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from a2a_core.core.tasklog.list_keys import ACTIVE, next_listing
from a2a_core.core.tasklog.records import ANONYMOUS_OWNER, Commit, MessageAdded, StatusChanged
from a2a_core.core.tasklog.store import IndexedTask, IndexQuery, InvalidPositionError, OwnedTasks, TaskStore
from a2a_core.domain import Message, Role, TaskState, TaskStatus, TextPart

pytestmark = pytest.mark.anyio

NOW = time.time()


def stamp(seconds_ago: float) -> str:
    return datetime.fromtimestamp(NOW - seconds_ago, UTC).isoformat().replace("+00:00", "Z")


class Task:
    """A task appended commit by commit, as the ledger appends them (each commit's listing
    decided on its head, the old entry unlisted once a new commit carries it)."""

    def __init__(
        self, store: TaskStore, task_id: str, *, owner: str | None = "alice", context_id: str = "ctx"
    ):
        self.store, self.task_id, self.owner, self.context_id = store, task_id, owner, context_id
        self.head: Commit | None = None

    async def create(self, age: float) -> Task:
        """Created (submitted) ``age`` seconds ago."""
        message = Message(role=Role.user, parts=[TextPart(text="hi")], message_id=f"m-{self.task_id}")
        status = TaskStatus(state=TaskState.submitted, timestamp=stamp(age))
        first = Commit(
            task_id=self.task_id,
            context_id=self.context_id,
            first_seq=1,
            events=(MessageAdded(seq=1, message=message), StatusChanged(seq=2, status=status)),
            state=TaskState.submitted,
            created_at=NOW - age,
            owner=self.owner,
            listing=1,
        )
        await self.store.append(first)
        self.head = first
        return self

    async def move(self, state: TaskState, age: float) -> Task:
        """A status change to ``state``, ``age`` seconds ago."""
        assert self.head is not None
        seq = self.head.next_seq
        status = TaskStatus(state=state, timestamp=stamp(age))
        commit = self.head.model_copy(
            update={
                "first_seq": seq,
                "events": (StatusChanged(seq=seq, status=status),),
                "state": state,
                "created_at": NOW - age,
                "listing": next_listing(self.head, state, seq, status_changed=True),
            }
        )
        await self.store.append(commit)
        if commit.listing != self.head.listing and self.head.listing is not None:
            await self.store.unlist(self.task_id, self.head.listing)
        self.head = commit
        return self


async def make(store: TaskStore, task_id: str, age: float, *states: TaskState, **kwargs: str | None) -> Task:
    """A task created ``age`` seconds ago and moved through ``states``, a second apart."""
    task = await Task(store, task_id, **kwargs).create(age)  # type: ignore[arg-type]
    for offset, state in enumerate(states, 1):
        await task.move(state, age - offset)
    return task


async def list_all(store: TaskStore, owner: str, query: IndexQuery, *, limit: int) -> list[IndexedTask]:
    """Every entry `list_owned` gives ``owner`` for ``query``, following positions page by page."""
    listed: list[IndexedTask] = []
    after: str | None = None
    for _ in range(1000):
        page = await store.list_owned(owner, query, after=after, limit=limit)
        assert len(page.tasks) <= limit
        listed += page.tasks
        if page.next_position is None:
            return listed
        after = page.next_position
    raise AssertionError("the listing never ended")


def ids(entries: list[IndexedTask]) -> list[str]:
    return [entry.task_id for entry in entries]


async def seed_mix(store: TaskStore) -> None:
    """Alice's tasks: two in progress, three ended (by status time: done-new, asking, done-old),
    one of Bob's."""
    await make(store, "done-old", 90, TaskState.working, TaskState.completed)  # completed 88 s ago
    await make(store, "asking", 80, TaskState.working, TaskState.input_required)  # 78 s ago
    await make(store, "running", 70, TaskState.working)  # its turn began 70 s ago
    await make(store, "done-new", 60, TaskState.working, TaskState.completed)  # 58 s ago
    await make(store, "queued", 50)  # submitted
    await make(store, "bob's", 40, TaskState.working, TaskState.completed, owner="bob")


async def test_an_owners_tasks_in_progress_come_first_then_by_status_time(store: TaskStore) -> None:
    await seed_mix(store)
    page = await store.list_owned("alice", IndexQuery(), limit=10)
    assert ids(list(page.tasks)) == ["queued", "running", "done-new", "asking", "done-old"]
    assert page.next_position is None
    assert ids(list((await store.list_owned("bob", IndexQuery(), limit=10)).tasks)) == ["bob's"]
    assert await store.list_owned("carol", IndexQuery(), limit=10) == OwnedTasks((), None)


async def test_each_entry_names_the_commit_that_carries_it(store: TaskStore) -> None:
    await seed_mix(store)
    entries = {entry.task_id: entry.seq for entry in await list_all(store, "alice", IndexQuery(), limit=10)}
    # The worker's claim (working, seq 3) moves nothing: "running" is still listed by its first
    # commit; an ended task by the commit that ended it.
    assert entries == {"queued": 1, "running": 1, "done-new": 4, "asking": 4, "done-old": 4}


async def test_a_class_filter_gives_that_classs_tasks_and_in_progress_means_submitted_or_working(
    store: TaskStore,
) -> None:
    await seed_mix(store)
    assert ids(await list_all(store, "alice", IndexQuery(listed="completed"), limit=1)) == [
        "done-new",
        "done-old",
    ]
    assert ids(await list_all(store, "alice", IndexQuery(listed="input-required"), limit=1)) == ["asking"]
    assert ids(await list_all(store, "alice", IndexQuery(listed=ACTIVE), limit=1)) == ["queued", "running"]
    assert await list_all(store, "alice", IndexQuery(listed="failed"), limit=3) == []


async def test_a_time_filter_gives_the_tasks_in_progress_and_those_whose_status_changed_since(
    store: TaskStore,
) -> None:
    await seed_mix(store)
    since = NOW - 80  # after done-old completed (88 s ago), before asking asked (78 s ago)
    listed = await list_all(store, "alice", IndexQuery(since=since), limit=2)
    assert ids(listed) == ["queued", "running", "done-new", "asking"]
    both = IndexQuery(since=NOW - 70, listed="completed")
    assert ids(await list_all(store, "alice", both, limit=2)) == ["done-new"]


async def test_an_entry_moves_when_its_tasks_class_changes_and_only_then(store: TaskStore) -> None:
    task = await make(store, "t1", 100, TaskState.working)
    await make(store, "t2", 90, TaskState.working, TaskState.completed)
    assert ids(await list_all(store, "alice", IndexQuery(listed=ACTIVE), limit=5)) == ["t1"]
    await task.move(TaskState.working, 80)  # progress: same class, same place
    assert [(e.task_id, e.seq) for e in await list_all(store, "alice", IndexQuery(), limit=5)] == [
        ("t1", 1),
        ("t2", 4),
    ]
    await task.move(TaskState.input_required, 10)
    assert await list_all(store, "alice", IndexQuery(listed=ACTIVE), limit=5) == []
    assert [(e.task_id, e.seq) for e in await list_all(store, "alice", IndexQuery(), limit=5)] == [
        ("t1", 5),
        ("t2", 4),
    ]
    await task.move(TaskState.working, 5)  # the client answered: a turn in progress again
    assert [
        (e.task_id, e.seq) for e in await list_all(store, "alice", IndexQuery(listed=ACTIVE), limit=5)
    ] == [("t1", 6)]
    assert await list_all(store, "alice", IndexQuery(listed="input-required"), limit=5) == []


async def test_pages_continue_after_a_position(store: TaskStore) -> None:
    names = [f"t{i:02d}" for i in range(7)]
    for i, task_id in enumerate(names):
        await make(store, task_id, 100 - i, TaskState.working, TaskState.completed)
    newest_first = names[::-1]
    for query in (IndexQuery(), IndexQuery(listed="completed"), IndexQuery(context_id="ctx")):
        first = await store.list_owned("alice", query, limit=3)
        assert ids(list(first.tasks)) == newest_first[:3]
        assert first.next_position is not None
        second = await store.list_owned("alice", query, after=first.next_position, limit=3)
        assert ids(list(second.tasks)) == newest_first[3:6]
        # Each task's own position resumes right after it, mid-page too.
        resumed = await store.list_owned("alice", query, after=first.tasks[0].position, limit=2)
        assert ids(list(resumed.tasks)) == newest_first[1:3]
        for limit in (1, 2, 3, 7, 50):
            assert ids(await list_all(store, "alice", query, limit=limit)) == newest_first


async def test_a_context_lists_its_tasks_newest_created_first_across_pages(store: TaskStore) -> None:
    for i in range(9):
        context = "c1" if i % 3 == 0 else "c2"
        task = await make(store, f"t{i}", 50 - i, context_id=context)
        if i % 2:
            await task.move(TaskState.working, 5)  # later commits do not move a task in its context
    await make(store, "t-bob", 1, owner="bob", context_id="c1")
    c1 = await list_all(store, "alice", IndexQuery(context_id="c1"), limit=2)
    assert ids(c1) == ["t6", "t3", "t0"]
    assert {entry.seq for entry in c1} == {None}  # context entries never move
    assert ids(await list_all(store, "alice", IndexQuery(context_id="c2"), limit=4)) == [
        "t8",
        "t7",
        "t5",
        "t4",
        "t2",
        "t1",
    ]
    assert await list_all(store, "alice", IndexQuery(context_id="c3"), limit=4) == []
    assert ids(await list_all(store, "bob", IndexQuery(context_id="c1"), limit=4)) == ["t-bob"]


async def test_tasks_at_the_same_instant_are_each_listed_once_in_the_same_order(store: TaskStore) -> None:
    names = [f"t{i}" for i in range(6)]
    for task_id in names:
        await make(store, task_id, 10, TaskState.working, TaskState.completed)
        await make(store, f"{task_id}-queued", 10)
    for query in (IndexQuery(), IndexQuery(context_id="ctx")):
        listed = ids(await list_all(store, "alice", query, limit=1))
        assert sorted(listed) == sorted([*names, *(f"{n}-queued" for n in names)])
        assert ids(await list_all(store, "alice", query, limit=4)) == listed


async def test_a_task_without_an_owner_is_listed_as_the_anonymous_callers(store: TaskStore) -> None:
    await make(store, "t1", 10, owner=None)
    for query in (IndexQuery(), IndexQuery(context_id="ctx")):
        assert ids(list((await store.list_owned(ANONYMOUS_OWNER, query, limit=5)).tasks)) == ["t1"]


@pytest.mark.parametrize(
    "position",
    ["", "nope", "[]", '["x"]', "[1, 2]", '{"1": 0, "t1": 0}', "[null, null]", '["1", "t1", "x", 3]'],
)
@pytest.mark.parametrize("query", [IndexQuery(), IndexQuery(context_id="ctx")], ids=["listing", "context"])
async def test_a_position_the_store_did_not_produce_is_refused(
    store: TaskStore, position: str, query: IndexQuery
) -> None:
    await make(store, "t1", 10)
    with pytest.raises(InvalidPositionError):
        await store.list_owned("alice", query, after=position, limit=5)
