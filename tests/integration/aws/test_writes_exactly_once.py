"""A context or session write whose answer is lost, then another worker's write, then the
client's resend: the update is stored exactly once (the resend is recognised by its write id)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from pydantic import JsonValue

from a2a_core.aws.clients import build_clients
from a2a_core.aws.dynamodb.context_store import DynamoDBContextStore
from a2a_core.aws.dynamodb.session_store import DynamoDBSessionStore
from a2a_core.aws.http_pool import HttpResponse
from a2a_core.aws.json_client import AwsJsonClient
from a2a_core.aws.resources import ResourceNames
from a2a_core.emulator.moto_server import EmulatedAws

pytestmark = pytest.mark.anyio

DAY = 24 * 3600


def plus_one(current: JsonValue | None) -> JsonValue:
    assert isinstance(current, int)
    return current + 1


async def test_a_lost_answer_then_another_write_then_the_resend_applies_the_update_once(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    other = DynamoDBContextStore(local_aws.clients.dynamodb, aws_resources.table, retention_seconds=DAY)
    client = build_clients(local_aws.region, local_aws.endpoint_url).dynamodb
    assert isinstance(client, AwsJsonClient)  # the client the worker writes with
    send = client.transport
    interfered: list[int] = []
    armed: list[bool] = []

    def lose_first_update_answer(method: str, headers: dict[str, str], body: bytes) -> HttpResponse:
        answer = send(method, headers, body)
        if (
            headers["X-Amz-Target"].endswith(".UpdateItem")
            and armed
            and not interfered
            and answer.status == 200
        ):
            # A's write landed; B writes before A's client sends it again (the answer was lost).
            interfered.append(1)
            asyncio.run(other.update("c1", plus_one))
            raise ConnectionResetError("the answer was lost")
        return answer

    client.transport = lose_first_update_answer
    mine = DynamoDBContextStore(client, aws_resources.table, retention_seconds=DAY)
    await mine.update_context("c1", 1, expected_version=0)
    calls: list[JsonValue | None] = []
    armed.append(True)

    def counted(current: JsonValue | None) -> JsonValue:
        calls.append(current)
        return plus_one(current)

    stored = await mine.update("c1", counted)
    assert interfered == [1]
    loaded = await other.load_context("c1")
    assert loaded is not None
    assert (loaded.value, loaded.version) == (3, 3)  # 1, A's +1 and B's +1: each once
    assert calls == [1]  # A's function ran once
    assert (stored.value, stored.version) == (2, 2)


def _losing_answer(
    client: AwsJsonClient, operation: str, between: Callable[[], Awaitable[object]]
) -> list[str]:
    """Make ``client`` lose the answer to its next ``operation`` once it landed, after running
    ``between`` (another worker's write) and before the client sends the call again."""
    send = client.transport
    lost: list[str] = []

    def transport(method: str, headers: dict[str, str], body: bytes) -> HttpResponse:
        answer = send(method, headers, body)
        if headers["X-Amz-Target"].endswith(f".{operation}") and not lost and answer.status == 200:
            lost.append(operation)
            asyncio.run(between())  # type: ignore[arg-type]
            raise ConnectionResetError("the answer was lost")
        return answer

    client.transport = transport
    return lost


async def test_a_lost_append_answer_then_another_append_stores_each_entry_once(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    other = DynamoDBSessionStore(local_aws.clients.dynamodb, aws_resources.table, retention_seconds=DAY)
    client = build_clients(local_aws.region, local_aws.endpoint_url).dynamodb
    assert isinstance(client, AwsJsonClient)
    mine = DynamoDBSessionStore(client, aws_resources.table, retention_seconds=DAY)
    await mine.append("s1", "first")
    lost = _losing_answer(client, "PutItem", lambda: other.append("s1", "theirs"))
    assert await mine.append("s1", "mine") == 2
    assert lost == ["PutItem"]
    assert [(e.seq, e.value) for e in await other.read_entries("s1")] == [
        (1, "first"),
        (2, "mine"),
        (3, "theirs"),
    ]


async def test_a_lost_record_answer_then_another_write_applies_the_update_once(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    other = DynamoDBSessionStore(local_aws.clients.dynamodb, aws_resources.table, retention_seconds=DAY)
    client = build_clients(local_aws.region, local_aws.endpoint_url).dynamodb
    assert isinstance(client, AwsJsonClient)
    mine = DynamoDBSessionStore(client, aws_resources.table, retention_seconds=DAY)
    await mine.save_record("s1", "count", 1, expected_version=0)
    lost = _losing_answer(client, "UpdateItem", lambda: other.update_record("s1", "count", plus_one))
    calls: list[JsonValue | None] = []

    def counted(current: JsonValue | None) -> JsonValue:
        calls.append(current)
        return plus_one(current)

    await mine.update_record("s1", "count", counted)
    assert lost == ["UpdateItem"]
    stored = await other.load_record("s1", "count")
    assert stored is not None
    assert (stored.value, stored.version, calls) == (3, 3, [1])
