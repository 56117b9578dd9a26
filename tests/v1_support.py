"""Calling both A2A 1.0 bindings over HTTP, and the exact error bodies each must answer.

The expected codes are the spec's (5.4 for the A2A errors, 9.5 for JSON-RPC's own), written out
here rather than read from `a2a_core.protocol.v1.errors`, so a wrong entry there fails the tests.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

V1 = {"A2A-Version": "1.0"}
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
DOMAIN = "a2a-protocol.org"

# ErrorInfo reason -> (JSON-RPC code, google.rpc.Status name, HTTP status).
SPEC: dict[str, tuple[int, str, int]] = {
    "PARSE_ERROR": (-32700, "INVALID_ARGUMENT", 400),
    "INVALID_REQUEST": (-32600, "INVALID_ARGUMENT", 400),
    "METHOD_NOT_FOUND": (-32601, "NOT_FOUND", 404),
    "INVALID_PARAMS": (-32602, "INVALID_ARGUMENT", 400),
    "INTERNAL_ERROR": (-32603, "INTERNAL", 500),
    "TASK_NOT_FOUND": (-32001, "NOT_FOUND", 404),
    "TASK_NOT_CANCELABLE": (-32002, "FAILED_PRECONDITION", 400),
    "PUSH_NOTIFICATION_NOT_SUPPORTED": (-32003, "FAILED_PRECONDITION", 400),
    "UNSUPPORTED_OPERATION": (-32004, "FAILED_PRECONDITION", 400),
    "CONTENT_TYPE_NOT_SUPPORTED": (-32005, "INVALID_ARGUMENT", 400),
    "INVALID_AGENT_RESPONSE": (-32006, "INTERNAL", 500),
    "EXTENDED_AGENT_CARD_NOT_CONFIGURED": (-32007, "FAILED_PRECONDITION", 400),
    "EXTENSION_SUPPORT_REQUIRED": (-32008, "FAILED_PRECONDITION", 400),
    "VERSION_NOT_SUPPORTED": (-32009, "FAILED_PRECONDITION", 400),
    # A2A 1.1 (the dev-1.1 draft): HTTP 409; the draft names no google.rpc status (ABORTED is 409's).
    "TASK_GENERATION_MISMATCH": (-32010, "ABORTED", 409),
}


def message(text: str = "hi", **fields: Any) -> dict[str, Any]:
    """A 1.0 user Message."""
    return {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}], **fields}


async def call_rpc(
    client: httpx.AsyncClient,
    method: str,
    params: Any = None,
    *,
    request_id: Any = 1,
    headers: Mapping[str, str] = V1,
) -> httpx.Response:
    """One JSON-RPC request at ``POST /`` (params left out when None)."""
    payload: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        payload["params"] = params
    return await call_raw(client, "POST", "/", json.dumps(payload).encode(), headers=headers)


async def call_raw(
    client: httpx.AsyncClient,
    verb: str,
    path: str,
    body: bytes | None = None,
    *,
    headers: Mapping[str, str] = V1,
) -> httpx.Response:
    """One request as a client sends it: a JSON body when there is one."""
    sent = {**headers, **({"content-type": "application/json"} if body is not None else {})}
    return await client.request(verb, path, content=body, headers=sent)


async def call_rest(
    client: httpx.AsyncClient, verb: str, path: str, body: Any = None, *, headers: Mapping[str, str] = V1
) -> httpx.Response:
    """One HTTP+JSON request (``body`` None: no body)."""
    raw = None if body is None else json.dumps(body).encode()
    return await call_raw(client, verb, path, raw, headers=headers)


def expect_rpc_error(
    response: httpx.Response,
    reason: str,
    *,
    request_id: Any = 1,
    fields: Sequence[str] = (),
    metadata: Mapping[str, str] | None = None,
) -> str:
    """Check a JSON-RPC error response exactly (spec 9.5); returns its message."""
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    error = body.get("error", {})
    message = error.get("message")
    assert body == {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": SPEC[reason][0], "message": message, "data": error.get("data")},
    }
    _check_details(error["data"], reason, fields, metadata)
    _check_message(message)
    return str(message)


def expect_rest_error(
    response: httpx.Response,
    reason: str,
    *,
    fields: Sequence[str] = (),
    metadata: Mapping[str, str] | None = None,
    http_status: int | None = None,
    grpc_status: str | None = None,
) -> str:
    """Check an HTTP+JSON error response exactly (spec 11.6); returns its message.

    ``http_status``/``grpc_status`` replace the spec table's where a subclass differs (405, 503).
    """
    _, status, http = SPEC[reason]
    http = http_status or http
    assert response.status_code == http, response.text
    assert response.headers["content-type"] == "application/a2a+json"
    body = response.json()
    error = body.get("error", {})
    message = error.get("message")
    assert body == {
        "error": {
            "code": http,
            "status": grpc_status or status,
            "message": message,
            "details": error.get("details"),
        }
    }
    _check_details(error["details"], reason, fields, metadata)
    _check_message(message)
    return str(message)


def _check_details(
    details: Any, reason: str, fields: Sequence[str], metadata: Mapping[str, str] | None
) -> None:
    info: dict[str, Any] = {"@type": ERROR_INFO, "reason": reason, "domain": DOMAIN}
    if metadata is not None:
        info["metadata"] = dict(metadata)
    assert isinstance(details, list)
    assert details[0] == info
    if not fields:
        assert len(details) == 1, details
        return
    assert len(details) == 2, details
    bad_request = details[1]
    assert set(bad_request) == {"@type", "fieldViolations"}
    assert bad_request["@type"] == BAD_REQUEST
    assert [violation["field"] for violation in bad_request["fieldViolations"]] == list(fields)
    for violation in bad_request["fieldViolations"]:
        assert set(violation) == {"field", "description"}
        assert isinstance(violation["description"], str)
        assert violation["description"]


def _check_message(message: Any) -> None:
    assert isinstance(message, str)
    assert message
    assert "Traceback" not in message
