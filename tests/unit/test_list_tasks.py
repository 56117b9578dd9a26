"""TaskEngine.list_tasks (A2A 1.0 ListTasks) over the in-memory store.

tests/integration/aws/test_list_tasks_dynamodb.py runs the pagination and isolation tests on
DynamoDB (moto's server); the store's own contract is in tests/contract/test_task_store.py.
"""

from __future__ import annotations

import base64
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest

from a2a_core.core.changes import Change, status
from a2a_core.core.config import EngineConfig
from a2a_core.core.engine import TaskEngine
from a2a_core.core.errors import InvalidParamsError
from a2a_core.core.page_tokens import Cursor, PageTokens
from a2a_core.core.requests import ListTasksQuery
from a2a_core.core.store import InMemoryTaskStore
from a2a_core.domain import Message, Role, TaskState, TextPart
from clock import Clock
from list_support import ALICE, BOB, SECRET, STATES, CountingStore, Seeded, ids, list_all, make_engine, seed

pytestmark = pytest.mark.anyio


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def engine(clock: Clock) -> TaskEngine:
    return make_engine(InMemoryTaskStore(), clock)


def newest_first(tasks: list[Seeded]) -> list[str]:
    return [task.task_id for task in reversed(tasks)]


async def test_a_caller_sees_only_its_own_tasks_newest_created_first(
    engine: TaskEngine, clock: Clock
) -> None:
    mine = [await seed(engine, clock, ALICE, state) for state in STATES]
    theirs = [await seed(engine, clock, BOB, TaskState.completed) for _ in range(3)]

    page = await engine.list_tasks(ListTasksQuery(), ALICE)
    assert [task.id for task in page.tasks] == newest_first(mine)
    assert (page.next_page_token, page.page_size, page.total_size) == ("", 50, len(mine))
    assert [task.status.state for task in page.tasks] == list(reversed(STATES))
    other = await engine.list_tasks(ListTasksQuery(), BOB)
    assert [task.id for task in other.tasks] == newest_first(theirs)
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
        assert (await engine.list_tasks(ListTasksQuery(page_size=1, page_token=bad), ALICE)).total_size == 3
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
    assert (len(first.tasks), first.page_size, first.total_size) == (50, 50, 120)
    largest = await engine.list_tasks(ListTasksQuery(page_size=100), ALICE)
    assert (len(largest.tasks), largest.page_size) == (100, 100)
    pages = await list_all(engine, ALICE, ListTasksQuery())
    assert [len(page.tasks) for page in pages] == [50, 50, 20]
    assert ids(pages) == newest_first(seeded)
    assert pages[-1].next_page_token == ""
    assert {page.total_size for page in pages} == {120}


@pytest.mark.parametrize("page_size", [1, 7, 50, 100])
@pytest.mark.parametrize(
    "filters",
    [
        {},
        {"context_id": "c1"},
        {"state": TaskState.completed},
        {"state": TaskState.input_required, "context_id": "c2"},
        # At or after: the tasks stamped March 15th are in.
        {"status_timestamp_after": datetime(2030, 3, 15, tzinfo=UTC)},
    ],
    ids=["none", "context", "state", "state+context", "timestamp"],
)
async def test_paging_through_250_tasks_returns_every_match_exactly_once_in_order(
    engine: TaskEngine, clock: Clock, page_size: int, filters: dict[str, object]
) -> None:
    seeded = await seed_250(engine, clock)
    expected = [task.task_id for task in reversed(seeded) if _expected(task, filters)]
    pages = await list_all(engine, ALICE, ListTasksQuery(page_size=page_size, **filters))  # type: ignore[arg-type]
    assert ids(pages) == expected
    assert all(len(page.tasks) <= page_size for page in pages)
    assert {page.total_size for page in pages} == {len(expected)}
    assert pages[-1].next_page_token == ""
    assert all(page.next_page_token for page in pages[:-1])


async def seed_250(engine: TaskEngine, clock: Clock) -> list[Seeded]:
    """250 of Alice's tasks in two contexts and four states, their last status changes stamped
    in 2030 (the 15th of January to May, 50 tasks a month), among Bob's tasks in the same
    contexts and states."""
    seeded = []
    for i in range(250):
        state, context = STATES[(i + i // 4) % 4], "c1" if i % 3 else "c2"
        stamp = f"2030-0{1 + i // 50}-15T00:00:00.000Z"
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
        return task.stamp is not None and datetime.fromisoformat(task.stamp) >= since
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
    assert (default.tasks[0].history or [])[0].message_id == "m2"
    assert all(t.artifacts is None for t in default.tasks)
    none = await engine.list_tasks(ListTasksQuery(history_length=0), ALICE)
    assert all(t.history == [] for t in none.tasks)
    full = await engine.list_tasks(ListTasksQuery(include_artifacts=True, history_length=500), ALICE)
    (completed,) = [t for t in full.tasks if t.id == task.task_id]
    assert [a.artifact_id for a in completed.artifacts or []] == ["a"]
    with pytest.raises(InvalidParamsError, match="historyLength"):
        await engine.list_tasks(ListTasksQuery(history_length=-1), ALICE)


async def test_a_rare_state_is_found_with_bounded_reads_per_page(clock: Clock) -> None:
    # Each page after the first reads at most 12 candidates: with one match in 40 tasks, most
    # pages are empty, yet every page says where to go on and the matches all come back.
    store = CountingStore()
    engine = make_engine(store, clock, EngineConfig(list_scan_limit=12))
    seeded = [
        await seed(engine, clock, ALICE, TaskState.completed if i % 40 == 7 else TaskState.working)
        for i in range(200)
    ]
    store.reads = 0
    pages = await list_all(engine, ALICE, ListTasksQuery(page_size=2, state=TaskState.completed))
    expected = [t.task_id for t in reversed(seeded) if t.state == TaskState.completed]
    assert ids(pages) == expected
    assert {page.total_size for page in pages} == {5}
    first_page_reads = 200  # the first page counts: it reads every candidate once
    assert store.reads - first_page_reads <= 12 * (len(pages) - 1)
    assert any(not page.tasks for page in pages[:-1])  # a page may be empty, with a next page


async def test_counting_a_filtered_total_stops_at_the_count_limit(clock: Clock) -> None:
    engine = make_engine(InMemoryTaskStore(), clock, EngineConfig(list_count_limit=30, list_scan_limit=30))
    seeded = [await seed(engine, clock, ALICE, STATES[i % 2]) for i in range(100)]
    pages = await list_all(engine, ALICE, ListTasksQuery(page_size=10, state=TaskState.working))
    # The total counts the matches among the newest 30 tasks only (a lower bound)...
    assert {page.total_size for page in pages} == {15}
    # ...while the pages still hold every match.
    assert ids(pages) == [t.task_id for t in reversed(seeded) if t.state == TaskState.working]


async def test_tasks_created_or_changed_between_pages_never_repeat_a_task(
    engine: TaskEngine, clock: Clock
) -> None:
    seeded = [await seed(engine, clock, ALICE, TaskState.working) for _ in range(10)]
    first = await engine.list_tasks(ListTasksQuery(page_size=4, state=TaskState.working), ALICE)
    plain = await engine.list_tasks(ListTasksQuery(page_size=4), ALICE)
    newer = await seed(engine, clock, ALICE, TaskState.working)
    # A task of the first page completes; one further down completes too.
    for task_id in (seeded[-1].task_id, seeded[2].task_id):
        await engine.ledger.write(task_id, lambda _: Change([status(TaskState.completed)]))

    rest = await list_all(
        engine, ALICE, ListTasksQuery(page_size=4, state=TaskState.working, page_token=first.next_page_token)
    )
    listed = [t.id for t in first.tasks] + ids(rest)
    assert len(listed) == len(set(listed))
    assert newer.task_id not in listed  # newer than the listing's first page: not on later pages
    assert seeded[2].task_id not in listed  # no longer working when its page was read
    assert {page.total_size for page in [first, *rest]} == {10}  # counted with the first page

    rest_plain = await list_all(engine, ALICE, ListTasksQuery(page_size=4, page_token=plain.next_page_token))
    assert [t.id for t in plain.tasks] + ids(rest_plain) == newest_first(seeded)


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
