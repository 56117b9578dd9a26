"""Every JSON-RPC and A2A error code, each provoked by a real request over HTTP.

Each answer must be HTTP 200, well-formed JSON-RPC with the request id echoed (null when it could
not be read), carry no stack trace, and leave no task or queued run behind.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest

from a2a_core.compose.app import compose_app
from a2a_core.domain import TaskState
from a2a_core.examples.echo import agent as echo_agent
from a2a_core.server import AgentServer
from support import Stack

pytestmark = pytest.mark.anyio

MESSAGE = {"role": "user", "messageId": "m1", "parts": [{"kind": "text", "text": "hi"}]}


def rpc(method: str, params: Any, request_id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def send(**message: Any) -> dict[str, Any]:
    return rpc("message/send", {"message": {**MESSAGE, **message}})


CASES: list[tuple[str, bytes | dict[str, Any] | list[Any] | str, int, Any]] = [
    ("truncated json", b'{"jsonrpc": "2.0", "id": 1, "method": ', -32700, None),
    ("not utf-8", b'{"id": "\xff"}', -32700, None),
    ("batch", [rpc("tasks/get", {"id": "x"})], -32600, None),
    ("string body", "tasks/get", -32600, None),
    ("wrong jsonrpc version", {**rpc("tasks/get", {"id": "x"}, 7), "jsonrpc": "1.0"}, -32600, 7),
    ("missing jsonrpc", {"id": "a", "method": "tasks/get", "params": {"id": "x"}}, -32600, "a"),
    ("method not a string", {"jsonrpc": "2.0", "id": 3, "method": 5}, -32600, 3),
    ("missing method", {"jsonrpc": "2.0", "id": 3}, -32600, 3),
    ("object id", rpc("tasks/get", {"id": "x"}, {"a": 1}), -32600, None),
    ("boolean id", rpc("tasks/get", {"id": "x"}, True), -32600, None),
    ("fractional id", rpc("tasks/get", {"id": "x"}, 1.5), -32600, None),
    ("unknown method", rpc("tasks/list", {}, "abc"), -32601, "abc"),
    ("0.1 method name", rpc("tasks/send", {}, "abc"), -32601, "abc"),
    ("missing params", {"jsonrpc": "2.0", "id": 4, "method": "tasks/get"}, -32602, 4),
    ("positional params", rpc("tasks/get", ["x"], 4), -32602, 4),
    ("missing message", rpc("message/send", {}), -32602, 1),
    ("empty parts", send(parts=[]), -32602, 1),
    ("unknown part kind", send(parts=[{"kind": "video", "url": "x"}]), -32602, 1),
    ("part without kind", send(parts=[{"text": "hi"}]), -32602, 1),
    ("missing messageId", send(messageId=None), -32602, 1),
    ("bad role", send(role="system"), -32602, 1),
    ("agent role", send(role="agent"), -32602, 1),
    ("negative historyLength", rpc("tasks/get", {"id": "x", "historyLength": -1}), -32602, 1),
    ("tasks/get without id", rpc("tasks/get", {}), -32602, 1),
    ("unknown task", rpc("tasks/get", {"id": "nope"}, None), -32001, None),
    ("cancel unknown task", rpc("tasks/cancel", {"id": "nope"}), -32001, 1),
    ("continue unknown task", send(taskId="nope"), -32001, 1),
    ("push set while disabled", rpc("tasks/pushNotificationConfig/set", {
        "taskId": "t", "pushNotificationConfig": {"url": "https://hooks.example/a"}}), -32003, 1),
    ("push list while disabled", rpc("tasks/pushNotificationConfig/list", {"id": "t"}), -32003, 1),
    ("stream with empty parts", rpc("message/stream", {"message": {**MESSAGE, "parts": []}}), -32602, 1),
    ("stream to unknown task", rpc("message/stream", {"message": {**MESSAGE, "taskId": "x"}}), -32001, 1),
    ("unacceptable output mode", rpc("message/send", {
        "message": MESSAGE, "configuration": {"acceptedOutputModes": ["image/png"]}}), -32005, 1),
]  # fmt: skip


def _body(payload: bytes | dict[str, Any] | list[Any] | str) -> bytes:
    return payload if isinstance(payload, bytes) else json.dumps(payload).encode()


def _state(stack: Stack) -> tuple[int, int]:
    return len(stack.store._logs), len(stack.broker)


@pytest.mark.parametrize(("name", "payload", "code", "echoed_id"), CASES, ids=[c[0] for c in CASES])
async def test_error_table(
    client: httpx.AsyncClient, stack: Stack, name: str, payload: Any, code: int, echoed_id: Any
) -> None:
    before = _state(stack)
    response = await client.post("/", content=_body(payload), headers={"content-type": "application/json"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    answer = response.json()
    assert answer["jsonrpc"] == "2.0"
    assert answer["id"] == echoed_id
    assert "result" not in answer
    assert answer["error"]["code"] == code
    assert isinstance(answer["error"]["message"], str)
    assert "Traceback" not in response.text
    assert _state(stack) == before


async def test_invalid_params_carry_validation_details(client: httpx.AsyncClient) -> None:
    answer = (await client.post("/", json=send(parts=[]))).json()
    details = answer["error"]["data"]
    assert details[0]["field"] == "message.parts"
    assert details[0]["type"] == "too_short"


async def test_a_completed_task_is_not_cancelable(client: httpx.AsyncClient, stack: Stack) -> None:
    task = await client.post(
        "/", json=rpc("message/send", {"message": MESSAGE, "configuration": {"blocking": False}})
    )
    task_id = task.json()["result"]["id"]
    await stack.drain()
    answer = (await client.post("/", json=rpc("tasks/cancel", {"id": task_id}, "c"))).json()
    assert answer["id"] == "c"
    assert answer["error"]["code"] == -32002
    assert "completed" in answer["error"]["message"]


async def test_an_invalid_agent_response_is_reported_to_a_blocking_caller() -> None:
    from a2a_core.core.turn.executor import TaskContext

    async def bad(ctx: TaskContext) -> Any:
        return 42

    stack = Stack(bad, blocking_timeout_seconds=5)
    async with _client(stack) as client, anyio.create_task_group() as tg:
        tg.start_soon(_drain_later, stack)
        answer = (await client.post("/", json=send())).json()
    assert answer["error"]["code"] == -32006
    assert answer["error"]["data"]["taskId"]
    task = await stack.ledger.load(answer["error"]["data"]["taskId"])
    assert task.status.state == TaskState.failed


async def _drain_later(stack: Stack) -> None:
    await anyio.sleep(0.01)
    await stack.drain()


def _client(stack: Stack) -> httpx.AsyncClient:
    return _client_for(stack.service)


def _client_for(service: AgentServer) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=compose_app(service))
    return httpx.AsyncClient(transport=transport, base_url="http://agent.test")


async def test_an_internal_failure_is_32603_without_details(stack: Stack) -> None:
    from a2a_core.compose import build_server
    from a2a_core.core.tasklog.store import InMemoryTaskStore

    class BrokenStore(InMemoryTaskStore):
        async def owned(self, task_id: str, owner: str) -> bool:
            raise RuntimeError("disk on fire at /var/secret/path")

        async def latest(self, task_id: str, *, limit: int, through: int | None = None) -> list[Any]:
            raise RuntimeError("disk on fire at /var/secret/path")

    service = build_server(stack.service.settings, store=BrokenStore(), broker=stack.broker)
    async with _client_for(service) as client:
        response = await client.post("/", json=rpc("tasks/get", {"id": "x"}, 9))
    answer = response.json()
    assert response.status_code == 200
    assert answer == {"jsonrpc": "2.0", "id": 9, "error": {"code": -32603, "message": "Internal error"}}


async def test_a_body_over_the_limit_is_refused_before_parsing(
    client: httpx.AsyncClient, stack: Stack
) -> None:
    huge = send(parts=[{"kind": "text", "text": "x" * (70 * 1024)}])
    response = await client.post("/", json=huge)
    answer = response.json()
    assert response.status_code == 200
    assert answer["id"] is None
    assert answer["error"]["code"] == -32600
    assert "65536-byte limit" in answer["error"]["message"]
    assert _state(stack) == (0, 0)


async def test_null_id_gets_a_normal_answer(client: httpx.AsyncClient) -> None:
    params = {"message": MESSAGE, "configuration": {"blocking": False}}
    answer = (await client.post("/", json=rpc("message/send", params, None))).json()
    assert answer["id"] is None
    assert answer["result"]["kind"] == "task"


@pytest.mark.parametrize("method", ["message/stream", "tasks/resubscribe"])
async def test_streaming_methods_are_unsupported_when_streaming_is_off(method: str) -> None:
    stack = Stack(echo_agent, streaming_enabled=False)
    params = {"message": MESSAGE} if method == "message/stream" else {"id": "t"}
    async with _client(stack) as client:
        response = await client.post("/", json=rpc(method, params, "s"))
    assert response.headers["content-type"] == "application/json"
    assert response.json()["error"]["code"] == -32004
    assert _state(stack) == (0, 0)
