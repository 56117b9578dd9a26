"""TaskEngine.list_tasks (A2A 1.0 ListTasks) over the in-memory store.

tests/integration/aws/test_list_tasks_dynamodb.py runs the pagination and isolation tests on
DynamoDB (moto's server); the store's own contract is in tests/contract/test_task_store.py.
"""

from __future__ import annotations

import base64
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest

from a2a_core.core.config import EngineConfig
from a2a_core.core.engine import TaskEngine
from a2a_core.core.errors import InvalidParamsError
from a2a_core.core.listing.page_tokens import Cursor, PageTokens
from a2a_core.core.requests import ListTasksQuery
from a2a_core.core.tasklog.changes import Change, status
from a2a_core.core.tasklog.records import MessageAdded, StatusChanged
from a2a_core.core.tasklog.store import InMemoryTaskStore
from a2a_core.domain import Message, Role, TaskState, TaskStatus, TextPart
from clock import Clock
from list_support import (
    ALICE,
    BOB,
    SECRET,
    STATES,
    CountingStore,
    Seeded,
    always,
    ids,
    list_all,
    listing_order,
    make_engine,
    seed,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def engine(clock: Clock) -> TaskEngine:
    return make_engine(InMemoryTaskStore(), clock)


def newest_first(tasks: list[Seeded]) -> list[str]:
    return [task.task_id for task in reversed(tasks)]


async def test_a_caller_sees_only_its_own_tasks_in_progress_first_then_by_status_time(
    engine: TaskEngine, clock: Clock
) -> None:
    mine = [await seed(engine, clock, ALICE, state) for state in STATES]
    mine.append(await seed(engine, clock, ALICE, TaskState.completed, stamp="2026-01-01T00:00:00Z"))
    theirs = [await seed(engine, clock, BOB, TaskState.completed) for _ in range(3)]

    page = await engine.list_tasks(ListTasksQuery(), ALICE)
    assert [task.id for task in page.tasks] == listing_order(mine)
    assert (page.next_page_token, page.page_size, page.total_size) == ("", 50, len(mine))
    # Working, then submitted (newest turn first); then input-required and completed by status
    # time: the task completed in 2026 last.
    assert [task.status.state for task in page.tasks] == [
        TaskState.working,
        TaskState.submitted,
        TaskState.input_required,
        TaskState.completed,
        TaskState.completed,
    ]
    assert page.tasks[-1].id == mine[-1].task_id
    other = await engine.list_tasks(ListTasksQuery(), BOB)
    assert [task.id for task in other.tasks] == listing_order(theirs)
    nobody = await engine.list_tasks(ListTasksQuery(), replace(ALICE, principal="api_key:carol"))
    assert (nobody.tasks, nobody.next_page_token, nobody.total_size) == ((), "", 0)


async def test_a_token_works_only_for_the_caller_and_filters_it_was_issued_for(
    engine: TaskEngine, clock: Clock
) -> None:
    for _ in range(3):
        await seed(engine, clock, ALICE, TaskState.working, context_id="c1")
        await seed(engine, clock, BOB, TaskState.working, context_id="c1")
    query = ListTasksQuery(page_size=1, context_id="c1")
    token = (await engine.list_tasks(query, ALICE)).next_page_token
    assert token

    with pytest.raises(InvalidParamsError) as refused:
        await engine.list_tasks(replace(query, page_token=token), BOB)
    assert refused.value.data == {"field": "pageToken"}
    assert "pageToken" in refused.value.message
    for other_filters in (
        replace(query, context_id="c2"),
        replace(query, context_id=None),
        replace(query, state=TaskState.working),
        replace(query, status_timestamp_after=datetime(2020, 1, 1, tzinfo=UTC)),
        replace(query, tenant="t"),
    ):
        with pytest.raises(InvalidParamsError, match="pageToken"):
            await engine.list_tasks(replace(other_filters, page_token=token), ALICE)
    # The page size and the shape of each task may change from page to page.
    page = await engine.list_tasks(
        replace(query, page_token=token, page_size=5, history_length=0, include_artifacts=True), ALICE
    )
    assert len(page.tasks) == 2


def _flip_last_byte(token: str) -> str:
    # Flip a decoded bit: changing the last base64 character may change only its unused bits.
    raw = bytearray(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    raw[-1] ^= 1
    return base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")


@pytest.mark.parametrize(
    "tamper",
    [
        lambda token: _flip_last_byte(token),  # the tag
        lambda token: ("A" if token[0] != "A" else "B") + token[1:],  # the payload
        lambda token: token[:-4],
        lambda token: token + "AAAA",
        lambda token: token + "!",
        lambda token: "not a token",
        lambda token: "A",  # no base64 at all
        lambda token: "",
        lambda token: "A" * 5000,
        lambda token: base64.urlsafe_b64encode(b'["x",1,99999999999]' + bytes(16)).decode().rstrip("="),
    ],
)
async def test_a_tampered_or_made_up_token_is_refused_naming_page_token(
    engine: TaskEngine, clock: Clock, tamper: object
) -> None:
    for _ in range(3):
        await seed(engine, clock, ALICE, TaskState.working)
    token = (await engine.list_tasks(ListTasksQuery(page_size=1), ALICE)).next_page_token
    bad = tamper(token)  # type: ignore[operator]
    if bad == "":
        # An empty token is no token: the first page again.
        again = await engine.list_tasks(ListTasksQuery(page_size=1, page_token=bad), ALICE)
        assert (len(again.tasks), again.total_size) == (1, 2)
        return
    with pytest.raises(InvalidParamsError) as refused:
        await engine.list_tasks(ListTasksQuery(page_size=1, page_token=bad), ALICE)
    assert refused.value.data == {"field": "pageToken"}


async def test_a_token_of_another_server_secret_or_past_its_lifetime_is_refused(
    engine: TaskEngine, clock: Clock
) -> None:
    for _ in range(3):
        await seed(engine, clock, ALICE, TaskState.working)
    query = ListTasksQuery(page_size=1)
    token = (await engine.list_tasks(query, ALICE)).next_page_token
    elsewhere = TaskEngine(
        engine.ledger, engine.broker, page_tokens=PageTokens(b"another-secret-of-16+ bytes")
    )
    with pytest.raises(InvalidParamsError, match="pageToken"):
        await elsewhere.list_tasks(replace(query, page_token=token), ALICE)
    same_secret = TaskEngine(engine.ledger, engine.broker, page_tokens=PageTokens(SECRET, clock=clock))
    assert len((await same_secret.list_tasks(replace(query, page_token=token), ALICE)).tasks) == 1

    clock.now += 24 * 3600 + 1
    with pytest.raises(InvalidParamsError, match="expired"):
        await engine.list_tasks(replace(query, page_token=token), ALICE)


@pytest.mark.parametrize("size", [0, -1, 101, 10_000])
async def test_a_page_size_out_of_range_is_refused_naming_page_size(engine: TaskEngine, size: int) -> None:
    with pytest.raises(InvalidParamsError) as refused:
        await engine.list_tasks(ListTasksQuery(page_size=size), ALICE)
    assert refused.value.data["field"] == "pageSize"
    assert "pageSize" in refused.value.message


async def test_page_size_defaults_to_50_and_the_response_says_which_size_it_used(
    engine: TaskEngine, clock: Clock
) -> None:
    seeded = [await seed(engine, clock, ALICE, TaskState.submitted) for _ in range(120)]
    first = await engine.list_tasks(ListTasksQuery(), ALICE)
    assert (len(first.tasks), first.page_size) == (50, 50)
    largest = await engine.list_tasks(ListTasksQuery(page_size=100), ALICE)
    assert (len(largest.tasks), largest.page_size) == (100, 100)
    pages = await list_all(engine, ALICE, ListTasksQuery())
    assert [len(page.tasks) for page in pages] == [50, 50, 20]
    assert ids(pages) == newest_first(seeded)
    assert pages[-1].next_page_token == ""
    # A lower bound (the tasks listed so far, and one more) until the last page, which is exact.
    assert [page.total_size for page in pages] == [51, 101, 120]


@pytest.mark.parametrize("page_size", [1, 7, 50, 100])
@pytest.mark.parametrize(
    "filters",
    [
        {},
        {"context_id": "c1"},
        {"state": TaskState.completed},
        {"state": TaskState.working},
        {"state": TaskState.input_required, "context_id": "c2"},
        # At or after: the tasks stamped from March 15th on are in.
        {"status_timestamp_after": datetime(2030, 3, 15, tzinfo=UTC)},
        {"status_timestamp_after": datetime(2030, 3, 15, tzinfo=UTC), "state": TaskState.working},
        {"status_timestamp_after": datetime(2030, 3, 15, tzinfo=UTC), "context_id": "c2"},
    ],
    ids=[
        "none",
        "context",
        "state",
        "state in progress",
        "state+context",
        "time",
        "time+state",
        "time+context",
    ],
)
async def test_paging_through_250_tasks_returns_every_match_exactly_once_in_order(
    engine: TaskEngine, clock: Clock, page_size: int, filters: dict[str, object]
) -> None:
    seeded = await seed_250(engine, clock)
    matches = [task for task in seeded if _expected(task, filters)]
    # A context's tasks newest created first; any other listing in listing order.
    expected = newest_first(matches) if "context_id" in filters else listing_order(matches)
    pages = await list_all(engine, ALICE, ListTasksQuery(page_size=page_size, **filters))  # type: ignore[arg-type]
    assert ids(pages) == expected
    assert all(len(page.tasks) <= page_size for page in pages)
    assert (pages[-1].next_page_token, pages[-1].total_size) == ("", len(expected))
    listed = 0
    for page in pages[:-1]:
        listed += len(page.tasks)
        assert page.next_page_token
        assert page.total_size == listed + 1


async def seed_250(engine: TaskEngine, clock: Clock) -> list[Seeded]:
    """250 of Alice's tasks in two contexts and four states, their last status changes stamped
    in 2030 (from January 15th, twelve hours apart), among Bob's tasks in the same contexts and
    states."""
    seeded = []
    start = datetime(2030, 1, 15, tzinfo=UTC)
    for i in range(250):
        state, context = STATES[(i + i // 4) % 4], "c1" if i % 3 else "c2"
        stamp = (start + timedelta(hours=12 * i)).isoformat().replace("+00:00", "Z")
        seeded.append(await seed(engine, clock, ALICE, state, context_id=context, stamp=stamp))
        if i % 25 == 0:
            await seed(engine, clock, BOB, state, context_id=context, stamp=stamp)
    return seeded


def _expected(task: Seeded, filters: dict[str, object]) -> bool:
    if "context_id" in filters and task.context_id != filters["context_id"]:
        return False
    if "state" in filters and task.state != filters["state"]:
        return False
    since = filters.get("status_timestamp_after")
    if isinstance(since, datetime):
        # Submitted tasks keep the timestamp of their creation (now): years before 2030.
        return datetime.fromisoformat(task.stamp) >= since
    return True


async def test_history_is_trimmed_per_task_and_artifacts_are_left_out_unless_asked_for(clock: Clock) -> None:
    engine = make_engine(InMemoryTaskStore(), clock, EngineConfig(max_history_length=1))
    task = await seed(engine, clock, ALICE, TaskState.completed, artifact=True)
    reply = Message(role=Role.agent, parts=[TextPart(text="more?")], message_id="m2")
    await seed(engine, clock, ALICE, TaskState.working)
    waiting = await seed(engine, clock, ALICE, TaskState.working)
    await engine.ledger.write(waiting.task_id, lambda _: Change([status(TaskState.input_required, reply)]))

    default = await engine.list_tasks(ListTasksQuery(), ALICE)
    assert [len(t.history or []) for t in default.tasks] == [1, 1, 1]  # clamped to the cap
    (asking,) = [t for t in default.tasks if t.id == waiting.task_id]
    assert (asking.history or [])[0].message_id == "m2"
    assert all(t.artifacts is None for t in default.tasks)
    none = await engine.list_tasks(ListTasksQuery(history_length=0), ALICE)
    assert all(t.history == [] for t in none.tasks)
    full = await engine.list_tasks(ListTasksQuery(include_artifacts=True, history_length=500), ALICE)
    (completed,) = [t for t in full.tasks if t.id == task.task_id]
    assert [a.artifact_id for a in completed.artifacts or []] == ["a"]
    with pytest.raises(InvalidParamsError, match="historyLength"):
        await engine.list_tasks(ListTasksQuery(history_length=-1), ALICE)


RARE = datetime(2030, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    "query",
    [
        ListTasksQuery(page_size=2, state=TaskState.completed),
        ListTasksQuery(page_size=2, state=TaskState.failed),
        ListTasksQuery(page_size=2, status_timestamp_after=RARE),
        ListTasksQuery(page_size=2, context_id="rare"),
    ],
    ids=["state", "another state", "time", "context"],
)
async def test_a_rare_match_costs_one_index_read_a_page_and_one_read_per_task_listed(
    clock: Clock, query: ListTasksQuery
) -> None:
    # One task in forty matches: a page still reads the index once and reads only the tasks it
    # lists, however many others the caller has (the old design read every candidate).
    store = CountingStore()
    engine = make_engine(store, clock)
    # Tasks in progress are read by a time filter (their status may have changed since their
    # turn began): the others here have ended, before the time asked for.
    rare_state = query.state or TaskState.completed
    common = [
        state
        for state in (TaskState.completed, TaskState.failed, TaskState.input_required)
        if state != rare_state
    ]
    seeded = []
    for i in range(200):
        rare = i % 40 == 7
        seeded.append(
            await seed(
                engine,
                clock,
                ALICE,
                rare_state if rare else common[i % 2],
                context_id="rare" if rare else "ctx",
                stamp=RARE.isoformat() if rare else None,
            )
        )
    store.reads = store.index_reads = 0
    pages = await list_all(engine, ALICE, query)
    assert sorted(ids(pages)) == sorted(t.task_id for t in seeded if t.context_id == "rare")
    assert [len(page.tasks) for page in pages] == [2, 2, 1]
    assert (store.index_reads, store.reads) == (3, 5)


async def test_a_filter_on_submitted_or_working_reads_only_the_turns_in_progress(clock: Clock) -> None:
    # Submitted and working are indexed together (a worker's claim moves nothing): a filter on
    # either reads the tasks in progress, never those that ended.
    store = CountingStore()
    engine = make_engine(store, clock)
    seeded = [await seed(engine, clock, ALICE, STATES[i % 2]) for i in range(10)]
    for _ in range(100):
        await seed(engine, clock, ALICE, TaskState.completed)
    store.reads = 0
    pages = await list_all(engine, ALICE, ListTasksQuery(state=TaskState.working))
    assert ids(pages) == [t.task_id for t in reversed(seeded) if t.state == TaskState.working]
    assert store.reads == 10


async def test_tasks_created_or_changed_between_pages(engine: TaskEngine, clock: Clock) -> None:
    seeded = [await seed(engine, clock, ALICE, TaskState.working) for _ in range(10)]
    first = await engine.list_tasks(ListTasksQuery(page_size=4, state=TaskState.working), ALICE)
    plain = await engine.list_tasks(ListTasksQuery(page_size=4), ALICE)
    newer = await seed(engine, clock, ALICE, TaskState.working)
    # A task of the first page completes; one further down completes too.
    changed = [seeded[-1].task_id, seeded[2].task_id]
    for second, task_id in enumerate(changed):
        done = TaskStatus(state=TaskState.completed, timestamp=f"2030-01-01T00:00:0{second}Z")
        await engine.ledger.write(task_id, always(Change([StatusChanged(seq=0, status=done)])))

    rest = await list_all(
        engine, ALICE, ListTasksQuery(page_size=4, state=TaskState.working, page_token=first.next_page_token)
    )
    listed = [t.id for t in first.tasks] + ids(rest)
    assert len(listed) == len(set(listed))
    assert newer.task_id not in listed  # it went in above the listing's position
    assert seeded[2].task_id not in listed  # no longer working when its page was read
    assert {task.status.state for page in rest for task in page.tasks} == {TaskState.working}

    # Without a filter each unchanged task comes once, in order; the two that completed moved
    # below the position (to the time they completed) and come again there, completed.
    rest_plain = await list_all(engine, ALICE, ListTasksQuery(page_size=4, page_token=plain.next_page_token))
    shown = [*plain.tasks, *(task for page in rest_plain for task in page.tasks)]
    unchanged = [task.id for task in shown if task.id not in changed]
    assert unchanged == [task_id for task_id in newest_first(seeded) if task_id not in changed]
    assert [task.id for task in shown if task.status.state == TaskState.completed] == changed[::-1]


async def test_the_token_is_opaque_and_does_not_reveal_the_owner(engine: TaskEngine, clock: Clock) -> None:
    for _ in range(2):
        await seed(engine, clock, ALICE, TaskState.working)
    token = (await engine.list_tasks(ListTasksQuery(page_size=1), ALICE)).next_page_token
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    assert b"alice" not in raw
    assert len(token) < 200


async def test_a_genuine_token_whose_position_this_store_cannot_read_is_refused(
    engine: TaskEngine, clock: Clock
) -> None:
    # What a token issued by another version of the store would look like: signed, unreadable.
    await seed(engine, clock, ALICE, TaskState.working)
    scope = (ALICE.principal, None, None, None, None)
    token = PageTokens(SECRET, clock=clock).issue(scope, Cursor("not-a-position", 1))
    with pytest.raises(InvalidParamsError, match="pageToken") as refused:
        await engine.list_tasks(ListTasksQuery(page_token=token), ALICE)
    assert refused.value.data == {"field": "pageToken"}


async def test_a_timestamp_filter_compares_instants_across_time_zones(
    engine: TaskEngine, clock: Clock
) -> None:
    task = await seed(engine, clock, ALICE, TaskState.working, stamp="2030-01-01T12:00:00.000Z")
    await seed(engine, clock, ALICE, TaskState.working, stamp="not a timestamp")  # agents may write anything
    plus_two = timezone(timedelta(hours=2))
    for since, listed in (
        (datetime(2030, 1, 1, 14, 0, tzinfo=plus_two), [task.task_id]),  # the same instant
        (datetime(2030, 1, 1, 14, 0, 1, tzinfo=plus_two), []),
        (datetime(2030, 1, 1, 12, 0), [task.task_id]),  # naive: UTC
    ):
        page = await engine.list_tasks(ListTasksQuery(status_timestamp_after=since), ALICE)
        assert [t.id for t in page.tasks] == listed
        assert page.total_size == len(listed)


def test_a_page_token_secret_is_at_least_16_bytes() -> None:
    with pytest.raises(ValueError, match="16 bytes"):
        PageTokens(b"too short")


async def test_a_task_that_is_answered_and_asks_again_in_one_commit_moves_to_its_new_question(
    engine: TaskEngine, clock: Clock
) -> None:
    # Its class (input-required) is the same before and after the commit, yet its status time,
    # by which it is listed, is new.
    first = await seed(engine, clock, ALICE, TaskState.input_required, stamp="2030-01-01T00:00:00Z")
    second = await seed(engine, clock, ALICE, TaskState.input_required, stamp="2030-01-02T00:00:00Z")
    answer = Message(role=Role.user, parts=[TextPart(text="yes")], message_id="answer")
    again = TaskStatus(state=TaskState.input_required, timestamp="2030-01-03T00:00:00Z")
    working = TaskStatus(state=TaskState.working)
    await engine.ledger.write(
        first.task_id,
        always(
            Change(
                [
                    MessageAdded(seq=0, message=answer),
                    StatusChanged(seq=0, status=working),
                    StatusChanged(seq=0, status=again),
                ]
            )
        ),
    )
    page = await engine.list_tasks(ListTasksQuery(state=TaskState.input_required), ALICE)
    assert [task.id for task in page.tasks] == [first.task_id, second.task_id]
    since = await engine.list_tasks(
        ListTasksQuery(status_timestamp_after=datetime(2030, 1, 2, 12, tzinfo=UTC)), ALICE
    )
    assert [task.id for task in since.tasks] == [first.task_id]
