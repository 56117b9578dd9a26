"""ListTasks across an upgrade, on DynamoDB (moto's server): tasks the previous version wrote are
listed once `list_migration` ran (and a previous version's worker finishing a task this version
created, during a deploy, too); an entry a writer failed to move costs a read, never a wrong page.
"""

from __future__ import annotations

import time

import pytest

from a2a_core.aws.blobs import S3Blobs
from a2a_core.aws.dynamodb.keys import event_key, index_owner, task_key
from a2a_core.aws.dynamodb.list_migration import migrate
from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore
from a2a_core.aws.resources import TABLE, ResourceNames
from a2a_core.core.engine import TaskEngine
from a2a_core.core.errors import StoreUnavailableError
from a2a_core.core.requests import ListTasksQuery
from a2a_core.core.tasklog.records import Commit, MessageAdded, StatusChanged
from a2a_core.core.tasklog.store import IndexQuery
from a2a_core.domain import Message, Role, TaskState, TaskStatus, TextPart
from a2a_core.emulator.moto_server import EmulatedAws
from clock import Clock
from list_support import ALICE, ids, list_all, make_engine, seed

pytestmark = pytest.mark.anyio


def make_store(aws: EmulatedAws, names: ResourceNames) -> DynamoDBTaskStore:
    return DynamoDBTaskStore(
        aws.clients.dynamodb,
        names.table,
        blobs=S3Blobs(lambda: aws.clients.s3, names.bucket),
        retention_seconds=365 * 24 * 3600,
    )


def previous_version_commit(task_id: str, seq: int, state: TaskState, *, context_id: str = "c1") -> Commit:
    """A commit as the previous version wrote it: no `Commit.listing`."""
    status = StatusChanged(seq=seq + 1, status=TaskStatus(state=state, timestamp="2030-01-01T00:00:00Z"))
    message = Message(role=Role.user, parts=[TextPart(text="hi")], message_id=f"m-{task_id}")
    events = (MessageAdded(seq=1, message=message), status) if seq == 1 else (status,)
    return Commit(
        task_id=task_id,
        context_id=context_id,
        first_seq=seq,
        events=events,
        state=state,
        created_at=time.time(),
        owner=ALICE.principal,
    )


def as_previous_version_wrote_it(aws: EmulatedAws, names: ResourceNames, task_id: str) -> None:
    """Turn a first commit's item into the previous version's: the owner index keyed by owner,
    and no listing index entry."""
    aws.clients.dynamodb.update_item(
        TableName=names.table,
        Key={TABLE.partition_key: {"S": task_key(task_id)}, TABLE.sort_key: {"S": event_key(1)}},
        UpdateExpression="SET #owner = :owner REMOVE #lo, #la",
        ExpressionAttributeNames={
            "#owner": TABLE.owner_key,
            "#lo": TABLE.list_key,
            "#la": TABLE.list_sort_key,
        },
        ExpressionAttributeValues={":owner": {"S": index_owner(ALICE.principal)}},
    )


async def test_tasks_the_previous_version_wrote_are_listed_once_migrated(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    store = make_store(local_aws, aws_resources)
    engine = make_engine(store, Clock(time.time()))
    for task_id, states in (("old-done", [TaskState.working, TaskState.completed]), ("old-queued", [])):
        await store.append(previous_version_commit(task_id, 1, TaskState.submitted))
        for seq, state in enumerate(states, 3):
            await store.append(previous_version_commit(task_id, seq, state))
        as_previous_version_wrote_it(local_aws, aws_resources, task_id)
    # Created by this version; a previous version's worker (during the deploy) completed it.
    new = await seed(engine, Clock(time.time()), ALICE, TaskState.submitted, context_id="c1")
    await store.append(previous_version_commit(new.task_id, 3, TaskState.completed))

    completed = ListTasksQuery(state=TaskState.completed)
    assert ids(await list_all(engine, ALICE, completed)) == []
    # Before the migration, as after, the owner has its tasks, and no one else.
    assert await store.owned("old-done", ALICE.principal) is True
    assert await store.owned("old-done", "api_key:mallory") is False
    assert ids(await list_all(engine, ALICE, ListTasksQuery(context_id="c1"))) == [new.task_id]

    assert await migrate(local_aws.clients.dynamodb, aws_resources.table, store) == 3
    assert sorted(ids(await list_all(engine, ALICE, completed))) == sorted(["old-done", new.task_id])
    assert ids(await list_all(engine, ALICE, ListTasksQuery(state=TaskState.submitted))) == ["old-queued"]
    assert sorted(ids(await list_all(engine, ALICE, ListTasksQuery(context_id="c1")))) == sorted(
        ["old-done", "old-queued", new.task_id]
    )
    assert len(ids(await list_all(engine, ALICE, ListTasksQuery()))) == 3  # each once
    assert await migrate(local_aws.clients.dynamodb, aws_resources.table, store) == 0  # idempotent
    assert await store.owned("old-done", ALICE.principal) is True
    assert await store.owned("old-done", "api_key:mallory") is False


class _UnlistFails(DynamoDBTaskStore):
    async def unlist(self, task_id: str, seq: int) -> None:
        raise StoreUnavailableError()


async def test_an_entry_a_writer_failed_to_remove_is_never_shown(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    store = _UnlistFails(
        local_aws.clients.dynamodb,
        aws_resources.table,
        blobs=S3Blobs(lambda: local_aws.clients.s3, aws_resources.bucket),
        retention_seconds=365 * 24 * 3600,
    )
    clock = Clock(time.time())
    engine: TaskEngine = make_engine(store, clock)
    done = await seed(engine, clock, ALICE, TaskState.completed)  # its entry stays on its first commit too
    working = await seed(engine, clock, ALICE, TaskState.working)
    entries = (await store.list_owned(ALICE.principal, IndexQuery(listed="active"), limit=10)).tasks
    assert sorted(entry.task_id for entry in entries) == sorted([done.task_id, working.task_id])

    page = await engine.list_tasks(ListTasksQuery(state=TaskState.working), ALICE)
    assert [task.id for task in page.tasks] == [working.task_id]
    plain = await engine.list_tasks(ListTasksQuery(), ALICE)
    assert [task.id for task in plain.tasks] == [working.task_id, done.task_id]  # once, where it is now
