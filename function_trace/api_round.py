"""The API function's round of requests in the exercise (`function_trace.stage`), as API Gateway
REST proxy events (Mangum) or as HTTP requests (uvicorn behind the Lambda Web Adapter), and the
answers they must get."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from function_trace.variants import ExerciseError, Variant

EVENTS = Path(__file__).resolve().parent.parent / "tests" / "events"
# The REST API's proxy event per auth mode: API Gateway has checked the credential and says who
# the caller is in the request context.
TEMPLATES = {
    "api_key": "apigw_rest_api_key_message_send.json",
    "jwt": "apigw_rest_cognito_message_send.json",
    "iam": "apigw_rest_iam_message_send.json",
    "none": "apigw_rest_message_send.json",
}
# Two parts, each under the per-part limit, over A2A_OFFLOAD_THRESHOLD_BYTES (300 KB) together:
# the commit goes to S3.
OFFLOADED_PARTS = [{"kind": "text", "text": "x" * 160_000} for _ in range(2)]


# A 1.0 request's header (the JSON-RPC path serves 0.3 without it).
V1 = {"A2A-Version": "1.0"}


def api_requests(variant: Variant) -> list[tuple[str, str, Any, set[int], dict[str, str]]]:
    """(HTTP method, path, JSON-RPC body (or 1.0 HTTP+JSON body) or None, JSON-RPC error codes
    allowed, headers)."""
    unknown = {"id": str(uuid.uuid4())}
    v1_message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": "hi 1.0"}]}
    v1_send = {"message": v1_message, "configuration": {"returnImmediately": True}}
    rest_send = {**v1_send, "message": {**v1_message, "messageId": str(uuid.uuid4())}}
    requests: list[tuple[str, str, Any, set[int]]] = [
        ("POST", "/", _rpc("message/send", _send("hello")), set()),  # the first: what a cold start serves
        ("GET", "/.well-known/agent-card.json", None, set()),
        ("GET", "/docs", None, set()),
        ("POST", "/", _rpc("message/send", _send(parts=OFFLOADED_PARTS)), set()),
        ("POST", "/", _rpc("message/stream", {"message": _message("stream")}), set()),
        ("POST", "/", _rpc("tasks/get", unknown), {-32001}),
        ("POST", "/", _rpc("tasks/cancel", unknown), {-32001}),
        ("POST", "/", "{not json", {-32700}),
    ]
    # The 1.0 bindings (loaded on the first 1.0 request): JSON-RPC and HTTP+JSON.
    v1: list[tuple[str, str, Any, set[int]]] = [
        ("POST", "/", _rpc("SendMessage", v1_send), set()),
        ("POST", "/", _rpc("ListTasks", {}), set()),
        ("POST", "/message:send", rest_send, set()),
    ]
    if variant.push:
        hook = {"url": "https://127.0.0.1/hook", "token": "t"}  # refused: a loopback address
        requests += [
            ("GET", "/.well-known/jwks.json", None, set()),
            (
                "POST",
                "/",
                _rpc(
                    "tasks/pushNotificationConfig/set",
                    {"taskId": unknown["id"], "pushNotificationConfig": hook},
                ),
                {-32602},
            ),
            ("POST", "/", _rpc("tasks/pushNotificationConfig/get", unknown), {-32001}),
            ("POST", "/", _rpc("tasks/pushNotificationConfig/list", unknown), {-32001}),
            (
                "POST",
                "/",
                _rpc("tasks/pushNotificationConfig/delete", {**unknown, "pushNotificationConfigId": "c"}),
                {-32001},
            ),
        ]
    return [(*request, {}) for request in requests] + [(*request, V1) for request in v1]


def api_events(variant: Variant) -> list[dict[str, Any]]:
    template = json.loads((EVENTS / TEMPLATES[variant.auth]).read_text())
    events = []
    for method, path, body, _, headers in api_requests(variant):
        event = json.loads(json.dumps(template))
        event |= {"httpMethod": method, "path": path}
        event["headers"] = {**(event.get("headers") or {}), **headers}
        event["multiValueHeaders"] = {
            **(event.get("multiValueHeaders") or {}),
            **{name: [value] for name, value in headers.items()},
        }
        event["requestContext"] |= {
            "httpMethod": method,
            "path": f"/prod{path}",
            "requestId": str(uuid.uuid4()),
        }
        event["body"] = body if isinstance(body, str) or body is None else json.dumps(body)
        for headers in (event.get("headers") or {}, event.get("multiValueHeaders") or {}):
            headers.pop("content-length", None)
            headers.pop("Content-Length", None)
        events.append(event)
    return events


def request_context_header(variant: Variant) -> dict[str, str]:
    """For uvicorn behind the Lambda Web Adapter, the header carrying API Gateway's context."""
    template = json.loads((EVENTS / TEMPLATES[variant.auth]).read_text())
    return {"x-amzn-request-context": json.dumps(template["requestContext"])}


def check_api(variant: Variant, answers: Sequence[tuple[int, str]], *, count: int | None = None) -> None:
    """``answers`` (status, body) to the first ``count`` (default: all) of `api_requests`."""
    for (method, path, body, allowed, _), (status, text) in zip(
        api_requests(variant)[:count], answers, strict=True
    ):
        rpc_method = body if isinstance(body, str) else (body or {}).get("method", "")
        what = f"{variant.label}: {method} {path} {rpc_method}"
        if status != 200:
            raise ExerciseError(f"{what} answered {status}: {text[:500]}")
        if body is None:
            continue
        replies = [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")] or [
            json.loads(text)
        ]
        for reply in replies:
            error = reply.get("error")
            if (error is None) != (not allowed) or (error is not None and error["code"] not in allowed):
                raise ExerciseError(f"{what} answered {reply}, expected errors {allowed or 'none'}")


def _body(response: Mapping[str, Any]) -> str:
    body = response.get("body") or ""
    return base64.b64decode(body).decode() if response.get("isBase64Encoded") else str(body)


def _rpc(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params}


def _message(text: str = "", parts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    parts = parts or [{"kind": "text", "text": text}]
    return {"role": "user", "messageId": str(uuid.uuid4()), "parts": parts}


def _send(text: str = "", parts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"message": _message(text, parts), "configuration": {"blocking": False}}
