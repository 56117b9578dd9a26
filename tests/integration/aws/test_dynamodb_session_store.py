"""DynamoDBSessionStore's layout on moto: one item per entry, appends that write only what they
append, large values in the bucket under the task bodies' prefix, TTL. The shared behaviour is
in tests/contract/test_session_store.py."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import JsonValue

from a2a_core.aws.blobs import S3Blobs
from a2a_core.aws.dynamodb.session_store import BODY_PREFIX, DynamoDBSessionStore, session_key
from a2a_core.aws.resources import TABLE, ResourceNames
from a2a_core.core.turn.session_store import NO_RECORD
from a2a_core.emulator.moto_server import EmulatedAws
from clock import Clock

pytestmark = pytest.mark.anyio

DAY = 86400


def store(aws: EmulatedAws, names: ResourceNames, **options: object) -> DynamoDBSessionStore:
    return DynamoDBSessionStore(
        aws.clients.dynamodb,
        names.table,
        retention_seconds=DAY,
        blobs=S3Blobs(lambda: aws.clients.s3, names.bucket),
        **options,  # type: ignore[arg-type]
    )


def items(aws: EmulatedAws, names: ResourceNames, session: str) -> list[dict[str, Any]]:
    return aws.clients.dynamodb.query(
        TableName=names.table,
        KeyConditionExpression="#pk = :pk",
        ExpressionAttributeNames={"#pk": TABLE.partition_key},
        ExpressionAttributeValues={":pk": {"S": session_key(session)}},
    )["Items"]


async def test_each_entry_is_an_item_of_its_own_written_once(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    sessions = store(local_aws, aws_resources)
    for n in range(3):
        await sessions.append("s", {"n": n})
    first = {i["sk"]["S"]: i for i in items(local_aws, aws_resources, "s")}
    await sessions.append("s", {"n": 3})
    after = {i["sk"]["S"]: i for i in items(local_aws, aws_resources, "s")}
    assert sorted(after) == [f"LOG#{n:012d}" for n in range(1, 5)]
    assert all(after[key] == item for key, item in first.items())  # nothing rewritten


async def test_large_values_go_to_the_bucket_under_the_task_bodies_prefix(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    sessions = store(local_aws, aws_resources, offload_bytes=100)
    big: JsonValue = {"text": "x" * 500_000}
    await sessions.append("s", big)
    await sessions.save_record("s", "r", big, expected_version=NO_RECORD)
    listing = local_aws.clients.s3.list_objects_v2(Bucket=aws_resources.bucket)
    keys = [obj["Key"] for obj in listing.get("Contents", [])]
    assert len(keys) == 2
    assert all(key.startswith(BODY_PREFIX) for key in keys)
    assert all(len(str(item)) < 2000 for item in items(local_aws, aws_resources, "s"))
    (entry,) = await sessions.read_entries("s")
    record = await sessions.load_record("s", "r")
    assert entry.value == big
    assert record is not None
    assert record.value == big


async def test_items_past_their_ttl_read_as_gone(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    clock = Clock()
    sessions = store(local_aws, aws_resources, clock=clock)
    await sessions.append("s", "old")
    await sessions.save_record("s", "r", "old", expected_version=NO_RECORD)
    clock.now += DAY + 1
    assert await sessions.read_entries("s") == []
    assert await sessions.load_record("s", "r") is None
    assert await sessions.append("s", "new") == 1  # the number is free again
    assert await sessions.save_record("s", "r", "new", expected_version=NO_RECORD) == 2  # versions only grow
