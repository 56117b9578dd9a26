"""A2A 1.1 (the dev-1.1 draft) over both 1.0 bindings: ``A2A-Version: 1.1`` (header or query
parameter) is answered by the 1.0 operations plus the draft's fields (generations, conditional
sends, long-poll GetTask), and a 1.0 request's answer is what it was, without them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from a2a_core.compose.app import compose_app
from a2a_core.push.urls import UrlPolicy
from agents import scripted
from support import Stack
from v1_support import call_rest, call_rpc, expect_rest_error, expect_rpc_error, message

pytestmark = pytest.mark.anyio

V1_1 = {"A2A-Version": "1.1"}
V1_0 = {"A2A-Version": "1.0"}


@pytest.fixture
def stack() -> Stack:
    return Stack(scripted, long_poll_seconds=0.5)


@pytest.fixture
async def client(stack: Stack) -> Any:
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    async with httpx.AsyncClient(transport=transport, base_url="http://agent.test") as client:
        yield client


async def _keep_draining(stack: Stack) -> None:
    while True:
        await stack.drain()
        await asyncio.sleep(0.01)


def _without_generations(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_generations(v) for k, v in value.items() if k != "generation"}
    if isinstance(value, list):
        return [_without_generations(v) for v in value]
    return value


async def _waiting_task(client: httpx.AsyncClient, stack: Stack) -> str:
    new = {"message": message("wait"), "configuration": {"returnImmediately": True}}
    sent = await call_rpc(client, "SendMessage", new, headers=V1_1)
    task = sent.json()["result"]["task"]
    assert task["generation"] == "1"
    await stack.drain()  # working, then input-required
    return str(task["id"])


async def test_1_1_answers_carry_generations_and_1_0_answers_are_unchanged(
    client: httpx.AsyncClient, stack: Stack
) -> None:
    task_id = await _waiting_task(client, stack)
    newer = await call_rpc(client, "GetTask", {"id": task_id}, headers=V1_1)
    older = await call_rpc(client, "GetTask", {"id": task_id}, headers=V1_0)
    assert newer.json()["result"]["generation"] == "3"
    assert b"generation" not in older.content
    assert older.json() == _without_generations(newer.json())
    by_query = await client.get(f"/tasks/{task_id}?A2A-Version=1.1")
    assert by_query.json() == newer.json()["result"]
    rest_older = await call_rest(client, "GET", f"/tasks/{task_id}", headers=V1_0)
    assert b"generation" not in rest_older.content
    assert rest_older.json() == older.json()["result"]


@pytest.mark.parametrize("headers", [V1_1, V1_0])
async def test_a_stream_carries_consecutive_generations_in_1_1_only(
    client: httpx.AsyncClient, stack: Stack, headers: dict[str, str]
) -> None:
    task_id = await _waiting_task(client, stack)
    reply = {"message": message("go on", taskId=task_id)}
    worker = asyncio.ensure_future(_keep_draining(stack))
    try:  # the ASGI transport hands the body over whole, once the stream has ended
        response = await call_rest(client, "POST", "/message:stream", reply, headers=headers)
    finally:
        worker.cancel()
    lines = [line for line in response.text.splitlines() if line.startswith("data:")]
    events = [json.loads(line[5:]) for line in lines]
    generations = [next(iter(event.values())).get("generation") for event in events if "task" not in event]
    if headers is V1_0:
        assert generations
        assert set(generations) == {None}
        return
    assert events[0]["task"]["generation"] == "4"  # the follow-up's working status
    assert generations == [str(n) for n in range(5, 5 + len(generations))]
    final = await call_rpc(client, "GetTask", {"id": task_id}, headers=V1_1)
    assert final.json()["result"]["generation"] == generations[-1]


async def test_a_stale_if_generation_match_is_refused_and_changes_nothing(
    client: httpx.AsyncClient, stack: Stack
) -> None:
    task_id = await _waiting_task(client, stack)
    before = (await call_rpc(client, "GetTask", {"id": task_id}, headers=V1_1)).json()
    stale = {"message": message("go on", taskId=task_id), "configuration": {"ifGenerationMatch": "2"}}
    refused = await call_rpc(client, "SendMessage", stale, headers=V1_1)
    found = {"taskId": task_id, "currentGeneration": "3"}
    assert "generation 3, not 2" in expect_rpc_error(refused, "TASK_GENERATION_MISMATCH", metadata=found)
    assert refused.json()["error"]["code"] == -32010
    rest_refused = await call_rest(client, "POST", "/message:send", stale, headers=V1_1)
    expect_rest_error(rest_refused, "TASK_GENERATION_MISMATCH", metadata=found)
    assert (await call_rpc(client, "GetTask", {"id": task_id}, headers=V1_1)).json() == before
    assert await stack.drain() == 0  # nothing was queued

    # A 1.0 request's configuration has no such field: it is ignored, as unknown fields are.
    older = await call_rpc(client, "GetTask", {"id": task_id}, headers=V1_0)
    assert older.json()["result"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"

    current = {
        "message": message("go on", taskId=task_id),
        "configuration": {"ifGenerationMatch": 3, "returnImmediately": True},
    }
    continued = await call_rest(client, "POST", "/message:send", current, headers=V1_1)
    assert continued.status_code == 200, continued.text
    assert continued.json()["task"]["generation"] == "4"


async def test_if_generation_match_is_ignored_for_a_new_task(client: httpx.AsyncClient) -> None:
    new = {
        "message": message("hello"),
        "configuration": {"ifGenerationMatch": "7", "returnImmediately": True},
    }
    sent = await call_rpc(client, "SendMessage", new, headers=V1_1)
    assert sent.json()["result"]["task"]["generation"] == "1"


async def test_a_long_poll_returns_when_the_next_mutation_lands(
    client: httpx.AsyncClient, stack: Stack
) -> None:
    task_id = await _waiting_task(client, stack)
    held = asyncio.ensure_future(
        call_rest(client, "GET", f"/tasks/{task_id}?currentGeneration=3", headers=V1_1)
    )
    await asyncio.sleep(0.05)
    assert not held.done()
    cancel = await call_rpc(client, "CancelTask", {"id": task_id}, headers=V1_1)
    assert cancel.json()["result"]["generation"] == "4"
    answered = await held
    assert answered.json()["generation"] == "4"
    assert answered.json()["status"]["state"] == "TASK_STATE_CANCELED"


async def test_a_long_poll_returns_the_unchanged_task_at_its_bound(
    client: httpx.AsyncClient, stack: Stack
) -> None:
    task_id = await _waiting_task(client, stack)
    held = await call_rpc(client, "GetTask", {"id": task_id, "currentGeneration": "3"}, headers=V1_1)
    assert held.json()["result"]["generation"] == "3"
    # Past generations return at once; and 1.0 ignores the field.
    earlier = await call_rpc(client, "GetTask", {"id": task_id, "currentGeneration": "2"}, headers=V1_1)
    assert earlier.json()["result"]["generation"] == "3"
    older = await call_rpc(client, "GetTask", {"id": task_id, "currentGeneration": "3"}, headers=V1_0)
    assert "generation" not in older.json()["result"]


@pytest.mark.parametrize("bad", ["-1", "x", 1.5, True])
async def test_a_bad_generation_is_invalid_params(client: httpx.AsyncClient, bad: object) -> None:
    refused = await call_rpc(client, "GetTask", {"id": "t", "currentGeneration": bad}, headers=V1_1)
    expect_rpc_error(refused, "INVALID_PARAMS", fields=["currentGeneration"])


async def test_push_configs_read_through_1_1_leave_their_credentials_out() -> None:
    pushing = Stack(scripted, push_enabled=True)
    assert pushing.service.push is not None
    pushing.service.push.policy = UrlPolicy(resolver=_public_dns)
    transport = httpx.ASGITransport(app=compose_app(pushing.service))
    async with httpx.AsyncClient(transport=transport, base_url="http://agent.test") as client:
        task_id = await _waiting_task(client, pushing)
        hook = {
            "taskId": task_id,
            "id": "hook",
            "url": "https://hooks.example.com/a2a",
            "authentication": {"scheme": "Bearer", "credentials": "s3cret"},
        }
        created = await call_rpc(client, "CreateTaskPushNotificationConfig", hook, headers=V1_1)
        assert created.json()["result"]["authentication"]["credentials"] == "s3cret"
        stored = await pushing.service.push.store.list(task_id)
        assert [c.generation for c in stored] == ["1.1"]  # its webhook gets 1.1 bodies

        ref = {"taskId": task_id, "id": "hook"}
        got = await call_rpc(client, "GetTaskPushNotificationConfig", ref, headers=V1_1)
        listed = await call_rest(client, "GET", f"/tasks/{task_id}/pushNotificationConfigs", headers=V1_1)
        for config in (got.json()["result"], listed.json()["configs"][0]):
            assert config["authentication"] == {"scheme": "Bearer"}
            assert config["url"] == hook["url"]
        # 1.0 answers are what they were: the credentials included.
        older = await call_rpc(client, "GetTaskPushNotificationConfig", ref, headers=V1_0)
        assert older.json()["result"]["authentication"]["credentials"] == "s3cret"


async def _public_dns(host: str, port: int) -> list[str]:
    return ["93.184.215.14"]


def _generations(body: str) -> list[str | None]:
    events = [json.loads(line[5:]) for line in body.splitlines() if line.startswith("data:")]
    return [next(iter(event.get("result", event).values())).get("generation") for event in events]


@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON"])
async def test_a_subscription_with_a_cursor_replays_what_followed_it_then_follows(
    client: httpx.AsyncClient, stack: Stack, binding: str
) -> None:
    task_id = await _waiting_task(client, stack)  # generations 1-3: submitted, working, input-required
    worker = asyncio.ensure_future(_keep_draining(stack))
    try:
        if binding == "JSONRPC":
            params = {"id": task_id, "currentGeneration": "1"}
            subscribed = asyncio.ensure_future(call_rpc(client, "SubscribeToTask", params, headers=V1_1))
        else:
            path = f"/tasks/{task_id}:subscribe?currentGeneration=1"
            subscribed = asyncio.ensure_future(call_rest(client, "GET", path, headers=V1_1))
        reply = {"message": message("go on", taskId=task_id), "configuration": {"returnImmediately": True}}
        await call_rpc(client, "SendMessage", reply, headers=V1_1)
        response = await subscribed
    finally:
        worker.cancel()
    # Replayed (2, 3), then the follow-up turn (4: its message's working, 5: the claim, 6: done).
    assert _generations(response.text) == ["2", "3", "4", "5", "6"]
