"""A turn answered with a message and no task (`TaskContext.reply`), over HTTP: A2A 1.0's
SendMessageResponse ``{"message": ...}`` (JSON-RPC and HTTP+JSON), 0.3's Message result, and a
stream of that one Message in each (1.0 spec 3.1.2: "a Message-only stream ... MUST contain
exactly one Message object and then close"); the caller's ``A2A-Extensions`` reach the agent."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest

from a2a_core import TaskContext
from a2a_core.compose.app import compose_app
from schema_0_2_5 import violations
from support import Stack

pytestmark = pytest.mark.anyio

V1 = {"A2A-Version": "1.0"}
EXTENSION = "https://example.com/ext/citations/v1"
SEEN: list[tuple[str, ...]] = []


async def answers(ctx: TaskContext) -> None:
    SEEN.append(ctx.extensions)
    await ctx.reply(f"You said {ctx.text}.")


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    stack = Stack(answers)
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    async with (
        httpx.AsyncClient(transport=transport, base_url="http://agent.test") as http,
        anyio.create_task_group() as workers,
    ):
        workers.start_soon(_work, stack)  # the worker a deployment runs beside the API
        yield http
        workers.cancel_scope.cancel()


async def _work(stack: Stack) -> None:
    while True:
        await stack.drain()
        await anyio.sleep(0.005)


def v1_message() -> dict[str, Any]:
    return {"role": "ROLE_USER", "messageId": str(uuid.uuid4()), "parts": [{"text": "hi"}]}


def v0_message() -> dict[str, Any]:
    return {
        "kind": "message",
        "role": "user",
        "messageId": str(uuid.uuid4()),
        "parts": [{"kind": "text", "text": "hi"}],
    }


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}


def events(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.headers["content-type"].startswith("text/event-stream")
    return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]


def assert_v1_answer(message: dict[str, Any]) -> None:
    assert message["role"] == "ROLE_AGENT"
    assert message["parts"] == [{"text": "You said hi."}]
    assert "taskId" not in message  # no task to track
    assert message["contextId"]


async def test_1_0_json_rpc_answers_with_a_message(client: httpx.AsyncClient) -> None:
    headers = {**V1, "A2A-Extensions": EXTENSION}
    body = (
        await client.post("/", json=rpc("SendMessage", {"message": v1_message()}), headers=headers)
    ).json()
    assert set(body["result"]) == {"message"}
    assert_v1_answer(body["result"]["message"])
    assert (EXTENSION,) in SEEN


async def test_1_0_http_json_answers_with_a_message(client: httpx.AsyncClient) -> None:
    response = await client.post("/message:send", json={"message": v1_message()}, headers=V1)
    assert response.status_code == 200
    assert set(response.json()) == {"message"}
    assert_v1_answer(response.json()["message"])


async def test_0_3_answers_with_a_message(client: httpx.AsyncClient) -> None:
    body = (await client.post("/", json=rpc("message/send", {"message": v0_message()}))).json()
    result = body["result"]
    assert (result["kind"], result["role"], result["parts"]) == (
        "message",
        "agent",
        [{"kind": "text", "text": "You said hi."}],
    )
    assert violations("Message", result) == []


async def test_each_stream_is_the_message_alone(client: httpx.AsyncClient) -> None:
    rpc_v1 = await client.post("/", json=rpc("SendStreamingMessage", {"message": v1_message()}), headers=V1)
    (only,) = events(rpc_v1)
    assert set(only["result"]) == {"message"}
    assert_v1_answer(only["result"]["message"])

    rest = await client.post("/message:stream", json={"message": v1_message()}, headers=V1)
    (only,) = events(rest)
    assert set(only) == {"message"}
    assert_v1_answer(only["message"])

    rpc_v0 = await client.post("/", json=rpc("message/stream", {"message": v0_message()}))
    (only,) = events(rpc_v0)
    assert only["result"]["kind"] == "message"
    assert violations("Message", only["result"]) == []


async def test_extensions_are_read_from_either_generations_header_once_each(
    client: httpx.AsyncClient,
) -> None:
    headers = [
        ("A2A-Extensions", "urn:a, urn:b"),
        ("X-A2A-Extensions", "urn:b,urn:c"),
        ("A2A-Extensions", "urn:d"),
    ]
    SEEN.clear()
    await client.post("/", json=rpc("message/send", {"message": v0_message()}), headers=headers)
    assert SEEN == [("urn:a", "urn:b", "urn:d", "urn:c")]
