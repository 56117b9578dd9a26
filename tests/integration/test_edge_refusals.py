"""A request refused at the door (auth, and ``a2a-serverless dev``'s Host, Origin and content type
checks) gets its refusal in its own generation and binding: 0.x JSON-RPC the 0.x error object,
1.0 JSON-RPC 1.0's (its ``data`` an ErrorInfo, as every 1.0 error's), HTTP+JSON a
``google.rpc.Status``, each with the refusal's HTTP status and headers. Nothing reaches the agent.
"""

from __future__ import annotations

import json
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_core.auth.testing import LocalIssuer
from a2a_core.compose.app import compose_app
from a2a_core.dev.guard import DevDoors
from a2a_core.examples.echo import agent as echo
from auth_support import API_KEYS, KEYS
from support import Stack

pytestmark = pytest.mark.anyio

V0_MESSAGE = {"role": "user", "messageId": "m1", "parts": [{"kind": "text", "text": "hi"}]}
V1_MESSAGE = {"role": "ROLE_USER", "messageId": "m1", "parts": [{"text": "hi"}]}
ERROR_INFO = {
    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
    "reason": "INVALID_REQUEST",
    "domain": "a2a-protocol.org",
}


@dataclass(frozen=True)
class Shape:
    """How a request speaks: its generation and binding, and the request that says so."""

    name: str
    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def rest(self) -> bool:
        return not self.path.startswith("/?") and self.path != "/"


V0_SEND = {"message": V0_MESSAGE, "configuration": {"blocking": False}}
V1_SEND = {"message": V1_MESSAGE, "configuration": {"returnImmediately": True}}
SHAPES = [
    Shape("0.x JSON-RPC", "/", {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": V0_SEND}),
    Shape(
        "1.0 JSON-RPC",
        "/",
        {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": V1_SEND},
        {"A2A-Version": "1.0"},
    ),
    Shape(
        "1.0 JSON-RPC, version as a query parameter",
        "/?A2A-Version=1.0",
        {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": V1_SEND},
    ),
    Shape("1.0 HTTP+JSON", "/message:send", V1_SEND, {"A2A-Version": "1.0"}),
]
IDS = [shape.name for shape in SHAPES]


def refused(response: httpx.Response, shape: Shape, status: int, grpc_status: str) -> str:
    """The refusal's message, once its shape is the one ``shape`` speaks."""
    assert response.status_code == status, response.text
    answer: dict[str, Any] = response.json()
    if shape.rest:
        assert response.headers["content-type"] == "application/a2a+json"
        assert set(answer) == {"error"}
        assert {key: answer["error"][key] for key in ("code", "status")} == {
            "code": status,
            "status": grpc_status,
        }
        assert set(answer["error"]) == {"code", "status", "message"}  # no A2A reason: an HTTP refusal
    else:
        assert response.headers["content-type"] == "application/json"
        assert (answer["jsonrpc"], answer["id"], answer["error"]["code"]) == ("2.0", None, -32600)
        if shape.name.startswith("0.x"):
            assert set(answer["error"]) == {"code", "message"}
        else:
            assert answer["error"]["data"] == [ERROR_INFO]
    message: str = answer["error"]["message"]
    return message


def untouched(stack: Stack) -> bool:
    return not stack.store._logs and len(stack.broker) == 0


async def post(stack: Stack, shape: Shape, **headers: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    async with httpx.AsyncClient(transport=transport, base_url="http://agent.test") as client:
        sent = {"content-type": "application/json", **shape.headers, **headers}
        return await client.post(shape.path, content=json.dumps(shape.body), headers=sent)


# --- auth ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mode:
    settings: dict[str, Any]
    right: dict[str, str]
    wrong: dict[str, str]
    challenge: str
    # How wrong credentials are refused: a wrong API key is 403; a bearer token that is not valid
    # is 401 with RFC 6750's invalid_token challenge, on which a client gets a new token.
    wrong_status: int = 403
    wrong_challenge: str | None = None


@pytest.fixture(params=["api_key", "jwt"])
def mode(request: pytest.FixtureRequest, tmp_path: Path) -> Mode:
    if request.param == "api_key":
        return Mode(
            {"auth_mode": "api_key", "api_keys": API_KEYS},
            right={"x-api-key": KEYS["alice"]},
            wrong={"x-api-key": "not-a-key"},
            challenge='ApiKey realm="a2a", header="x-api-key"',
        )
    issuer = LocalIssuer()
    return Mode(
        issuer.settings(tmp_path),
        right={"authorization": f"Bearer {issuer.mint('alice')}"},
        wrong={"authorization": f"Bearer {LocalIssuer().mint('alice')}"},  # another issuer's key
        challenge='Bearer realm="a2a"',
        wrong_status=401,
        wrong_challenge='Bearer realm="a2a", error="invalid_token", '
        'error_description="The access token is not valid"',
    )


@pytest.mark.parametrize("shape", SHAPES, ids=IDS)
async def test_no_credentials_is_401_in_the_requests_shape(mode: Mode, shape: Shape) -> None:
    stack = Stack(echo, **mode.settings)
    response = await post(stack, shape)
    assert "Authentication required" in refused(response, shape, 401, "UNAUTHENTICATED")
    assert response.headers["www-authenticate"] == mode.challenge
    assert untouched(stack)


@pytest.mark.parametrize("shape", SHAPES, ids=IDS)
async def test_wrong_credentials_are_refused_in_the_requests_shape(mode: Mode, shape: Shape) -> None:
    stack = Stack(echo, **mode.settings)
    response = await post(stack, shape, **mode.wrong)
    grpc = {401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED"}[mode.wrong_status]
    message = refused(response, shape, mode.wrong_status, grpc)
    assert ("get a new one" if mode.wrong_challenge else "Access denied") in message
    assert response.headers.get("www-authenticate") == mode.wrong_challenge
    assert untouched(stack)
    assert (await post(stack, shape, **mode.right)).status_code == 200


async def test_a_version_not_served_is_refused_in_the_newest_shape(mode: Mode) -> None:
    stack = Stack(echo, **mode.settings)
    response = await post(stack, SHAPES[0], **{"A2A-Version": "9.9"})
    assert response.status_code == 401
    assert response.json()["error"]["data"] == [ERROR_INFO]


# --- the dev server's doors ------------------------------------------------------------------


async def through_the_doors(shape: Shape, **headers: str) -> tuple[httpx.Response, Stack]:
    stack = Stack(echo)
    app = compose_app(stack.service)
    DevDoors.build(["127.0.0.1"]).install(app)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
        sent = {"content-type": "application/json", **shape.headers, **headers}
        return await client.post(shape.path, content=json.dumps(shape.body), headers=sent), stack


@pytest.mark.parametrize("shape", SHAPES, ids=IDS)
async def test_a_body_not_declared_json_is_415_in_the_requests_shape(shape: Shape) -> None:
    response, stack = await through_the_doors(shape, **{"content-type": "text/plain"})
    assert "content-type: application/json" in refused(response, shape, 415, "INVALID_ARGUMENT")
    assert untouched(stack)


@pytest.mark.parametrize("shape", SHAPES, ids=IDS)
async def test_a_foreign_host_is_421_in_the_requests_shape(shape: Shape) -> None:
    response, stack = await through_the_doors(shape, host="rebind.attacker.example:8000")
    assert "DNS rebinding" in refused(response, shape, 421, "PERMISSION_DENIED")
    assert untouched(stack)


@pytest.mark.parametrize("shape", SHAPES, ids=IDS)
async def test_a_foreign_origin_is_403_in_the_requests_shape(shape: Shape) -> None:
    response, stack = await through_the_doors(shape, origin="https://evil.example")
    assert "--cors-origin https://evil.example" in refused(response, shape, 403, "PERMISSION_DENIED")
    assert untouched(stack)


@pytest.mark.parametrize("shape", SHAPES[:3], ids=IDS[:3])
async def test_another_method_on_the_json_rpc_path_is_405_in_the_requests_shape(shape: Shape) -> None:
    stack = Stack(echo)
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    async with httpx.AsyncClient(transport=transport, base_url="http://agent.test") as client:
        response = await client.put(shape.path, content=json.dumps(shape.body), headers=shape.headers)
    assert "use GET, POST" in refused(response, shape, 405, "UNIMPLEMENTED")
    assert response.headers["allow"] == "GET, POST"


@pytest.mark.parametrize("method", ["OPTIONS", "HEAD", "TRACE"])
async def test_a_method_no_route_takes_on_an_http_json_path_is_a_405_status(method: str) -> None:
    stack = Stack(echo)
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    async with httpx.AsyncClient(transport=transport, base_url="http://agent.test") as client:
        response = await client.request(method, "/tasks", headers={"A2A-Version": "1.0"})
    assert response.status_code == 405
    assert response.headers["content-type"] == "application/a2a+json"
    if method != "HEAD":
        assert response.json()["error"]["status"] == "UNIMPLEMENTED"
    assert "GET" in response.headers["allow"]


@pytest.mark.parametrize("method", ["OPTIONS", "GET"])
async def test_the_asterisk_request_target_is_a_404_status(method: str) -> None:
    # `OPTIONS * HTTP/1.1` (RFC 9110 9.3.7) asks about the server, not a resource: no route
    # matches it, and the refusal is written as on every other path that is not the app's own.
    stack = Stack(echo)
    app = compose_app(stack.service)
    sent: list[dict[str, Any]] = []
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": "*",
        "raw_path": b"*",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"agent.test"), (b"a2a-version", b"1.0")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(dict(message))

    await app(scope, receive, send)
    start, body = sent[0], b"".join(m.get("body", b"") for m in sent[1:])
    assert start["status"] == 404
    assert dict(start["headers"])[b"content-type"] == b"application/a2a+json"
    error = json.loads(body)["error"]
    assert (error["code"], error["status"]) == (404, "NOT_FOUND")
