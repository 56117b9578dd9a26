"""Request limits: each is a clear JSON-RPC error naming the limit, and nothing is stored."""

from __future__ import annotations

import json
from typing import Any

import pytest

from a2a_core.core.tasklog.snapshots import messages_of
from a2a_core.examples.echo import agent as echo
from a2a_core.protocol.jsonrpc import MAX_JSON_DEPTH
from a2a_core.push.urls import UrlPolicy
from auth_support import asker, client_for, message, rpc, send
from support import Stack

pytestmark = pytest.mark.anyio


def _untouched(stack: Stack) -> bool:
    return not stack.store._logs and len(stack.broker) == 0


async def _post(stack: Stack, request: dict[str, Any] | bytes) -> dict[str, Any]:
    body = request if isinstance(request, bytes) else json.dumps(request).encode()
    async with client_for(stack.service) as client:
        response = await client.post("/", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 200
    answer: dict[str, Any] = response.json()
    return answer


def _parts(count: int, text: str = "x") -> list[dict[str, Any]]:
    return [{"kind": "text", "text": text} for _ in range(count)]


@pytest.mark.parametrize("method", ["message/send", "message/stream"])
async def test_too_many_parts(method: str) -> None:
    stack = Stack(echo, max_parts_per_message=3)
    answer = await _post(stack, rpc(method, {"message": message(parts=_parts(4))}))
    assert answer["error"]["code"] == -32602
    assert "at most 3" in answer["error"]["message"]
    assert answer["error"]["data"] == {"field": "message.parts", "limit": 3}
    assert _untouched(stack)
    assert "result" in await _post(stack, send(parts=_parts(3)))


async def test_a_text_part_too_long() -> None:
    stack = Stack(echo, max_text_part_chars=10)
    answer = await _post(stack, send(parts=[*_parts(1), *_parts(1, "y" * 11)]))
    assert answer["error"]["code"] == -32602
    assert answer["error"]["data"] == {"field": "message.parts.1.text", "limit": 10}
    assert _untouched(stack)
    assert "result" in await _post(stack, send(parts=_parts(1, "y" * 10)))


async def test_a_body_over_the_limit() -> None:
    stack = Stack(echo, max_body_bytes=2048)
    answer = await _post(stack, send("z" * 2048))
    assert answer["error"] == {
        "code": -32600,
        "message": "Request body exceeds the 2048-byte limit",
        "data": {"maxBodyBytes": 2048},
    }
    assert _untouched(stack)


async def test_nesting_deeper_than_the_limit() -> None:
    stack = Stack(echo)
    deep: dict[str, Any] = {}
    for _ in range(MAX_JSON_DEPTH):
        deep = {"a": deep}
    answer = await _post(stack, send(metadata=deep))
    assert answer["id"] == 1
    assert answer["error"]["code"] == -32600
    assert answer["error"]["data"]["maxDepth"] == MAX_JSON_DEPTH
    assert answer["error"]["data"]["field"].startswith("params.message.metadata.a.a.")
    # Far too deep for the JSON parser itself: the same answer, not a crash.
    assert (await _post(stack, b"[" * 100_000))["error"]["code"] == -32600
    assert _untouched(stack)


async def test_history_length_is_clamped_to_the_cap() -> None:
    stack = Stack(asker, max_history_length=2)
    async with client_for(stack.service) as client:
        task_id = (await client.post("/", json=send("one"))).json()["result"]["id"]
        await stack.drain()
        await client.post("/", json=send("two", taskId=task_id))
        await stack.drain()

        async def history(**params: Any) -> list[str]:
            task = (await client.post("/", json=rpc("tasks/get", {"id": task_id, **params}))).json()["result"]
            return [part["text"] for m in task["history"] for part in m["parts"]]

        assert await history(historyLength=100) == ["two", "And then?"]
        assert await history() == ["two", "And then?"]
        assert await history(historyLength=1) == ["And then?"]
    stored = [message for commit in await stack.store.read(task_id) for message in messages_of(commit)]
    assert len(stored) == 4  # the cap trims answers, never what is stored


async def test_push_configs_per_task() -> None:
    stack = Stack(echo, push_enabled=True, push_max_configs_per_task=2)
    assert stack.service.push is not None

    async def public_dns(host: str, port: int) -> list[str]:
        return ["93.184.215.14"]

    stack.service.push.policy = UrlPolicy(resolver=public_dns)
    task_id = (await _post(stack, send()))["result"]["id"]
    set_config = rpc(
        "tasks/pushNotificationConfig/set",
        {"taskId": task_id, "pushNotificationConfig": {"url": "https://hooks.example.com/a"}},
    )
    for _ in range(2):
        assert "result" in await _post(stack, set_config)
    answer = await _post(stack, set_config)
    assert answer["error"]["code"] == -32602
    assert "delete one first" in answer["error"]["message"]
    assert len(await stack.service.push.store.list(task_id)) == 2
