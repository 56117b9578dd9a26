from __future__ import annotations

import asyncio
import threading
import time

import pytest
from pydantic import JsonValue

from a2a_core.aws.calls import Item, query_all
from a2a_core.aws.dynamodb.context_store import DynamoDBContextStore, context_key
from a2a_core.aws.resources import TABLE, ResourceNames
from a2a_core.core.turn.context_store import (
    NO_CONTEXT,
    RECENT_WRITES,
    ContextConflictError,
    ContextStore,
    ContextUpdate,
)
from a2a_core.emulator.moto_server import EmulatedAws

pytestmark = pytest.mark.anyio

RETENTION = 7 * 24 * 3600
ITEM_LIMIT = 400 * 1024

VALUE: JsonValue = {
    "messages": [{"role": "user", "text": "héllo ✓"}, {"role": "agent", "text": "hi"}],
    "count": 2,
    "ratio": 0.5,
    "done": False,
    "note": None,
}


def big_value(size: int, fill: str = "x") -> JsonValue:
    """A JSON value of about ``size`` bytes, in several fields as a message list would be."""
    return {"messages": [fill * 1000 + str(i) for i in range(size // 1000)]}


async def test_an_unknown_context_is_none(context_store: ContextStore) -> None:
    assert await context_store.load_context("nope") is None


async def test_values_round_trip_with_versions_counting_up(context_store: ContextStore) -> None:
    assert await context_store.update_context("c1", VALUE, expected_version=NO_CONTEXT) == 1
    loaded = await context_store.load_context("c1")
    assert loaded is not None
    assert (loaded.context_id, loaded.value, loaded.version) == ("c1", VALUE, 1)
    assert await context_store.update_context("c1", ["replaced"], expected_version=1) == 2
    loaded = await context_store.load_context("c1")
    assert loaded is not None
    assert (loaded.value, loaded.version) == (["replaced"], 2)


@pytest.mark.parametrize("value", [None, "text", 7, [], {}])
async def test_any_json_value_is_stored(context_store: ContextStore, value: JsonValue) -> None:
    await context_store.update_context("c1", value, expected_version=NO_CONTEXT)
    loaded = await context_store.load_context("c1")
    assert loaded is not None
    assert loaded.value == value


async def test_a_stale_version_is_refused_and_stores_nothing(context_store: ContextStore) -> None:
    await context_store.update_context("c1", "first", expected_version=NO_CONTEXT)
    await context_store.update_context("c1", "second", expected_version=1)
    with pytest.raises(ContextConflictError):
        await context_store.update_context("c1", "stale", expected_version=1)
    with pytest.raises(ContextConflictError):
        await context_store.update_context("c1", "again", expected_version=NO_CONTEXT)
    with pytest.raises(ContextConflictError):
        await context_store.update_context("c1", "future", expected_version=5)
    loaded = await context_store.load_context("c1")
    assert loaded is not None
    assert (loaded.value, loaded.version) == ("second", 2)


async def test_updating_a_missing_context_at_a_version_is_refused(context_store: ContextStore) -> None:
    with pytest.raises(ContextConflictError):
        await context_store.update_context("c1", "x", expected_version=1)
    assert await context_store.load_context("c1") is None


async def test_a_write_sent_again_is_recognised_after_other_writes(context_store: ContextStore) -> None:
    """A resend (its answer was lost) stores nothing and returns the version it landed at."""
    assert await context_store.update_context("c1", "a", expected_version=NO_CONTEXT, write_id="w1") == 1
    assert await context_store.update_context("c1", "b", expected_version=1, write_id="w2") == 2
    assert await context_store.update_context("c1", "c", expected_version=2) == 3
    assert await context_store.update_context("c1", "a", expected_version=NO_CONTEXT, write_id="w1") == 1
    assert await context_store.update_context("c1", "b", expected_version=1, write_id="w2") == 2
    loaded = await context_store.load_context("c1")
    assert loaded is not None
    assert (loaded.value, loaded.version) == ("c", 3)
    with pytest.raises(ContextConflictError):  # a new write of an old version is still a conflict
        await context_store.update_context("c1", "d", expected_version=2, write_id="w3")


async def test_a_write_is_recognised_while_among_the_recent_ones(context_store: ContextStore) -> None:
    await context_store.update_context("c1", 0, expected_version=NO_CONTEXT)
    await context_store.update_context("c1", 1, expected_version=1, write_id="mine")
    for version in range(2, RECENT_WRITES + 1):
        await context_store.update_context("c1", version, expected_version=version)
    assert await context_store.update_context("c1", 1, expected_version=1, write_id="mine") == 2
    await context_store.update_context("c1", "later", expected_version=RECENT_WRITES + 1)
    with pytest.raises(ContextConflictError):  # RECENT_WRITES writes later, it is forgotten
        await context_store.update_context("c1", 1, expected_version=1, write_id="mine")
    loaded = await context_store.load_context("c1")
    assert loaded is not None
    assert (loaded.value, loaded.version) == ("later", RECENT_WRITES + 2)


async def test_a_value_that_is_not_json_is_refused(context_store: ContextStore) -> None:
    with pytest.raises((TypeError, ValueError)):
        await context_store.update_context("c1", {"bad": {1, 2}}, expected_version=NO_CONTEXT)  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="JSON"):
        await context_store.update_context("c1", float("nan"), expected_version=NO_CONTEXT)
    assert await context_store.load_context("c1") is None


async def test_contexts_are_kept_apart(context_store: ContextStore) -> None:
    await context_store.update_context("c1", "mine", expected_version=NO_CONTEXT)
    await context_store.update_context("c2", "theirs", expected_version=NO_CONTEXT)
    await context_store.update_context("c2", "theirs, later", expected_version=1)
    mine, theirs = await context_store.load_context("c1"), await context_store.load_context("c2")
    assert mine is not None
    assert theirs is not None
    assert (mine.value, mine.version, theirs.value, theirs.version) == ("mine", 1, "theirs, later", 2)


async def test_loaded_values_are_copies(context_store: ContextStore) -> None:
    value: dict[str, JsonValue] = {"messages": ["a"]}
    await context_store.update_context("c1", value, expected_version=NO_CONTEXT)
    value["messages"] = ["changed after the write"]
    loaded = await context_store.load_context("c1")
    assert loaded is not None
    assert isinstance(loaded.value, dict)
    loaded.value["messages"] = ["changed after the read"]
    again = await context_store.load_context("c1")
    assert again is not None
    assert again.value == {"messages": ["a"]}


async def test_concurrent_writes_of_one_version_have_exactly_one_winner(context_store: ContextStore) -> None:
    await context_store.update_context("c1", [], expected_version=NO_CONTEXT)

    async def attempt(n: int) -> bool:
        try:
            await context_store.update_context("c1", [n], expected_version=1)
        except ContextConflictError:
            return False
        return True

    results = await asyncio.gather(*(attempt(n) for n in range(8)))
    assert results.count(True) == 1
    loaded = await context_store.load_context("c1")
    assert loaded is not None
    assert loaded.version == 2
    assert loaded.value == [results.index(True)]


def appending(item: str, seen: list[JsonValue | None] | None = None) -> ContextUpdate:
    def change(current: JsonValue | None) -> JsonValue:
        if seen is not None:
            seen.append(current)
        assert current is None or isinstance(current, list)
        return [*(current or []), item]

    return change


async def test_update_applies_a_change_on_the_current_value(context_store: ContextStore) -> None:
    seen: list[JsonValue | None] = []
    first = await context_store.update("c1", appending("a", seen))
    second = await context_store.update("c1", appending("b", seen))
    assert (first.version, first.value) == (1, ["a"])
    assert (second.version, second.value) == (2, ["a", "b"])
    assert seen == [None, ["a"]]


def test_two_workers_updating_one_context_lose_no_update(context_store: ContextStore) -> None:
    """Each worker is a thread with its own event loop, as two Lambdas would be."""
    per_worker = 6
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    async def work(name: str) -> None:
        for i in range(per_worker):
            await context_store.update("c1", appending(f"{name}{i}"))

    def thread(name: str) -> None:
        start.wait(10)
        try:
            asyncio.run(work(name))
        except BaseException as error:  # noqa: BLE001 - handed to the test thread
            errors.append(error)

    threads = [threading.Thread(target=thread, args=(name,)) for name in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    loaded = asyncio.run(context_store.load_context("c1"))
    assert loaded is not None
    assert isinstance(loaded.value, list)
    assert loaded.version == 2 * per_worker
    assert sorted(loaded.value, key=str) == sorted([f"{n}{i}" for n in "ab" for i in range(per_worker)])
    for name in "ab":  # each worker's own updates stay in its order
        mine = [v for v in loaded.value if str(v).startswith(name)]
        assert mine == [f"{name}{i}" for i in range(per_worker)]


async def test_a_2_mb_context_round_trips_and_can_be_replaced(big_context_store: ContextStore) -> None:
    first, second = big_value(2_000_000, "x"), big_value(2_100_000, "y")
    assert await big_context_store.update_context("c1", first, expected_version=NO_CONTEXT) == 1
    loaded = await big_context_store.load_context("c1")
    assert loaded is not None
    assert loaded.value == first
    assert await big_context_store.update_context("c1", second, expected_version=1) == 2
    loaded = await big_context_store.load_context("c1")
    assert loaded is not None
    assert loaded.value == second
    with pytest.raises(ContextConflictError):
        await big_context_store.update_context("c1", first, expected_version=1)
    loaded = await big_context_store.load_context("c1")
    assert loaded is not None
    assert (loaded.value, loaded.version) == (second, 2)


# --- DynamoDB layout: item sizes and TTL -------------------------------------------------------


@pytest.fixture
def dynamodb(local_aws: EmulatedAws, aws_resources: ResourceNames) -> tuple[EmulatedAws, str]:
    return local_aws, aws_resources.table


def _store(dynamodb: tuple[EmulatedAws, str], clock: float | None = None) -> DynamoDBContextStore:
    aws, table = dynamodb
    return DynamoDBContextStore(
        aws.clients.dynamodb,
        table,
        retention_seconds=RETENTION,
        clock=time.time if clock is None else lambda: clock,
    )


async def _items(dynamodb: tuple[EmulatedAws, str], context_id: str) -> list[Item]:
    aws, table = dynamodb
    return await query_all(
        aws.clients.dynamodb,
        TableName=table,
        KeyConditionExpression="#pk = :pk",
        ExpressionAttributeNames={"#pk": TABLE.partition_key},
        ExpressionAttributeValues={":pk": {"S": context_key(context_id)}},
        ConsistentRead=True,
    )


def _size(item: Item) -> int:
    sizes = (len(name) + len(next(iter(value.values()))) for name, value in item.items())
    return sum(sizes)


async def test_a_large_context_is_split_into_items_under_the_limit_each_with_a_ttl(
    dynamodb: tuple[EmulatedAws, str],
) -> None:
    store = _store(dynamodb)
    before = int(time.time())
    await store.update_context("c1", big_value(2_000_000), expected_version=NO_CONTEXT)
    items = await _items(dynamodb, "c1")
    assert len(items) >= 7  # a head and the chunks, each at most 300 KB
    assert max(map(_size, items)) < ITEM_LIMIT
    for item in items:
        assert before + RETENTION <= int(item[TABLE.ttl_attribute]["N"]) <= int(time.time()) + RETENTION
        assert "context_id" not in item  # stays out of the tasks' context index


async def test_a_small_context_is_one_item_with_a_ttl(dynamodb: tuple[EmulatedAws, str]) -> None:
    await _store(dynamodb, clock=1_000_000.0).update_context("c1", VALUE, expected_version=NO_CONTEXT)
    (item,) = await _items(dynamodb, "c1")
    assert item[TABLE.ttl_attribute] == {"N": str(1_000_000 + RETENTION)}


async def test_a_context_past_its_ttl_reads_as_gone_and_can_be_created_again(
    dynamodb: tuple[EmulatedAws, str],
) -> None:
    written_at = time.time()
    await _store(dynamodb, clock=written_at).update_context("c1", "old", expected_version=NO_CONTEXT)
    later = _store(dynamodb, clock=written_at + RETENTION + 5)
    assert await later.load_context("c1") is None
    with pytest.raises(ContextConflictError):
        await later.update_context("c1", "on the expired one", expected_version=1)
    # Versions never repeat: a writer still holding version 1 cannot overwrite the new context.
    assert await later.update_context("c1", "new", expected_version=NO_CONTEXT) == 2
    loaded = await later.load_context("c1")
    assert loaded is not None
    assert (loaded.value, loaded.version) == ("new", 2)
