"""A2A 1.0 tenants: none served by default (a request naming one is refused), or the one configured."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest

from a2a_core.compose.app import compose_app
from a2a_core.dev.stack import run_worker_loop
from a2a_core.examples.echo import agent as echo
from support import Stack

pytestmark = pytest.mark.anyio
V1 = {"A2A-Version": "1.0"}
MESSAGE = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _client(**settings: object) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the app, with a worker running the agent (a blocking send waits for it)."""
    stack = Stack(echo, **settings)
    worker = asyncio.create_task(run_worker_loop(stack.broker, stack.worker))
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://agent.test") as client:
            yield client
    finally:
        worker.cancel()
        await asyncio.gather(worker, return_exceptions=True)


@pytest.fixture
async def plain() -> AsyncIterator[httpx.AsyncClient]:
    async for client in _client():
        yield client


@pytest.fixture
async def acme() -> AsyncIterator[httpx.AsyncClient]:
    async for client in _client(tenant="acme"):
        yield client


async def test_without_a_tenant_the_card_names_none_and_a_named_tenant_is_refused(
    plain: httpx.AsyncClient,
) -> None:
    card = (await plain.get("/.well-known/agent-card.json")).json()
    assert all("tenant" not in interface for interface in card["supportedInterfaces"])
    rpc = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {"tenant": "acme", "message": MESSAGE},
    }
    error = (await plain.post("/", json=rpc, headers=V1)).json()["error"]
    assert error["code"] == -32602
    assert "tenant" in error["message"].lower()
    refused = await plain.post("/acme/message:send", json={"message": MESSAGE}, headers=V1)
    assert refused.status_code == 400
    assert refused.json()["error"]["status"] == "INVALID_ARGUMENT"


async def test_the_configured_tenant_is_on_the_card_and_served_on_both_bindings(
    acme: httpx.AsyncClient,
) -> None:
    card = (await acme.get("/.well-known/agent-card.json")).json()
    tenants = [
        (i["protocolBinding"], i["protocolVersion"], i.get("tenant")) for i in card["supportedInterfaces"]
    ]
    assert tenants == [
        ("JSONRPC", "1.0", "acme"),
        ("HTTP+JSON", "1.0", "acme"),
        ("JSONRPC", "0.3", None),
        ("JSONRPC", "1.1", "acme"),
        ("HTTP+JSON", "1.1", "acme"),
    ]
    sent = await acme.post("/acme/message:send", json={"message": MESSAGE}, headers=V1)
    assert sent.status_code == 200, sent.text
    task_id = sent.json()["task"]["id"]
    got = await acme.get(f"/acme/tasks/{task_id}", headers=V1)
    assert got.json()["id"] == task_id
    rpc = {"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"tenant": "acme", "id": task_id}}
    assert (await acme.post("/", json=rpc, headers=V1)).json()["result"]["id"] == task_id
    other = {**rpc, "params": {"tenant": "other", "id": task_id}}
    assert (
        await acme.post("/", content=json.dumps(other), headers={**V1, "content-type": "application/json"})
    ).json()["error"]["code"] == -32602
