"""The doors of `a2a-serverless dev` (Host, Origin, content type), in process.

A web page the developer opens must not be able to create tasks on their machine (a blind
cross-origin POST of text/plain) or read answers (DNS rebinding); pages they allow with
``--cors-origin`` get real CORS. Every refusal changes nothing and says what to do.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_core.compose.app import compose_app
from a2a_core.dev.guard import DevDoors, is_json, parse_origin
from a2a_core.examples.echo import agent as echo
from a2a_core.settings import SettingsError
from support import Stack

pytestmark = pytest.mark.anyio

SEND = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "message/send",
    "params": {
        "message": {"role": "user", "messageId": "m1", "parts": [{"kind": "text", "text": "hi"}]},
        "configuration": {"blocking": False},
    },
}
BODY = json.dumps(SEND)
JSON = {"content-type": "application/json"}
APP = "https://app.example.com:3000"


@pytest.fixture
def stack() -> Stack:
    return Stack(echo)


def guarded(stack: Stack, doors: DevDoors) -> httpx.AsyncClient:
    app = compose_app(stack.service)
    doors.install(app)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000")


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with guarded(stack, DevDoors.build(["127.0.0.1"], [APP])) as client:
        yield client


def untouched(stack: Stack) -> bool:
    return not stack.store._logs and len(stack.broker) == 0


def refusal(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    answer: dict[str, Any] = response.json()
    assert answer["jsonrpc"] == "2.0"
    assert answer["id"] is None
    message: str = answer["error"]["message"]
    return message


# Content type: what a page can send without a preflight is refused.


@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    ],
)
async def test_a_post_that_is_not_declared_json_is_refused(
    client: httpx.AsyncClient, stack: Stack, content_type: str | None
) -> None:
    headers = {} if content_type is None else {"content-type": content_type}
    message = refusal(await client.post("/", content=BODY, headers=headers), 415)
    assert "-H 'content-type: application/json'" in message
    assert untouched(stack)


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", "Application/JSON", "application/a2a+json"],
)
async def test_json_content_types_are_served(client: httpx.AsyncClient, content_type: str) -> None:
    response = await client.post("/", content=BODY, headers={"content-type": content_type})
    assert response.status_code == 200
    assert response.json()["result"]["kind"] == "task"


def test_what_counts_as_json() -> None:
    assert is_json("application/vnd.api+json;charset=utf-8")
    assert not is_json("text/json")
    assert not is_json("application/jsonp")
    assert not is_json(None)


# Host: only the bound address and localhost (DNS rebinding sends the attacker's name).


@pytest.mark.parametrize("path", ["/", "/.well-known/agent-card.json", "/docs", "/healthz"])
async def test_a_foreign_host_is_refused_on_every_route(
    client: httpx.AsyncClient, stack: Stack, path: str
) -> None:
    headers = {"host": "rebind.attacker.example:8000", **JSON}
    response = await (
        client.post(path, content=BODY, headers=headers) if path == "/" else client.get(path, headers=headers)
    )
    message = refusal(response, 421)
    assert "127.0.0.1" in message
    assert "localhost" in message
    assert "--host" in message
    assert untouched(stack)


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "LOCALHOST", "127.0.0.1"])
async def test_the_bound_address_and_localhost_are_served(client: httpx.AsyncClient, host: str) -> None:
    response = await client.get("/.well-known/agent-card.json", headers={"host": host})
    assert response.status_code == 200


async def test_on_every_interface_ip_literals_are_served_and_names_are_not(stack: Stack) -> None:
    async with guarded(stack, DevDoors.build(["0.0.0.0", "0.0.0.0"])) as client:
        for host, status in [("192.168.1.20:8000", 200), ("[fe80::1]:8000", 200), ("evil.example", 421)]:
            assert (await client.get("/healthz", headers={"host": host})).status_code == status, host


async def test_a_named_host_is_served_by_that_name(stack: Stack) -> None:
    async with guarded(stack, DevDoors.build(["devbox.lan", "10.0.0.5"])) as client:
        for host, status in [("devbox.lan:8000", 200), ("10.0.0.5", 200), ("other.lan", 421)]:
            assert (await client.get("/healthz", headers={"host": host})).status_code == status, host


# Origin: browsers' cross-origin requests only from --cors-origin, with real CORS.


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "null", "http://localhost:8001", "https://app.example.com"]
)
async def test_a_cross_origin_browser_request_is_refused(
    client: httpx.AsyncClient, stack: Stack, origin: str
) -> None:
    response = await client.post("/", content=BODY, headers={"origin": origin, **JSON})
    message = refusal(response, 403)
    assert f"--cors-origin {origin}" in message
    assert "access-control-allow-origin" not in response.headers
    assert untouched(stack)
    preflight = await client.options("/", headers={"origin": origin, "access-control-request-method": "POST"})
    assert preflight.status_code == 403
    assert "access-control-allow-origin" not in preflight.headers


async def test_the_servers_own_pages_are_same_origin(client: httpx.AsyncClient) -> None:
    for origin, host in [("http://127.0.0.1:8000", "127.0.0.1:8000"), ("http://localhost", "localhost:80")]:
        response = await client.post("/", content=BODY, headers={"origin": origin, "host": host, **JSON})
        assert response.status_code == 200, (origin, response.text)


async def test_an_allowed_origin_gets_cors(client: httpx.AsyncClient) -> None:
    preflight = await client.options(
        "/",
        headers={
            "origin": APP,
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type, x-api-key, authorization",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == APP
    assert "POST" in preflight.headers["access-control-allow-methods"]
    assert "x-api-key" in preflight.headers["access-control-allow-headers"].lower()
    response = await client.post("/", content=BODY, headers={"origin": APP, **JSON})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == APP
    refused = await client.post("/", content=BODY, headers={"origin": APP, "content-type": "text/plain"})
    assert refused.status_code == 415
    assert refused.headers["access-control-allow-origin"] == APP  # the page can read why


def test_cors_origins_are_checked_and_normalized() -> None:
    assert parse_origin("HTTPS://App.Example.com:3000/") == "https://app.example.com:3000"
    assert parse_origin("http://[::1]:5173") == "http://[::1]:5173"
    for bad in ["app.example.com", "https://app.example.com/path", "ftp://x", "https://", "*"]:
        with pytest.raises(SettingsError, match="--cors-origin"):
            parse_origin(bad)


async def test_a_bodiless_post_needs_no_content_type(client: httpx.AsyncClient) -> None:
    # A2A 1.0's HTTP+JSON has bodiless POSTs (`/tasks/{id}:cancel`, `:subscribe`): they pass the
    # content-type door and reach the binding (here: an unknown task, 404 in its own error shape).
    response = await client.post("/tasks/nope:cancel", headers={"A2A-Version": "1.0"})
    assert response.status_code == 404
    assert response.json()["error"]["status"] == "NOT_FOUND"
