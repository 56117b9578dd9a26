"""JSON as JSON defines it, on every binding (outside testing, issue 22 items 2 and 6).

Python's parser takes ``NaN``, ``Infinity`` and ``-Infinity``, which are not JSON, turns ``1e400``
into infinity and stops at integers of more than 4,300 digits with an error naming
``sys.set_int_max_str_digits``. A stored infinity or NaN comes back as ``null``: a silent change
of the client's data. Here the constants are parse errors, a number that cannot be kept as sent
is an invalid-params error naming its field, a request id is bounded (256 characters or digits)
and refused cleanly past that, and nothing refused is stored.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_core.compose.app import compose_app
from a2a_core.examples.echo import agent as echo
from support import Stack
from v1_support import V1, expect_rest_error, expect_rpc_error

pytestmark = pytest.mark.anyio

HUGE_INT = "1" * 4301


@pytest.fixture
def stack() -> Stack:
    return Stack(echo, default_blocking=False)


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    async with httpx.AsyncClient(transport=transport, base_url="http://agent.test") as client:
        yield client


def v0_send(data: str) -> str:
    """A 0.3 message/send whose data part is ``data``, raw JSON text."""
    part = '{"kind":"data","data":' + data + "}"
    message = '{"role":"user","messageId":"m1","parts":[' + part + "]}"
    return '{"jsonrpc":"2.0","id":"r","method":"message/send","params":{"message":' + message + "}}"


def v1_params(data: str) -> str:
    part = '{"data":' + data + "}"
    message = '{"role":"ROLE_USER","messageId":"m1","parts":[' + part + "]}"
    return '{"message":' + message + ',"configuration":{"returnImmediately":true}}'


def v1_send(data: str) -> str:
    return '{"jsonrpc":"2.0","id":"r","method":"SendMessage","params":' + v1_params(data) + "}"


async def post(client: httpx.AsyncClient, path: str, body: str, headers: dict[str, str]) -> httpx.Response:
    sent = {"content-type": "application/json", **headers}
    return await client.post(path, content=body.encode(), headers=sent)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
async def test_nan_and_infinity_are_not_json(client: httpx.AsyncClient, stack: Stack, constant: str) -> None:
    data = '{"v":' + constant + "}"
    v0 = (await post(client, "/", v0_send(data), {})).json()
    assert (v0["id"], v0["error"]["code"]) == (None, -32700)
    assert f"{constant.lstrip('-')} is not a JSON value" in v0["error"]["message"]
    v1 = await post(client, "/", v1_send(data), V1)
    assert "is not a JSON value" in expect_rpc_error(v1, "PARSE_ERROR", request_id=None)
    rest = await post(client, "/message:send", v1_params(data), V1)
    assert "is not a JSON value" in expect_rest_error(rest, "PARSE_ERROR")
    assert not stack.store._logs


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1E999", HUGE_INT, "-" + HUGE_INT])
async def test_a_number_that_cannot_be_kept_names_its_field(
    client: httpx.AsyncClient, stack: Stack, number: str
) -> None:
    data = '{"ok":1.5,"w":[0,' + number + "]}"
    field = "message.parts.0.data.w.1"
    v0 = (await post(client, "/", v0_send(data), {})).json()
    assert (v0["id"], v0["error"]["code"]) == ("r", -32602)
    assert v0["error"]["data"][0]["field"] == field
    assert "Number out of range" in v0["error"]["message"]
    assert "set_int_max_str_digits" not in v0["error"]["message"]
    v1_field = "message.parts[0].data.w[1]"  # 1.0 names fields as google.rpc.BadRequest does
    v1 = await post(client, "/", v1_send(data), V1)
    expect_rpc_error(v1, "INVALID_PARAMS", request_id="r", fields=[v1_field])
    rest = await post(client, "/message:send", v1_params(data), V1)
    expect_rest_error(rest, "INVALID_PARAMS", fields=[v1_field])
    assert not stack.store._logs


async def test_numbers_in_range_are_kept_as_sent(client: httpx.AsyncClient, stack: Stack) -> None:
    data = '{"big":' + "9" * 300 + ',"tiny":5e-324,"max":1.7976931348623157e308}'
    sent = (await post(client, "/", v0_send(data), {})).json()
    task = sent["result"]
    got = (await post(client, "/", json.dumps(_get(task["id"])), {})).json()["result"]
    assert got["history"][0]["parts"][0]["data"] == {
        "big": int("9" * 300),
        "tiny": 5e-324,
        "max": 1.7976931348623157e308,
    }


def _get(task_id: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task_id}}


@pytest.mark.parametrize(
    "request_id",
    [HUGE_INT, "-" + "9" * 257, json.dumps("x" * 257)],
    ids=["4301 digits", "257 digits", "257 chars"],
)
@pytest.mark.parametrize("version", [{}, V1], ids=["0.3", "1.0"])
async def test_an_id_too_long_is_an_invalid_request(
    client: httpx.AsyncClient, stack: Stack, request_id: str, version: dict[str, str]
) -> None:
    method = "SendMessage" if version else "message/send"
    body = '{"jsonrpc":"2.0","id":' + request_id + ',"method":"' + method + '","params":{}}'
    answer = (await post(client, "/", body, version)).json()
    assert (answer["id"], answer["error"]["code"]) == (None, -32600)
    assert "at most 256" in answer["error"]["message"]
    assert "set_int_max_str_digits" not in answer["error"]["message"]
    assert not stack.store._logs


@pytest.mark.parametrize("request_id", ["9" * 256, "x" * 256])
async def test_an_id_of_256_characters_is_echoed(client: httpx.AsyncClient, request_id: str) -> None:
    value: Any = int(request_id) if request_id.isdigit() else request_id
    body = json.dumps({"jsonrpc": "2.0", "id": value, "method": "tasks/get", "params": {"id": "nope"}})
    answer = (await post(client, "/", body, {})).json()
    assert (answer["id"], answer["error"]["code"]) == (value, -32001)
