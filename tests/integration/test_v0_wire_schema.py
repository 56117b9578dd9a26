"""The 0.2.5 wire as it really travels, held to the official schema: every request our client
sends over 0.3/0.2.5 JSON-RPC, every answer and stream event our server writes back, and every
error object the server can answer with (`schema_0_2_5.ENVELOPE`).

The types inside the envelope (tasks, messages, parts, push configs, the 0.x params) are checked
one by one in `tests/unit/test_schema.py`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
import pytest

from a2a_core.client import A2AClient
from a2a_core.client.errors import error_from_wire
from a2a_core.compose.app import compose_app
from a2a_core.core.errors import PROTOCOL_ERRORS, TaskNotFoundError
from a2a_core.domain import PushNotificationConfig, Task, TaskState
from a2a_core.examples.echo import agent as echo
from a2a_core.protocol.versions import Version
from a2a_core.push.urls import UrlPolicy
from schema_0_2_5 import (
    DEFS,
    ENVELOPE,
    ERROR_OBJECTS,
    METHODS,
    REQUEST_ENVELOPES,
    RESPONSE_ENVELOPES,
    violations,
)
from support import Stack

pytestmark = pytest.mark.anyio

BASE = "http://agent.test/"
HOOK = "https://hooks.example.com/a2a"
# 0.2.5 requires them in every configuration (our client leaves them out unless told: most servers
# take their absence as "any").
MODES = ["text/plain"]


async def public_dns(host: str, port: int) -> list[str]:
    return ["93.184.215.14"]  # no DNS here: the push URL check sees a public address


@dataclass
class Exchange:
    request: dict[str, Any]
    # The JSON answer, or each streamed event's data.
    answers: list[dict[str, Any]] = field(default_factory=list)


class Recorder(httpx.AsyncBaseTransport):
    """The app in process, every JSON-RPC exchange kept as it went over the wire."""

    def __init__(self, stack: Stack) -> None:
        self.app = httpx.ASGITransport(app=compose_app(stack.service))
        self.exchanges: list[Exchange] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.app.handle_async_request(request)
        body = await response.aread()
        exchange = Exchange(json.loads(request.content))
        if response.headers["content-type"].startswith("text/event-stream"):
            data = [line.removeprefix("data:").strip() for line in body.decode().splitlines()]
            exchange.answers = [json.loads(line) for line in data if line.startswith("{")]
        else:
            exchange.answers = [json.loads(body)]
        self.exchanges.append(exchange)
        return httpx.Response(response.status_code, headers=response.headers, content=body)


@pytest.fixture
async def recorded() -> AsyncIterator[tuple[A2AClient, Stack, Recorder]]:
    stack = Stack(echo, push_enabled=True)
    assert stack.service.push is not None
    stack.service.push.policy = UrlPolicy(resolver=public_dns)
    recorder = Recorder(stack)
    async with (
        httpx.AsyncClient(transport=recorder, base_url=BASE) as http,
        A2AClient(BASE, rpc_url=BASE, httpx_client=http, protocol_version="0.3") as client,
    ):
        yield client, stack, recorder


async def _work(stack: Stack) -> None:
    while True:  # the worker a deployment runs, so streams reach their final event
        await stack.drain()
        await anyio.sleep(0.005)


async def converse(client: A2AClient, stack: Stack) -> None:
    """Every 0.x method, as a user of our client calls them."""
    config = PushNotificationConfig(url=HOOK, id="on-send", token="t0k3n")
    task = await client.send_message(
        "hello", blocking=False, push_config=config, metadata={"k": 1}, accepted_output_modes=MODES
    )
    assert isinstance(task, Task)
    await stack.drain()
    assert (await client.get_task(task.id, history_length=1)).status.state == TaskState.completed
    async with anyio.create_task_group() as workers:
        workers.start_soon(_work, stack)
        async with client.stream_message("stream me", accepted_output_modes=MODES) as events:
            streamed = [event async for event in events]
        async with client.resubscribe(task.id) as events:
            resubscribed = [event async for event in events]
        workers.cancel_scope.cancel()
    assert streamed
    assert resubscribed
    await client.set_push_config(task.id, PushNotificationConfig(url=HOOK, id="set"))
    assert (await client.get_push_config(task.id, "set")).push_notification_config.id == "set"
    assert (await client.get_push_config(task.id)).task_id == task.id
    assert len(await client.list_push_configs(task.id)) == 2
    await client.delete_push_config(task.id, "set")
    waiting = await client.send_message("cancel me", blocking=False, accepted_output_modes=MODES)
    assert isinstance(waiting, Task)
    assert (await client.cancel_task(waiting.id)).status.state == TaskState.canceled
    with pytest.raises(TaskNotFoundError):
        await client.get_task("no-such-task")


async def test_every_request_and_answer_of_a_conversation_is_valid_0_2_5(
    recorded: tuple[A2AClient, Stack, Recorder],
) -> None:
    client, stack, recorder = recorded
    await converse(client, stack)
    assert {exchange.request["method"] for exchange in recorder.exchanges} == set(METHODS)
    for exchange in recorder.exchanges:
        request_def, success_def, union_def = METHODS[exchange.request["method"]]
        for name in (request_def, *REQUEST_ENVELOPES):
            assert violations(name, exchange.request) == [], (name, exchange.request)
        assert exchange.answers, exchange.request
        for answer in exchange.answers:
            answer_def = "JSONRPCErrorResponse" if "error" in answer else success_def
            for name in (answer_def, union_def, *RESPONSE_ENVELOPES):
                assert violations(name, answer) == [], (name, answer)
            if "error" not in answer:
                assert violations("JSONRPCSuccessResponse", answer) == [], answer


@pytest.mark.parametrize("name", ERROR_OBJECTS)
async def test_each_error_object_the_server_answers_is_valid_0_2_5(name: str) -> None:
    definition = DEFS[name]["properties"]
    error = PROTOCOL_ERRORS[definition["code"]["const"]]
    binding = Stack(echo).service.dispatcher.binding(Version.V0_3)
    for sent in (error(), error("Said otherwise", data={"taskId": "t-9"})):
        for request_id in ("r-1", 7, None):
            body = json.loads(binding.error_body(request_id, sent))
            assert body["id"] == request_id
            assert violations("JSONRPCErrorResponse", body) == [], body
            assert violations("JSONRPCResponse", body) == [], body
            for object_def in (name, "A2AError", "JSONRPCError"):
                assert violations(object_def, body["error"]) == [], (object_def, body)


@pytest.mark.parametrize("name", ERROR_OBJECTS)
def test_each_error_is_named_and_worded_as_the_schema_says(name: str) -> None:
    definition = DEFS[name]["properties"]
    error = PROTOCOL_ERRORS[definition["code"]["const"]]
    assert (error.__name__, error.default_message) == (name, definition["message"]["default"])


@pytest.mark.parametrize(("code", "expected"), [(-32001, TaskNotFoundError), (-32099, None)])
def test_the_client_reads_each_error_object_as_its_error(code: int, expected: type | None) -> None:
    wire = {"code": code, "message": "m", "data": {"taskId": "t"}}
    assert violations("JSONRPCError", wire) == []
    error = error_from_wire(wire)
    assert (error.code, error.message, error.data) == (code, "m", {"taskId": "t"})
    if expected is not None:
        assert type(error) is expected


def test_every_envelope_definition_is_checked_here() -> None:
    checked = {name for names in METHODS.values() for name in names}
    checked |= {*REQUEST_ENVELOPES, *RESPONSE_ENVELOPES, "JSONRPCSuccessResponse", "JSONRPCErrorResponse"}
    checked |= {*ERROR_OBJECTS, "A2AError", "JSONRPCError"}
    assert checked == ENVELOPE
    assert set(DEFS) >= ENVELOPE
