"""A2A-Version negotiation over HTTP (spec 3.6): which generation answers a request.

The header or the ``A2A-Version`` query parameter picks it: absent or empty is 0.3 (0.2.5 clients,
which predate the parameter, are served by the 0.3 methods), ``0.2``/``0.3`` the 0.x methods,
``1.0`` (a patch part ignored) the 1.0 ones. Anything else, and values that disagree, are
VersionNotSupportedError: -32009 over JSON-RPC (in 1.0's shape, id echoed), 400
FAILED_PRECONDITION over HTTP+JSON; only ASCII digits of sane length are read, so neither a
number Python cannot convert nor digits of another script pass for a version. A method of the
other generation is -32601 (the requested version is served, and has no such method) saying
which header reaches it; HTTP+JSON without ``A2A-Version: 1.0`` is VersionNotSupportedError.
"""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from v1_support import call_rest, call_rpc, expect_rest_error, expect_rpc_error, message

pytestmark = pytest.mark.anyio

SUPPORTED = '["0.3","1.0"]'


def v0_send() -> dict[str, Any]:
    user = {"role": "user", "messageId": str(uuid.uuid4()), "parts": [{"kind": "text", "text": "hi"}]}
    return {"message": user, "configuration": {"blocking": False}}


def v1_send() -> dict[str, Any]:
    return {"message": message(), "configuration": {"returnImmediately": True}}


def version(value: str | None) -> dict[str, str]:
    return {} if value is None else {"A2A-Version": value}


@pytest.mark.parametrize("value", [None, "", "0.3", "0.3.0", "0.2", "0.2.5", " 0.3 "])
async def test_0x_values_are_served_by_the_0x_methods(client: httpx.AsyncClient, value: str | None) -> None:
    sent = await call_rpc(client, "message/send", v0_send(), request_id="a", headers=version(value))
    assert sent.json()["result"]["kind"] == "task"
    refused = await call_rpc(client, "SendMessage", v1_send(), request_id="b", headers=version(value))
    assert refused.status_code == 200
    assert refused.json() == {
        "jsonrpc": "2.0",
        "id": "b",
        "error": {
            "code": -32601,
            "message": "SendMessage is an A2A 1.0 method: send the header A2A-Version: 1.0",
        },
    }


@pytest.mark.parametrize("value", ["1.0", "1.0.1", "1.0.0"])
@pytest.mark.parametrize("where", ["header", "query"])
async def test_1_0_values_are_served_by_the_1_0_methods(
    client: httpx.AsyncClient, value: str, where: str
) -> None:
    headers, path = (version(value), "/") if where == "header" else ({}, f"/?A2A-Version={value}")
    sent = await client.post(path, json=_rpc("SendMessage", v1_send()), headers=headers)
    assert sent.json()["result"]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    refused = await client.post(path, json=_rpc("message/send", v0_send(), "m"), headers=headers)
    message = expect_rpc_error(refused, "METHOD_NOT_FOUND", request_id="m")
    assert (
        message
        == "message/send is an A2A 0.2.5/0.3 method: send it without A2A-Version (or with A2A-Version: 0.3)"
    )
    rest_headers, rest_path = (
        (headers, "/tasks") if where == "header" else ({}, f"/tasks?A2A-Version={value}")
    )
    listed = await call_rest(client, "GET", rest_path, headers=rest_headers)
    assert listed.status_code == 200
    assert listed.json()["totalSize"] == 1


def _rpc(method: str, params: Any, request_id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


UNSUPPORTED = ["2.0", "1", "abc", "1.2", "0.5", "0.1", "v1.0", "1.0-rc1", "1.0.", "01.0000001"]


@pytest.mark.parametrize("value", UNSUPPORTED)
@pytest.mark.parametrize("where", ["header", "query"])
async def test_unsupported_values_are_version_not_supported(
    client: httpx.AsyncClient, value: str, where: str
) -> None:
    headers, query = (version(value), "") if where == "header" else ({}, f"?A2A-Version={value}")
    metadata = {"requestedVersion": value, "supportedVersions": SUPPORTED}
    # Whatever the method (even a 0.x one): the request is refused before its method is looked at.
    for method, params in (("SendMessage", v1_send()), ("message/send", v0_send())):
        response = await client.post("/" + query, json=_rpc(method, params, "v"), headers=headers)
        text = expect_rpc_error(response, "VERSION_NOT_SUPPORTED", request_id="v", metadata=metadata)
        assert text == (
            f"A2A-Version {value!r} is not supported; this agent speaks 0.3, 1.0 "
            "(Major.Minor; an empty value means 0.3)"
        )
    rest = await call_rest(client, "POST", "/message:send" + query, v1_send(), headers=headers)
    expect_rest_error(rest, "VERSION_NOT_SUPPORTED", metadata=metadata)


async def test_header_and_query_parameter_must_agree(client: httpx.AsyncClient) -> None:
    headers = version("1.0")
    metadata = {"requestedVersion": "1.0,0.3", "supportedVersions": SUPPORTED}
    response = await client.post("/?A2A-Version=0.3", json=_rpc("SendMessage", v1_send()), headers=headers)
    assert "disagree" in expect_rpc_error(response, "VERSION_NOT_SUPPORTED", metadata=metadata)
    rest = await call_rest(client, "GET", "/tasks?A2A-Version=0.3", headers=headers)
    expect_rest_error(rest, "VERSION_NOT_SUPPORTED", metadata=metadata)
    # Agreeing values are one request for one version.
    agreed = await client.post("/?A2A-Version=1.0", json=_rpc("GetTask", {"id": "x"}), headers=headers)
    expect_rpc_error(agreed, "TASK_NOT_FOUND")


async def test_a_repeated_header_must_agree_with_itself(client: httpx.AsyncClient) -> None:
    repeated = [("A2A-Version", "1.0"), ("A2A-Version", "0.3")]
    response = await client.post("/", json=_rpc("SendMessage", v1_send()), headers=repeated)
    expect_rpc_error(
        response,
        "VERSION_NOT_SUPPORTED",
        metadata={"requestedVersion": "1.0,0.3", "supportedVersions": SUPPORTED},
    )


@pytest.mark.parametrize("value", [None, "", "0.3", "0.2"])
async def test_http_json_needs_a2a_version_1_0(client: httpx.AsyncClient, value: str | None) -> None:
    response = await call_rest(client, "POST", "/message:send", v1_send(), headers=version(value))
    message = expect_rest_error(
        response,
        "VERSION_NOT_SUPPORTED",
        metadata={"requestedVersion": "0.3", "supportedVersions": '["1.0"]'},
    )
    assert "send the header A2A-Version: 1.0" in message


async def test_cards_and_health_are_served_whatever_the_version(client: httpx.AsyncClient) -> None:
    # The card is how a client learns which versions are spoken: it is never refused for one.
    for path in ("/.well-known/agent-card.json", "/.well-known/agent.json", "/healthz"):
        response = await client.get(path, headers=version("2.0"))
        assert response.status_code == 200


# Digits of other scripts (Arabic-Indic, Devanagari, fullwidth): \d would read them as 1.0 and 0.3.
NOT_ASCII = ["\u0661.\u0660", "\u0967.\u0966", "\uff11.\uff10", "1.\u0660", "\u0660.\u0663"]


@pytest.mark.parametrize("value", NOT_ASCII)
async def test_digits_of_other_scripts_are_no_version(client: httpx.AsyncClient, value: str) -> None:
    query = "?" + urlencode({"A2A-Version": value})
    metadata = {"requestedVersion": value, "supportedVersions": SUPPORTED}
    response = await client.post("/" + query, json=_rpc("SendMessage", v1_send(), "u"))
    expect_rpc_error(response, "VERSION_NOT_SUPPORTED", request_id="u", metadata=metadata)
    rest = await call_rest(client, "GET", "/tasks" + query, headers={})
    expect_rest_error(rest, "VERSION_NOT_SUPPORTED", metadata=metadata)


HUGE = ["1" * 4301 + ".0", "1." + "0" * 4301, "1.0." + "9" * 5000, "9" * 60_000 + ".0"]


@pytest.mark.parametrize("value", HUGE, ids=["major", "minor", "patch", "60k"])
@pytest.mark.parametrize("where", ["header", "query"])
async def test_a_version_of_thousands_of_digits_is_refused_not_a_crash(
    client: httpx.AsyncClient, value: str, where: str
) -> None:
    headers, query = (version(value), "") if where == "header" else ({}, f"?A2A-Version={value}")
    # The value is cut short, not echoed whole.
    metadata = {
        "requestedVersion": f"{value[:32]}... ({len(value)} characters)",
        "supportedVersions": SUPPORTED,
    }
    response = await client.post("/" + query, json=_rpc("SendMessage", v1_send(), "h"), headers=headers)
    expect_rpc_error(response, "VERSION_NOT_SUPPORTED", request_id="h", metadata=metadata)
    assert len(response.content) < 1000
    for verb, path in (("GET", "/tasks"), ("POST", "/message:send")):
        body = v1_send() if verb == "POST" else None
        rest = await call_rest(client, verb, path + query, body, headers=headers)
        expect_rest_error(rest, "VERSION_NOT_SUPPORTED", metadata=metadata)
