"""DynamoDBTaskStore on moto's real server: long tasks, big artifacts, S3 bodies, races, errors, TTL.

The shared behaviour of every store is in tests/contract; these tests cover what only the
DynamoDB layout decides (item sizes, offloading, the sparse index, TTL, error mapping).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import threading
import time
import uuid
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import pytest

from a2a_core.aws.blobs import S3Blobs
from a2a_core.aws.clients import build_clients
from a2a_core.aws.dynamodb.keys import BODY, BODY_REF, SNAPSHOT, TASK_ID
from a2a_core.aws.dynamodb.push_store import DynamoDBPushConfigStore
from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore
from a2a_core.aws.http_pool import HttpResponse
from a2a_core.aws.json_client import AwsJsonClient
from a2a_core.aws.resources import TABLE, ResourceNames
from a2a_core.core.broker import InMemoryBroker
from a2a_core.core.caller import Caller
from a2a_core.core.engine import TaskEngine
from a2a_core.core.errors import ConcurrentUpdateError, StoreUnavailableError
from a2a_core.core.requests import TaskRef
from a2a_core.core.streams import TaskStreams
from a2a_core.core.tasklog.changes import Change, Decide, status
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.lifecycle import is_terminal
from a2a_core.core.tasklog.records import (
    ArtifactUpdated,
    Commit,
    MessageAdded,
    RunLease,
    StatusChanged,
    generation_of,
)
from a2a_core.core.tasklog.snapshots import SNAPSHOT_EVERY
from a2a_core.core.tasklog.store import IndexQuery, OwnedTasks
from a2a_core.domain import (
    Artifact,
    FilePart,
    FileWithBytes,
    Message,
    PushNotificationConfig,
    Role,
    TaskState,
    TextPart,
)
from a2a_core.emulator.moto_server import EmulatedAws
from a2a_core.generations import V0_3, V1_0
from support import user_message

DAY = 24 * 3600
ITEM_LIMIT = 400 * 1024  # DynamoDB's item size limit


def make_store(aws: EmulatedAws, names: ResourceNames, **options: Any) -> DynamoDBTaskStore:
    options.setdefault("retention_seconds", DAY)
    return DynamoDBTaskStore(
        aws.clients.dynamodb, names.table, blobs=S3Blobs(lambda: aws.clients.s3, names.bucket), **options
    )


@pytest.fixture
def store(local_aws: EmulatedAws, aws_resources: ResourceNames) -> DynamoDBTaskStore:
    return make_store(local_aws, aws_resources)


def stored_items(aws: EmulatedAws, names: ResourceNames) -> list[dict[str, Any]]:
    pages = aws.clients.dynamodb.get_paginator("scan").paginate(TableName=names.table, ConsistentRead=True)
    items = [dict(item) for page in pages for item in page["Items"]]
    return sorted(items, key=lambda item: (item[TABLE.partition_key]["S"], item[TABLE.sort_key]["S"]))


def item_size(item: Mapping[str, Any]) -> int:
    """What DynamoDB counts against its limit: attribute names plus values (numbers as digits)."""
    return sum(
        len(name.encode()) + len(str(next(iter(value.values()))).encode()) for name, value in item.items()
    )


def agent_message(text: str) -> Message:
    return Message(role=Role.agent, parts=[TextPart(text=text)], message_id=f"a-{text}")


def always(change: Change) -> Decide:
    return lambda _: change


async def start(ledger: TaskLedger, task_id: str, message: Message | None = None) -> Commit:
    """A task that a worker has claimed: its head is `working`."""
    await ledger.create(task_id=task_id, context_id="ctx", message=message or user_message(), run_id="r1")
    claim = await ledger.write(task_id, lambda head: Change([status(TaskState.working)]))
    assert claim is not None
    return claim


@pytest.mark.anyio
async def test_a_thousand_turns_keep_every_item_small(
    store: DynamoDBTaskStore, local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    ledger = TaskLedger(store, history_cap=2000)
    await ledger.create(task_id="long", context_id="ctx", message=user_message("user 0"), run_id="r")
    head = await ledger.head("long")
    for turn in range(1000):
        asked = [MessageAdded(seq=0, message=user_message(f"user {turn}"))] if turn else []
        reply = [status(TaskState.working), status(TaskState.input_required, agent_message(f"agent {turn}"))]
        written = await ledger.write("long", always(Change([*asked, *reply])), head=head)
        assert written is not None
        head = written

    task = await ledger.load("long")
    expected = [text for turn in range(1000) for text in (f"user {turn}", f"agent {turn}")]
    assert [m.parts[0].text for m in task.history or [] if isinstance(m.parts[0], TextPart)] == expected
    trimmed = await ledger.load("long", history_length=5)
    assert [m.message_id for m in trimmed.history or []] == [m.message_id for m in (task.history or [])[-5:]]

    items = stored_items(local_aws, aws_resources)
    assert len(items) == 1001
    # Nothing grows with the history: a commit is small, and so is one that also carries a
    # snapshot (10 recent messages and the packed positions of the other 1,990).
    assert max(item_size(item) for item in items if SNAPSHOT not in item) < 2_000
    assert max(item_size(item) for item in items if SNAPSHOT in item) < 8_000
    assert sum(SNAPSHOT in item for item in items) >= 1000 // SNAPSHOT_EVERY
    indexed = [item[TABLE.sort_key]["S"] for item in items if TABLE.owner_key in item]
    assert indexed == ["EVT#0000000001"]
    index_attributes = (TABLE.owner_sort_key, TABLE.context_attribute)
    assert all((name in item) == (TABLE.owner_key in item) for item in items for name in index_attributes)
    # Each answer and the next question share a commit: the listing entry moved to the newest.
    listed = [item[TABLE.sort_key]["S"] for item in items if TABLE.list_key in item]
    assert listed == [max(item[TABLE.sort_key]["S"] for item in items)]
    assert [task.task_id for task in (await store.list_owned("anonymous", IndexQuery(), limit=5)).tasks] == [
        "long"
    ]


@pytest.mark.anyio
async def test_each_commit_of_a_simple_task_costs_one_write_unit(
    store: DynamoDBTaskStore, local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    ledger = TaskLedger(store)
    task_id, context_id = str(uuid.uuid4()), str(uuid.uuid4())
    await ledger.create(
        task_id=task_id, context_id=context_id, message=user_message("What is six times seven?"), run_id="r"
    )
    claim = RunLease(run_id="r", lease_until=time.time() + 900, attempt=1)
    await ledger.write(task_id, lambda _: Change([status(TaskState.working)], run=claim))
    answer = Artifact(artifact_id=str(uuid.uuid4()), name="answer", parts=[TextPart(text="42")])
    done = status(TaskState.completed, agent_message("Done: the answer is in the artifact."))
    await ledger.write(task_id, lambda _: Change([ArtifactUpdated(seq=0, artifact=answer), done]))

    sizes = [item_size(item) for item in stored_items(local_aws, aws_resources)]
    assert len(sizes) == 3
    assert max(sizes) <= 1024, sizes  # DynamoDB bills writes per started KB


@pytest.mark.anyio
async def test_a_20_mb_artifact_streamed_in_chunks_is_reassembled_exactly(
    store: DynamoDBTaskStore, local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    ledger = TaskLedger(store)
    head = await start(ledger, "big")
    chunks = [os.urandom(128 * 1024).hex() for _ in range(80)]  # 80 x 256 KiB of text
    for index, chunk in enumerate(chunks):
        update = ArtifactUpdated(
            seq=0,
            artifact=Artifact(artifact_id="report", parts=[TextPart(text=chunk)]),
            append=index > 0,
            last_chunk=index == len(chunks) - 1,
        )
        written = await ledger.write("big", always(Change([update])), head=head)
        assert written is not None
        head = written
    await ledger.write("big", lambda _: Change([status(TaskState.completed)]), head=head)

    task = await ledger.load("big")
    (artifact,) = task.artifacts or []
    assert "".join(p.text for p in artifact.parts if isinstance(p, TextPart)) == "".join(chunks)
    assert max(map(item_size, stored_items(local_aws, aws_resources))) < ITEM_LIMIT


@pytest.mark.anyio
async def test_a_megabyte_file_part_goes_to_s3_and_comes_back_byte_identical(
    store: DynamoDBTaskStore, local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    payload = os.urandom(768 * 1024)  # ~1 MB once base64-encoded
    file = FileWithBytes(bytes=base64.b64encode(payload).decode(), mime_type="application/pdf", name="a.pdf")
    message = Message(role=Role.user, parts=[FilePart(file=file)], message_id="with-file")
    ledger = TaskLedger(store)
    await start(ledger, "files", message)

    first, claim = stored_items(local_aws, aws_resources)
    assert BODY not in first
    key = first[BODY_REF]["S"]
    assert key.startswith("tasks/files/0000000001-")
    local_aws.clients.s3.head_object(Bucket=aws_resources.bucket, Key=key)
    assert BODY in claim
    assert BODY_REF not in claim

    (stored,) = (await ledger.load("files")).history or []
    part = stored.parts[0]
    assert isinstance(part, FilePart)
    assert isinstance(part.file, FileWithBytes)
    assert base64.b64decode(part.file.bytes) == payload
    assert part.file.name == "a.pdf"


@pytest.mark.anyio
async def test_the_loser_of_a_race_leaves_no_s3_object_behind(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    store = make_store(local_aws, aws_resources, offload_threshold=0)
    ledger = TaskLedger(store)
    await ledger.create(task_id="t1", context_id="ctx", message=user_message("mine"), run_id="r")
    (winner,) = await store.read("t1")
    rival = winner.model_copy(update={"created_at": winner.created_at + 1, "write_id": "another writer's"})
    with pytest.raises(ConcurrentUpdateError):
        await store.append(rival)

    listing = local_aws.clients.s3.list_objects_v2(Bucket=aws_resources.bucket, Prefix="tasks/t1/")
    (item,) = stored_items(local_aws, aws_resources)
    assert [obj["Key"] for obj in listing.get("Contents", [])] == [item[BODY_REF]["S"]]
    assert await store.read("t1") == [winner]


@pytest.mark.anyio
@pytest.mark.parametrize("offload_threshold", [300_000, 0], ids=["inline", "s3"])
async def test_a_put_resent_by_the_client_after_it_landed_counts_as_written(
    local_aws: EmulatedAws, aws_resources: ResourceNames, offload_threshold: int
) -> None:
    client = build_clients(local_aws.region, local_aws.endpoint_url).dynamodb
    assert isinstance(client, AwsJsonClient)  # the client the functions write with
    send = client.transport
    resent: list[str] = []

    def lose_first_answer(method: str, headers: dict[str, str], body: bytes) -> HttpResponse:
        # As if the answer to a put that landed was lost on the way back: the client sends it again.
        answer = send(method, headers, body)
        if headers["X-Amz-Target"].endswith(".PutItem") and not resent and answer.status == 200:
            resent.append(headers["X-Amz-Target"])
            raise ConnectionResetError("the answer was lost")
        return answer

    client.transport = lose_first_answer
    store = DynamoDBTaskStore(
        client,
        aws_resources.table,
        blobs=S3Blobs(lambda: local_aws.clients.s3, aws_resources.bucket),
        retention_seconds=DAY,
        offload_threshold=offload_threshold,
    )
    _, created = await TaskLedger(store).create(
        task_id="t1", context_id="ctx", message=user_message(), run_id="r"
    )
    assert resent == ["DynamoDB_20120810.PutItem"]
    assert created
    (stored,) = await store.read("t1")  # an offloaded body was kept, not cleaned up as a loser's
    assert stored.first_seq == 1


def test_cancel_and_complete_racing_from_threads_end_in_one_terminal_state(
    store: DynamoDBTaskStore,
) -> None:
    def race(task_id: str) -> dict[TaskState, Commit | None]:
        asyncio.run(start(TaskLedger(store), task_id))
        both_read = threading.Barrier(2, timeout=10)

        def writer(target: TaskState) -> Commit | None:
            calls = 0

            def decide(head: Commit) -> Change | None:
                nonlocal calls
                calls += 1
                if calls == 1:
                    both_read.wait()  # both writers decide on the same `working` head
                return None if is_terminal(head.state) else Change([status(target)])

            # Each thread has its own event loop, like two Lambda invocations.
            return asyncio.run(TaskLedger(store).write(task_id, decide))

        targets = (TaskState.canceled, TaskState.completed)
        with ThreadPoolExecutor(2) as pool:
            return dict(zip(targets, pool.map(writer, targets), strict=True))

    for round_ in range(20):
        task_id = f"race-{round_}"
        results = race(task_id)
        winners = [state for state, commit in results.items() if commit is not None]
        assert len(winners) == 1, f"round {round_}: {results}"
        log = asyncio.run(store.read(task_id))
        terminal = [
            e.status.state
            for c in log
            for e in c.events
            if isinstance(e, StatusChanged) and is_terminal(e.status.state)
        ]
        assert terminal == winners
        assert log[-1].state == winners[0]


@pytest.mark.anyio
async def test_push_configs_in_the_task_partition_are_not_log_entries(
    store: DynamoDBTaskStore, local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    ledger = TaskLedger(store)
    claim = await start(ledger, "t1")
    pushes = DynamoDBPushConfigStore(local_aws.clients.dynamodb, aws_resources.table, retention_seconds=DAY)
    await pushes.put("t1", PushNotificationConfig(url="https://hooks.example.com/"))
    assert await store.head("t1") == claim
    assert await store.read("t1", after_seq=claim.first_seq - 1) == [claim]
    assert len(await store.read("t1")) == 2


@pytest.mark.anyio
async def test_a_push_configs_generation_is_an_attribute_beside_its_json_and_old_items_read_as_0_x(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    client = local_aws.clients.dynamodb
    pushes = DynamoDBPushConfigStore(client, aws_resources.table, retention_seconds=DAY)
    await pushes.put(
        "t1",
        PushNotificationConfig(url="https://hooks.example.com/", id="new").model_copy(
            update={"generation": V1_0.version}
        ),
    )
    key = {TABLE.partition_key: {"S": "TASK#t1"}, TABLE.sort_key: {"S": "PUSH#new"}}
    item = client.get_item(TableName=aws_resources.table, Key=key)["Item"]
    assert item["protocol_version"] == {"S": V1_0.version}
    assert set(json.loads(item["config"]["S"])) == {"url", "id", "token", "authentication"}  # no marker

    # An item written before the generation was kept: the config JSON alone.
    old_key = {**key, TABLE.sort_key: {"S": "PUSH#old"}}
    old = {"config": {"S": '{"url":"https://hooks.example.com/old","id":"old"}'}, "created_at": {"N": "1"}}
    client.put_item(TableName=aws_resources.table, Item={**old_key, **old})
    got = await pushes.get("t1", "old")
    assert got is not None
    assert got.generation == V0_3.version
    assert [c.generation for c in await pushes.list("t1")] == [V0_3.version, V1_0.version]


@pytest.mark.anyio
async def test_aws_failures_surface_as_store_unavailable_without_aws_detail(
    local_aws: EmulatedAws, aws_resources: ResourceNames, caplog: pytest.LogCaptureFixture
) -> None:
    missing_table = make_store(local_aws, replace(aws_resources, table="no-such-table"))
    with pytest.raises(StoreUnavailableError) as raised:
        await missing_table.head("t1")
    assert raised.value.message == StoreUnavailableError.default_message
    assert "ResourceNotFoundException" in caplog.text  # the detail goes to the log only
    probe = Commit(
        task_id="t1",
        context_id="ctx",
        first_seq=1,
        events=(MessageAdded(seq=1, message=user_message()),),
        state=TaskState.submitted,
        created_at=0.0,
    )
    with pytest.raises(StoreUnavailableError):
        await missing_table.append(probe)
    with pytest.raises(StoreUnavailableError):
        await missing_table.list_owned("anonymous", IndexQuery(), limit=5)
    with pytest.raises(StoreUnavailableError):
        await missing_table.list_owned("anonymous", IndexQuery(context_id="ctx"), limit=5)
    missing_bucket = make_store(
        local_aws, replace(aws_resources, bucket="no-such-bucket"), offload_threshold=0
    )
    with pytest.raises(StoreUnavailableError):
        await missing_bucket.append(probe)
    pushes = DynamoDBPushConfigStore(local_aws.clients.dynamodb, "no-such-table", retention_seconds=DAY)
    with pytest.raises(StoreUnavailableError):
        await pushes.list("t1")

    healthy = make_store(local_aws, aws_resources)
    await healthy.append(probe)
    with pytest.raises(ConcurrentUpdateError):
        await healthy.append(probe.model_copy(update={"state": TaskState.rejected}))


@pytest.mark.anyio
async def test_a_tasks_items_all_expire_retention_after_the_task_was_created(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    """A task is never cut down to its newest commits: even one continued long after it started
    expires whole (and a push config retention after it was set)."""
    now = [1_700_000_000.25]
    store = make_store(local_aws, aws_resources, retention_seconds=30 * DAY, clock=lambda: now[0])
    pushes = DynamoDBPushConfigStore(
        local_aws.clients.dynamodb, aws_resources.table, retention_seconds=30 * DAY, clock=lambda: now[0]
    )
    ledger = TaskLedger(store, clock=lambda: now[0])
    await ledger.create(task_id="t1", context_id="ctx", message=user_message(), run_id="r")
    await pushes.put("t1", PushNotificationConfig(url="https://hooks.example.com/", id="hook"))
    now[0] += DAY
    await ledger.write("t1", lambda _: Change([status(TaskState.working)]))
    now[0] += 20 * DAY
    await ledger.write("t1", lambda _: Change([status(TaskState.input_required)]))

    expiry = {
        item[TABLE.sort_key]["S"]: int(item[TABLE.ttl_attribute]["N"])
        for item in stored_items(local_aws, aws_resources)
    }
    assert expiry == {
        "EVT#0000000001": 1_700_000_000 + 30 * DAY,
        "EVT#0000000003": 1_700_000_000 + 30 * DAY,
        "EVT#0000000004": 1_700_000_000 + 30 * DAY,
        "PUSH#hook": 1_700_000_000 + 30 * DAY,
    }


@pytest.mark.anyio
async def test_a_commit_that_does_not_know_when_its_task_started_expires_from_now(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    """Commits written before tasks carried their creation time keep the old rule."""
    now = [1_700_000_000.0]
    store = make_store(local_aws, aws_resources, retention_seconds=30 * DAY, clock=lambda: now[0])
    ledger = TaskLedger(store, clock=lambda: now[0])
    await ledger.create(task_id="t1", context_id="ctx", message=user_message(), run_id="r")
    head = await ledger.head("t1")
    legacy = head.model_copy(update={"first_seq": 3, "task_created_at": None})
    now[0] += DAY
    await store.append(legacy)

    expiry = {
        item[TABLE.sort_key]["S"]: int(item[TABLE.ttl_attribute]["N"])
        for item in stored_items(local_aws, aws_resources)
    }
    assert expiry["EVT#0000000003"] == 1_700_000_000 + 31 * DAY


@pytest.mark.anyio
async def test_an_expired_task_reads_as_no_task_before_ttl_deletes_it(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    now = [1_700_000_000.0]
    store = make_store(local_aws, aws_resources, retention_seconds=30 * DAY, clock=lambda: now[0])
    ledger = TaskLedger(store, clock=lambda: now[0])
    await ledger.create(task_id="t1", context_id="ctx", message=user_message(), run_id="r")
    await ledger.write("t1", lambda _: Change([status(TaskState.working)]))
    now[0] += 30 * DAY - 1
    assert [commit.first_seq for commit in await store.read("t1")] == [1, 3]
    assert (await store.head("t1")) is not None

    for query in (IndexQuery(), IndexQuery(context_id="ctx")):
        assert [task.task_id for task in (await store.list_owned("anonymous", query, limit=5)).tasks] == [
            "t1"
        ]
    now[0] += 1  # expired; the items are still in the table until TTL's sweep
    assert len(stored_items(local_aws, aws_resources)) == 2
    for query in (IndexQuery(), IndexQuery(context_id="ctx")):
        assert await store.list_owned("anonymous", query, limit=5) == OwnedTasks((), None)
    assert await store.head("t1") is None
    assert await store.read("t1") == []
    assert await store.read("t1", after_seq=1) == []


@pytest.mark.anyio
async def test_a_class_filter_that_skips_most_entries_pages_with_bounded_scans(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    store = make_store(local_aws, aws_resources, scan_limit=4)
    ledger = TaskLedger(store)
    for i in range(12):
        await ledger.create(
            task_id=f"t{i:02d}", context_id="ctx", message=user_message(), run_id="r", owner="o"
        )
        if i in (1, 9):
            await ledger.write(f"t{i:02d}", lambda _: Change([status(TaskState.rejected)]))

    pages = []
    after = None
    while True:
        page = await store.list_owned("o", IndexQuery(listed="rejected"), after=after, limit=5)
        pages.append([task.task_id for task in page.tasks])
        if page.next_position is None:
            break
        after = page.next_position
    assert sorted(task_id for page in pages for task_id in page) == ["t01", "t09"]
    assert len(pages) >= 3  # each call examined at most 4 entries, so it took several


@pytest.mark.anyio
async def test_an_owner_too_long_for_an_index_key_is_indexed_by_its_digest(
    store: DynamoDBTaskStore, local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    ledger = TaskLedger(store)
    long_owner = "jwt:" + "x" * 3000  # DynamoDB refuses index keys over 2,048 bytes
    await ledger.create(task_id="t1", context_id="ctx", message=user_message(), run_id="r", owner=long_owner)
    await ledger.create(task_id="t2", context_id="ctx", message=user_message(), run_id="r", owner="jwt:short")
    for query in (IndexQuery(), IndexQuery(context_id="ctx")):
        assert [task.task_id for task in (await store.list_owned(long_owner, query, limit=5)).tasks] == ["t1"]
        assert [task.task_id for task in (await store.list_owned("jwt:short", query, limit=5)).tasks] == [
            "t2"
        ]
    (first,) = [item for item in stored_items(local_aws, aws_resources) if item[TASK_ID]["S"] == "t1"]
    assert first[TABLE.list_key]["S"].startswith("sha256:")
    assert first[TABLE.owner_key]["S"].startswith("context:")


@pytest.mark.anyio
async def test_generations_read_the_same_from_a_fresh_instance(
    store: DynamoDBTaskStore, local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    ledger = TaskLedger(store, snapshot_every=2)
    await ledger.create(task_id="gens", context_id="ctx", message=user_message("go"), run_id="r")
    claim = RunLease(run_id="r", lease_until=time.time() + 900, attempt=1, turn=1)
    await ledger.write("gens", lambda _: Change([status(TaskState.working)], run=claim))
    for index in range(3):
        chunk = Artifact(artifact_id="a", parts=[TextPart(text=f"c{index}")])
        update = ArtifactUpdated(seq=0, artifact=chunk, append=index > 0)
        await ledger.write("gens", always(Change([update])))
    await ledger.write("gens", lambda _: Change([status(TaskState.input_required, agent_message("more?"))]))
    follow_up = RunLease(run_id="r2", turn=2, resumed_from=TaskState.input_required)
    more = MessageAdded(seq=0, message=user_message("yes", task_id="gens"))
    await ledger.write("gens", lambda _: Change([more, status(TaskState.working)], run=follow_up))
    await ledger.write("gens", lambda _: Change([status(TaskState.completed)]))

    # Submitted, working, 3 chunks, input-required, working, completed: 8 updates.
    assert (await ledger.load("gens")).generation == 8
    fresh = TaskLedger(make_store(local_aws, aws_resources))  # another instance, nothing cached
    log = await fresh.store.read("gens")
    assert (await fresh.load("gens")).generation == 8
    assert [(await fresh.view("gens", through=c.first_seq)).task.generation for c in log] == [
        generation_of(c) for c in log
    ]
    assert [generation_of(c) for c in log] == [1, 2, 3, 4, 5, 6, 7, 8]

    # A stream served by that other instance, from the start and from a cursor, says the same.
    streams = TaskStreams(TaskEngine(fresh, InMemoryBroker()))
    followed = [item.result async for item in streams.follow("gens", "ctx", 0, to_terminal=True)]
    assert [getattr(update, "generation", None) for update in followed] == [1, 2, 3, 4, 5, 6, 7, 8]
    subscribed = await streams.subscribe(TaskRef("gens", after_generation=5), Caller())
    assert [getattr(item.result, "generation", None) async for item in subscribed] == [6, 7, 8]
