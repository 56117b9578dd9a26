"""The session store's contract, on every adapter: records, the append-only log, exactly once."""

from __future__ import annotations

import asyncio
import threading

import pytest
from pydantic import JsonValue

from a2a_core.core.turn.context_store import RECENT_WRITES
from a2a_core.core.turn.session_store import NO_RECORD, EntryTakenError, RecordConflictError, SessionStore

pytestmark = pytest.mark.anyio

EVENT: JsonValue = {"author": "user", "text": "héllo ✓", "n": 1.5, "done": False, "none": None}


async def test_an_unknown_session_has_no_record_and_no_entries(session_store: SessionStore) -> None:
    assert await session_store.load_record("s1", "meta") is None
    assert await session_store.read_entries("s1") == []
    assert await session_store.last_seq("s1") == 0
    assert await session_store.list_records("s1", "") == []


async def test_records_round_trip_with_versions(session_store: SessionStore) -> None:
    assert await session_store.save_record("s1", "meta", EVENT, expected_version=NO_RECORD) == 1
    assert await session_store.save_record("s1", "meta", ["b"], expected_version=1) == 2
    loaded = await session_store.load_record("s1", "meta")
    assert loaded is not None
    assert (loaded.name, loaded.value, loaded.version) == ("meta", ["b"], 2)
    with pytest.raises(RecordConflictError):
        await session_store.save_record("s1", "meta", "stale", expected_version=1)
    with pytest.raises(RecordConflictError):
        await session_store.save_record("s1", "meta", "again", expected_version=NO_RECORD)
    with pytest.raises(RecordConflictError):
        await session_store.save_record("s1", "other", "x", expected_version=1)
    loaded = await session_store.load_record("s1", "meta")
    assert loaded is not None
    assert (loaded.value, loaded.version) == (["b"], 2)


async def test_a_record_write_sent_again_is_stored_once(session_store: SessionStore) -> None:
    await session_store.save_record("s1", "r", 1, expected_version=NO_RECORD, write_id="made")
    await session_store.save_record("s1", "r", 2, expected_version=1, write_id="mine")
    await session_store.save_record("s1", "r", 3, expected_version=2)  # another writer
    assert await session_store.save_record("s1", "r", 2, expected_version=1, write_id="mine") == 2
    assert await session_store.save_record("s1", "r", 1, expected_version=NO_RECORD, write_id="made") == 1
    loaded = await session_store.load_record("s1", "r")
    assert loaded is not None
    assert (loaded.value, loaded.version) == (3, 3)
    for version in range(3, RECENT_WRITES + 3):
        await session_store.save_record("s1", "r", version, expected_version=version)
    with pytest.raises(RecordConflictError):  # forgotten RECENT_WRITES writes later
        await session_store.save_record("s1", "r", 2, expected_version=1, write_id="mine")


async def test_records_are_listed_by_prefix_in_name_order(session_store: SessionStore) -> None:
    for name in ("session/b", "session/a", "state", "session/c"):
        await session_store.save_record("s1", name, name, expected_version=NO_RECORD)
    await session_store.save_record("s2", "session/z", "elsewhere", expected_version=NO_RECORD)
    listed = await session_store.list_records("s1", "session/")
    assert [(r.name, r.value) for r in listed] == [(f"session/{n}", f"session/{n}") for n in "abc"]
    assert [r.name for r in await session_store.list_records("s1", "session/", limit=2)] == [
        "session/a",
        "session/b",
    ]


async def test_appends_number_entries_and_reads_are_windows(session_store: SessionStore) -> None:
    for n in range(1, 8):
        assert await session_store.append("s1", {"n": n}) == n
    await session_store.append("s2", "other session")
    assert [e.seq for e in await session_store.read_entries("s1")] == list(range(1, 8))
    assert [e.value for e in await session_store.read_entries("s1", after=5)] == [{"n": 6}, {"n": 7}]
    assert [e.seq for e in await session_store.read_entries("s1", limit=2)] == [1, 2]
    assert [e.seq for e in await session_store.read_entries("s1", after=2, limit=2)] == [3, 4]
    assert [e.seq for e in await session_store.read_entries("s1", limit=3, newest=True)] == [5, 6, 7]
    assert await session_store.read_entries("s1", limit=0) == []
    assert await session_store.last_seq("s1") == 7


async def test_an_entry_is_written_once_at_its_number(session_store: SessionStore) -> None:
    await session_store.put_entry("s1", 1, "first", write_id="w1")
    await session_store.put_entry("s1", 1, "first", write_id="w1")  # resent: stored already
    with pytest.raises(EntryTakenError):
        await session_store.put_entry("s1", 1, "another", write_id="w2")
    with pytest.raises(ValueError, match="from 1"):
        await session_store.put_entry("s1", 0, "zero")
    assert [(e.seq, e.value) for e in await session_store.read_entries("s1")] == [(1, "first")]


async def test_an_append_after_other_writers_took_numbers_lands_after_them(
    session_store: SessionStore,
) -> None:
    await session_store.append("s1", "a")
    tail = await session_store.last_seq("s1")  # what a slower writer read
    await session_store.put_entry("s1", tail + 1, "b, by another writer")
    await session_store.put_entry("s1", tail + 2, "c, by another writer")
    assert await session_store.append("s1", "mine") == 4
    assert [e.value for e in await session_store.read_entries("s1")] == [
        "a",
        "b, by another writer",
        "c, by another writer",
        "mine",
    ]


async def test_replacing_an_entry_keeps_its_number(session_store: SessionStore) -> None:
    await session_store.append("s1", "secret")
    await session_store.append("s1", "after")
    await session_store.replace_entry("s1", 1, "[redacted]")
    assert [e.value for e in await session_store.read_entries("s1")] == ["[redacted]", "after"]
    with pytest.raises(LookupError):
        await session_store.replace_entry("s1", 9, "nothing there")
    assert await session_store.last_seq("s1") == 2


async def test_values_that_are_not_json_are_refused_and_store_nothing(session_store: SessionStore) -> None:
    with pytest.raises(ValueError, match="JSON"):
        await session_store.append("s1", float("nan"))
    with pytest.raises((TypeError, ValueError)):
        await session_store.save_record("s1", "r", {"bad": {1}}, expected_version=NO_RECORD)  # type: ignore[dict-item]
    assert await session_store.read_entries("s1") == []
    assert await session_store.load_record("s1", "r") is None


async def test_reads_are_copies(session_store: SessionStore) -> None:
    value: dict[str, JsonValue] = {"parts": ["a"]}
    await session_store.append("s1", value)
    await session_store.save_record("s1", "r", value, expected_version=NO_RECORD)
    value["parts"] = ["changed"]
    (entry,) = await session_store.read_entries("s1")
    record = await session_store.load_record("s1", "r")
    assert record is not None
    assert entry.value == record.value == {"parts": ["a"]}


def test_two_workers_appending_to_one_session_lose_nothing(session_store: SessionStore) -> None:
    """Each worker is a thread with its own event loop, as two Lambdas would be."""
    per_worker = 8
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    async def work(name: str) -> None:
        for i in range(per_worker):
            await session_store.append("s1", f"{name}{i}")
            await session_store.update_record("s1", "count", lambda n: (n if isinstance(n, int) else 0) + 1)

    def thread(name: str) -> None:
        start.wait(10)
        try:
            asyncio.run(work(name))
        except BaseException as error:  # noqa: BLE001 - handed to the test thread
            errors.append(error)

    threads = [threading.Thread(target=thread, args=(name,)) for name in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    entries = asyncio.run(session_store.read_entries("s1"))
    assert [e.seq for e in entries] == list(range(1, 2 * per_worker + 1))
    values = [str(e.value) for e in entries]
    assert sorted(values) == sorted(f"{n}{i}" for n in "ab" for i in range(per_worker))
    for name in "ab":  # each worker's own entries stay in its order
        assert [v for v in values if v.startswith(name)] == [f"{name}{i}" for i in range(per_worker)]
    count = asyncio.run(session_store.load_record("s1", "count"))
    assert count is not None
    assert count.value == 2 * per_worker
