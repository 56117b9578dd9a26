"""The local backend's journal and run recovery, on moto's real server: what dev keeps across
restarts (`a2a_core.emulator.journal`) and how it resumes the runs a dead process was in
(`a2a_core.emulator.recovery`). A "restart" is a second, fresh emulator with the same names."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import JsonValue

from a2a_core.aws.blobs import S3Blobs
from a2a_core.aws.clients import AwsClients, build_clients
from a2a_core.aws.dynamodb.context_store import DynamoDBContextStore
from a2a_core.aws.dynamodb.push_store import DynamoDBPushConfigStore
from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore
from a2a_core.aws.resources import ResourceNames, create_all
from a2a_core.core.broker import InMemoryBroker, RunOperation
from a2a_core.core.tasklog.changes import Change, status
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.records import ArtifactUpdated, RunLease
from a2a_core.core.turn.executor import TaskContext, as_executor
from a2a_core.core.turn.worker import Worker
from a2a_core.domain import Artifact, Message, PushNotificationConfig, Role, TaskState, TextPart
from a2a_core.emulator.journal import Restored, WriteJournal, read, restore
from a2a_core.emulator.moto_server import EmulatedAws
from a2a_core.emulator.recovery import resume_runs, unfinished_tasks

pytestmark = pytest.mark.anyio


@dataclass
class Backend:
    """One dev process's view of the emulator: its own clients and the resources' names."""

    clients: AwsClients
    names: ResourceNames


class Emulators:
    """Consecutive dev processes: each starts with its own clients on emptied resources of the
    same names, as a new process gets from a new emulator. (moto's servers in one process share
    their state, so the test empties the resources instead of starting another server.)"""

    def __init__(self, local_aws: EmulatedAws) -> None:
        self.local_aws = local_aws
        self.prefix = f"a2a-journal-{uuid.uuid4().hex[:8]}"
        self.names: ResourceNames | None = None

    def start(self) -> Backend:
        aws = self.local_aws
        # dev's clients: botocore's, whose events the journal hooks into (`emulator.moto_server`).
        clients = build_clients(aws.region, aws.endpoint_url, credentials=aws.credentials, sdk="botocore")
        if self.names is not None:
            clients.dynamodb.delete_table(TableName=self.names.table)
            for item in clients.s3.list_objects_v2(Bucket=self.names.bucket).get("Contents", []):
                clients.s3.delete_object(Bucket=self.names.bucket, Key=item["Key"])
            clients.s3.delete_bucket(Bucket=self.names.bucket)
        self.names = create_all(
            dynamodb=clients.dynamodb, sqs=clients.sqs, s3=clients.s3, prefix=self.prefix, region=aws.region
        )
        return Backend(clients, self.names)


@pytest.fixture
def emulators(local_aws: EmulatedAws) -> Emulators:
    return Emulators(local_aws)


def task_store(aws: Backend, threshold: int = 300_000) -> DynamoDBTaskStore:
    blobs = S3Blobs(lambda: aws.clients.s3, aws.names.bucket)
    return DynamoDBTaskStore(
        aws.clients.dynamodb,
        aws.names.table,
        blobs=blobs,
        retention_seconds=3600,
        offload_threshold=threshold,
    )


def journaled(aws: Backend, path: Path) -> WriteJournal:
    journal = WriteJournal(path)
    journal.attach(aws.clients.dynamodb)
    journal.attach(aws.clients.s3)
    return journal


def restart(emulators: Emulators, path: Path) -> tuple[Backend, Restored]:
    aws = emulators.start()
    restored = restore(
        path,
        dynamodb=aws.clients.dynamodb,
        s3=aws.clients.s3,
        table=aws.names.table,
        bucket=aws.names.bucket,
        now=time.time(),
    )
    return aws, restored


async def value(contexts: DynamoDBContextStore, context_id: str) -> JsonValue:
    loaded = await contexts.load_context(context_id)
    assert loaded is not None
    return loaded.value


def one_more_turn(current: JsonValue) -> JsonValue:
    turns = current["turns"] if isinstance(current, dict) else 0
    assert isinstance(turns, int)
    return {"turns": turns + 1}


def message(text: str) -> Message:
    return Message(role=Role.user, message_id=f"m-{text}", parts=[TextPart(text=text)])


async def test_every_acknowledged_write_is_there_after_a_restart(
    emulators: Emulators, tmp_path: Path
) -> None:
    path = tmp_path / "journal.jsonl"
    first = emulators.start()
    journal = journaled(first, path)
    ledger = TaskLedger(task_store(first, threshold=2048))
    await ledger.create(task_id="t1", context_id="c1", message=message("one"), run_id="r1")
    big = Artifact(artifact_id="a", parts=[TextPart(text="x" * 5000)])  # over the threshold: S3
    await ledger.write(
        "t1", lambda head: Change([status(TaskState.working), ArtifactUpdated(seq=0, artifact=big)])
    )
    await ledger.create(task_id="t2", context_id="c1", message=message("two"), run_id="r2")
    contexts = DynamoDBContextStore(first.clients.dynamodb, first.names.table, retention_seconds=3600)
    await contexts.update("c1", lambda _: {"notes": ["kept"]})
    pushes = DynamoDBPushConfigStore(first.clients.dynamodb, first.names.table, retention_seconds=3600)
    await pushes.put("t1", PushNotificationConfig(url="https://hooks.example.com/a", id="keep"))
    await pushes.put("t1", PushNotificationConfig(url="https://hooks.example.com/b", id="drop"))
    await pushes.delete("t1", "drop")
    expected = [await ledger.load("t1"), await ledger.load("t2")]
    journal.close()

    second, restored = restart(emulators, path)
    again = TaskLedger(task_store(second, threshold=2048))
    assert [await again.load("t1"), await again.load("t2")] == expected
    assert restored.tasks == 2
    assert restored.objects == 1  # the offloaded commit body
    assert restored.failed == 0
    contexts = DynamoDBContextStore(second.clients.dynamodb, second.names.table, retention_seconds=3600)
    assert await value(contexts, "c1") == {"notes": ["kept"]}
    pushes = DynamoDBPushConfigStore(second.clients.dynamodb, second.names.table, retention_seconds=3600)
    assert [c.id for c in await pushes.list("t1")] == ["keep"]
    # Compacted: one put per item and object that exists, which restores the same again.
    entries = list(read(path))
    assert len(entries) == restored.items + restored.objects
    assert {operation for _, operation, _ in entries} == {"PutItem", "PutObject"}
    third, _ = restart(emulators, path)
    assert await TaskLedger(task_store(third, threshold=2048)).load("t1") == expected[0]


async def test_racing_writers_are_journaled_in_the_order_the_emulator_applied_them(
    emulators: Emulators, tmp_path: Path
) -> None:
    path = tmp_path / "journal.jsonl"
    first = emulators.start()
    journaled(first, path)
    contexts = DynamoDBContextStore(first.clients.dynamodb, first.names.table, retention_seconds=3600)

    async def add_turns() -> None:
        for _ in range(10):
            await contexts.update("busy", one_more_turn)

    await asyncio.gather(*(add_turns() for _ in range(6)))  # conditional updates racing on one head
    assert await value(contexts, "busy") == {"turns": 60}

    second, _ = restart(emulators, path)
    restored = DynamoDBContextStore(second.clients.dynamodb, second.names.table, retention_seconds=3600)
    assert await value(restored, "busy") == {"turns": 60}


async def test_a_line_torn_by_a_kill_is_skipped_and_expired_items_are_dropped(
    emulators: Emulators, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "journal.jsonl"
    first = emulators.start()
    journal = journaled(first, path)
    ledger = TaskLedger(task_store(first))
    await ledger.create(task_id="kept", context_id="c", message=message("kept"), run_id="r")
    expired = {"pk": {"S": "CTX#old"}, "sk": {"S": "HEAD"}, "expires_at": {"N": str(int(time.time()) - 60)}}
    first.clients.dynamodb.put_item(TableName=first.names.table, Item=expired)
    journal.close()
    with path.open("ab") as out:
        out.write(b'{"service":"dynamodb","operation":"PutItem","params":{"TableName":"a2a-jour')

    second, restored = restart(emulators, path)
    assert (await TaskLedger(task_store(second)).load("kept")).id == "kept"
    assert "incomplete and was skipped" in caplog.text
    assert (
        second.clients.dynamodb.get_item(
            TableName=second.names.table, Key={"pk": {"S": "CTX#old"}, "sk": {"S": "HEAD"}}
        ).get("Item")
        is not None
    )
    assert "CTX#old" not in path.read_text()  # compaction, like TTL's sweep, dropped it
    assert restored.tasks == 1


# Recovery: what a dead process was running is run again, as the deployed queue would.


async def agent(ctx: TaskContext) -> str:
    return f"done: {ctx.text}"


@pytest.fixture
def aws(emulators: Emulators) -> Backend:
    return emulators.start()


async def claimed(ledger: TaskLedger, task_id: str, *, attempt: int) -> None:
    """The task created and its turn claimed by a worker that then died (lease 900 s ahead)."""
    await ledger.create(task_id=task_id, context_id="c", message=message(task_id), run_id=f"run-{task_id}")
    lease = RunLease(run_id=f"run-{task_id}", lease_until=time.time() + 900, attempt=attempt)
    await ledger.write(task_id, lambda head: Change([status(TaskState.working)], run=lease))


async def test_a_dead_process_s_claimed_turn_is_released_and_run_as_the_next_attempt(aws: Backend) -> None:
    ledger = TaskLedger(task_store(aws))
    await claimed(ledger, "claimed", attempt=1)
    await ledger.create(task_id="queued", context_id="c", message=message("queued"), run_id="run-queued")
    await ledger.create(task_id="asking", context_id="c", message=message("asking"), run_id="run-asking")
    await ledger.write(
        "asking", lambda head: Change([status(TaskState.working), status(TaskState.input_required)])
    )
    await ledger.create(task_id="done", context_id="c", message=message("done"), run_id="run-done")
    await ledger.write("done", lambda head: Change([status(TaskState.working), status(TaskState.completed)]))

    assert sorted(unfinished_tasks(aws.clients.dynamodb, aws.names.table)) == ["claimed", "queued"]
    broker = InMemoryBroker()
    resumed = await resume_runs(ledger, broker, unfinished_tasks(aws.clients.dynamodb, aws.names.table))
    assert sorted(op.task_id for op in resumed) == ["claimed", "queued"]
    head = await ledger.head("claimed")
    assert head.run == RunLease(run_id="run-claimed", lease_until=None, attempt=1)  # released, count kept
    assert (await ledger.head("queued")).first_seq == 1  # nothing to release: no write

    worker = Worker(ledger, as_executor(agent))  # the deployed worker, its rules unchanged
    while (operation := await broker.receive(timeout=0)) is not None:
        await worker.handle(operation)
    task = await ledger.load("claimed")
    assert task.status.state == TaskState.completed
    assert (await ledger.head("claimed")).run.attempt == 2  # type: ignore[union-attr]
    assert (await ledger.load("queued")).status.state == TaskState.completed


async def test_a_run_that_keeps_killing_dev_is_failed_after_the_deployed_attempt_limit(aws: Backend) -> None:
    ledger = TaskLedger(task_store(aws))
    await claimed(ledger, "crashy", attempt=3)  # the third attempt died with the process
    broker = InMemoryBroker()
    await resume_runs(ledger, broker, ["crashy"])
    operation = await broker.receive(timeout=0)
    assert operation == RunOperation(task_id="crashy", run_id="run-crashy")
    await Worker(ledger, as_executor(agent)).handle(operation)
    task = await ledger.load("crashy")
    assert task.status.state == TaskState.failed
    assert "after 3 attempts" in json.dumps(task.status.model_dump(mode="json"))


async def test_resuming_twice_releases_once_and_enqueues_the_same_turn(aws: Backend) -> None:
    ledger = TaskLedger(task_store(aws))
    await claimed(ledger, "twice", attempt=1)
    broker = InMemoryBroker()
    await resume_runs(ledger, broker, ["twice", "missing"])
    released = await ledger.head("twice")
    await resume_runs(ledger, broker, ["twice"])
    assert await ledger.head("twice") == released
    assert len(broker) == 1  # the same operation: deduplicated, and harmless to a worker anyway
