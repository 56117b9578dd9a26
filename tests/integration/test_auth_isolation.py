"""Per-caller isolation: a task is its creator's. For anyone else every method on it answers
-32001 exactly as for a task that does not exist, and changes nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_core.push.urls import UrlPolicy
from auth_support import API_KEYS, KEYS, asker, client_for, message, rpc, send, sse_data
from support import Stack

pytestmark = pytest.mark.anyio

HOOK = "https://hooks.example.com/a2a"
MISSING = "00000000-0000-4000-8000-000000000000"


async def public_dns(host: str, port: int) -> list[str]:
    return ["93.184.215.14"]


@pytest.fixture
def stack() -> Stack:
    stack = Stack(asker, auth_mode="api_key", api_keys=API_KEYS, push_enabled=True)
    assert stack.service.push is not None
    stack.service.push.policy = UrlPolicy(resolver=public_dns)
    return stack


@pytest.fixture
async def alice(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(stack.service, **{"x-api-key": KEYS["alice"]}) as client:
        yield client


@pytest.fixture
async def bob(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(stack.service, **{"x-api-key": KEYS["bob"]}) as client:
        yield client


@pytest.fixture
async def task_id(stack: Stack, alice: httpx.AsyncClient) -> str:
    """Alice's task, waiting for her reply (input-required), with one push config."""
    created: str = (await alice.post("/", json=send())).json()["result"]["id"]
    await stack.drain()
    config = {"taskId": created, "pushNotificationConfig": {"id": "cfg-1", "url": HOOK, "token": "t"}}
    assert "result" in (await alice.post("/", json=rpc("tasks/pushNotificationConfig/set", config))).json()
    return created


def requests_on(task: str) -> dict[str, dict[str, Any]]:
    """Every method that names an existing task, aimed at ``task``."""
    return {
        "tasks/get": rpc("tasks/get", {"id": task}),
        "tasks/cancel": rpc("tasks/cancel", {"id": task}),
        "message/send (continue)": rpc("message/send", {"message": message("mine now", taskId=task)}),
        "message/send (continue, with push)": rpc(
            "message/send",
            {
                "message": message("x", taskId=task),
                "configuration": {"pushNotificationConfig": {"url": HOOK}},
            },
        ),
        "message/stream (continue)": rpc("message/stream", {"message": message("mine now", taskId=task)}),
        "tasks/resubscribe": rpc("tasks/resubscribe", {"id": task}),
        "push set": rpc(
            "tasks/pushNotificationConfig/set", {"taskId": task, "pushNotificationConfig": {"url": HOOK}}
        ),
        "push get": rpc(
            "tasks/pushNotificationConfig/get", {"id": task, "pushNotificationConfigId": "cfg-1"}
        ),
        "push list": rpc("tasks/pushNotificationConfig/list", {"id": task}),
        "push delete": rpc(
            "tasks/pushNotificationConfig/delete", {"id": task, "pushNotificationConfigId": "cfg-1"}
        ),
    }


async def _answer(client: httpx.AsyncClient, request: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    response = await client.post("/", json=request)
    assert response.status_code == 200
    content_type = response.headers["content-type"].split(";")[0]
    bodies = sse_data(response.text) if content_type == "text/event-stream" else [response.json()]
    return content_type, bodies


def _snapshot(stack: Stack, task: str) -> tuple[Any, ...]:
    assert stack.service.push is not None
    configs = stack.service.push.store._configs.get(task)  # type: ignore[attr-defined]
    return tuple(stack.store._logs[task]), len(stack.broker), dict(configs or {})


@pytest.mark.parametrize("method", list(requests_on("t")))
async def test_another_callers_task_is_not_found(
    stack: Stack, bob: httpx.AsyncClient, task_id: str, method: str
) -> None:
    before = _snapshot(stack, task_id)
    kind, answers = await _answer(bob, requests_on(task_id)[method])
    missing_kind, missing_answers = await _answer(bob, requests_on(MISSING)[method])
    assert answers[-1]["error"]["code"] == -32001
    # Indistinguishable from a task that does not exist, but for the id it names.
    assert kind == missing_kind
    assert repr(answers).replace(task_id, MISSING) == repr(missing_answers)
    assert _snapshot(stack, task_id) == before


async def test_the_owner_still_has_everything(
    stack: Stack, alice: httpx.AsyncClient, bob: httpx.AsyncClient, task_id: str
) -> None:
    for request in requests_on(task_id).values():
        await bob.post("/", json=request)
    listed = (await alice.post("/", json=rpc("tasks/pushNotificationConfig/list", {"id": task_id}))).json()
    assert [c["pushNotificationConfig"]["id"] for c in listed["result"]] == ["cfg-1"]
    reply = (await alice.post("/", json=send("more", taskId=task_id))).json()
    assert reply["result"]["status"]["state"] == "working"


async def test_the_same_message_from_two_callers_makes_two_tasks(
    alice: httpx.AsyncClient, bob: httpx.AsyncClient
) -> None:
    # Task ids are derived from the message for safe retries; the caller is part of the derivation,
    # so bob resending alice's exact message gets his own task, not hers.
    request = send(messageId="m-1", contextId="ctx-1")
    theirs = (await alice.post("/", json=request)).json()["result"]
    mine = (await bob.post("/", json=request)).json()["result"]
    assert mine["id"] != theirs["id"]
    assert (await alice.post("/", json=request)).json()["result"]["id"] == theirs["id"]  # a retry
    assert (await bob.post("/", json=rpc("tasks/get", {"id": mine["id"]}))).json()["result"]["id"] == mine[
        "id"
    ]
