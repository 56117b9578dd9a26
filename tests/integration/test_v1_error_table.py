"""The A2A 1.0 error table, each error reached by a real request over both bindings.

Every case is sent as JSON-RPC 1.0 (``POST /``, ``A2A-Version: 1.0``, PascalCase method) and as
HTTP+JSON (the operation's route), and both answers are checked exactly: the JSON-RPC ``error``
(code, message, ``data`` = ErrorInfo and, for validation errors, BadRequest) with HTTP 200 and the
id echoed; the ``{"error": {code, status, message, details}}`` body with its HTTP status. Both
bindings run one operation table, so they must say the same thing. No error leaves a task or a
queued run behind.

Errors that need another server (streaming off, a broken store, an agent returning garbage) and
the two this server cannot produce are in `test_v1_error_conditions`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from support import Stack
from v1_support import call_raw, call_rest, call_rpc, expect_rest_error, expect_rpc_error, message

pytestmark = pytest.mark.anyio

DONE = "$DONE"  # replaced by the id of a task that has completed
HOOK = {"url": "https://hooks.example.com/a2a"}
MODES = '["text/plain","application/json"]'  # the server's default modes, as ErrorInfo metadata


@dataclass(frozen=True)
class Case:
    name: str
    rpc: tuple[str, Any]  # method, params
    rest: tuple[str, str, Any]  # HTTP method, path (with query), JSON body or None
    reason: str
    fields: tuple[str, ...] = ()
    metadata: dict[str, str] | None = None
    # Different inputs (a JSON number, a query string) may be worded differently.
    same_message: bool = True


def send(**fields: Any) -> dict[str, Any]:
    return {"message": message(**fields)}


def send_case(name: str, params: dict[str, Any], reason: str, **more: Any) -> Case:
    return Case(name, ("SendMessage", params), ("POST", "/message:send", params), reason, **more)


def stream_case(name: str, params: dict[str, Any], reason: str, **more: Any) -> Case:
    return Case(name, ("SendStreamingMessage", params), ("POST", "/message:stream", params), reason, **more)


def parts(*items: dict[str, Any]) -> dict[str, Any]:
    return send(parts=list(items))


INVALID = "INVALID_PARAMS"
CASES = [
    # -32602: the request message refuses the params (every field named, google.rpc style).
    send_case("no message", {}, INVALID, fields=("message",)),
    send_case("empty parts", send(parts=[]), INVALID, fields=("message.parts",)),
    send_case("unknown role", send(role="ROLE_SYSTEM"), INVALID, fields=("message.role",)),
    send_case("unspecified role", send(role="ROLE_UNSPECIFIED"), INVALID, fields=("message.role",)),
    send_case("agent role", send(role="ROLE_AGENT"), INVALID, fields=("message.role",)),
    send_case("messageId not a string", send(messageId=5), INVALID, fields=("message.messageId",)),
    send_case("bad base64 raw", parts({"raw": "!!!"}), INVALID, fields=("message.parts[0].raw",)),
    send_case("part sets two members", parts({"text": "a", "url": "https://x.example/f"}), INVALID,
              fields=("message.parts[0]",)),
    send_case("part sets no member", parts({"mediaType": "text/plain"}), INVALID,
              fields=("message.parts[0]",)),
    send_case("lone surrogate", parts({"text": "\ud800"}), INVALID, fields=("message.parts[0].text",)),
    send_case("file url scheme", parts({"url": "file:///etc/passwd"}), INVALID,
              fields=("message.parts[0].url",), metadata={"allowedSchemes": '["http","https","s3"]'}),
    send_case("returnImmediately as a string", {**send(), "configuration": {"returnImmediately": "true"}},
              INVALID, fields=("configuration.returnImmediately",)),
    send_case("metadata not an object", {**send(), "metadata": [1]}, INVALID, fields=("metadata",)),
    send_case("another tenant", {**send(), "tenant": "acme"}, INVALID, fields=("tenant",)),
    Case("negative historyLength", ("GetTask", {"id": DONE, "historyLength": -1}),
         ("GET", f"/tasks/{DONE}?historyLength=-1", None), INVALID, fields=("historyLength",)),
    Case("historyLength not a number", ("GetTask", {"id": DONE, "historyLength": "ten"}),
         ("GET", f"/tasks/{DONE}?historyLength=ten", None), INVALID, fields=("historyLength",)),
    Case("pageSize 0", ("ListTasks", {"pageSize": 0}), ("GET", "/tasks?pageSize=0", None),
         INVALID, fields=("pageSize",)),
    Case("pageSize 101", ("ListTasks", {"pageSize": 101}), ("GET", "/tasks?pageSize=101", None),
         INVALID, fields=("pageSize",)),
    Case("fractional pageSize", ("ListTasks", {"pageSize": 1.5}), ("GET", "/tasks?pageSize=1.5", None),
         INVALID, fields=("pageSize",), same_message=False),
    Case("made-up pageToken", ("ListTasks", {"pageToken": "bm90LWEtdG9rZW4"}),
         ("GET", "/tasks?pageToken=bm90LWEtdG9rZW4", None), INVALID, fields=("pageToken",)),
    Case("unknown status", ("ListTasks", {"status": "TASK_STATE_RUNNING"}),
         ("GET", "/tasks?status=TASK_STATE_RUNNING", None), INVALID, fields=("status",)),
    Case("includeArtifacts not a boolean", ("ListTasks", {"includeArtifacts": "yes"}),
         ("GET", "/tasks?includeArtifacts=yes", None), INVALID, fields=("includeArtifacts",),
         same_message=False),
    Case("statusTimestampAfter not a timestamp", ("ListTasks", {"statusTimestampAfter": "yesterday"}),
         ("GET", "/tasks?statusTimestampAfter=yesterday", None), INVALID, fields=("statusTimestampAfter",)),
    Case("tenant in the path", ("GetTask", {"id": DONE, "tenant": "acme"}),
         ("GET", f"/acme/tasks/{DONE}", None), INVALID, fields=("tenant",)),
    # -32001
    Case("unknown task", ("GetTask", {"id": "nope"}), ("GET", "/tasks/nope", None), "TASK_NOT_FOUND"),
    Case("cancel an unknown task", ("CancelTask", {"id": "nope"}), ("POST", "/tasks/nope:cancel", None),
         "TASK_NOT_FOUND"),
    Case("subscribe to an unknown task", ("SubscribeToTask", {"id": "nope"}),
         ("POST", "/tasks/nope:subscribe", None), "TASK_NOT_FOUND"),
    send_case("continue an unknown task", send(taskId="nope"), "TASK_NOT_FOUND"),
    stream_case("stream to an unknown task", send(taskId="nope"), "TASK_NOT_FOUND"),
    # -32002
    Case("cancel a completed task", ("CancelTask", {"id": DONE}), ("POST", f"/tasks/{DONE}:cancel", None),
         "TASK_NOT_CANCELABLE"),
    # -32003: push is off on this server
    send_case("push config with a message", {**send(), "configuration": {"taskPushNotificationConfig": HOOK}},
              "PUSH_NOTIFICATION_NOT_SUPPORTED"),
    Case("create a push config", ("CreateTaskPushNotificationConfig", {"taskId": DONE, **HOOK}),
         ("POST", f"/tasks/{DONE}/pushNotificationConfigs", HOOK), "PUSH_NOTIFICATION_NOT_SUPPORTED"),
    Case("get a push config", ("GetTaskPushNotificationConfig", {"taskId": DONE, "id": "c1"}),
         ("GET", f"/tasks/{DONE}/pushNotificationConfigs/c1", None), "PUSH_NOTIFICATION_NOT_SUPPORTED"),
    Case("list push configs", ("ListTaskPushNotificationConfigs", {"taskId": DONE}),
         ("GET", f"/tasks/{DONE}/pushNotificationConfigs", None), "PUSH_NOTIFICATION_NOT_SUPPORTED"),
    Case("delete a push config", ("DeleteTaskPushNotificationConfig", {"taskId": DONE, "id": "c1"}),
         ("DELETE", f"/tasks/{DONE}/pushNotificationConfigs/c1", None), "PUSH_NOTIFICATION_NOT_SUPPORTED"),
    # -32004 (0.x answers -32602 for a message to a terminal task; 1.0 says UnsupportedOperation)
    send_case("message to a completed task", send(taskId=DONE), "UNSUPPORTED_OPERATION"),
    stream_case("stream to a completed task", send(taskId=DONE), "UNSUPPORTED_OPERATION"),
    Case("subscribe to a completed task", ("SubscribeToTask", {"id": DONE}),
         ("POST", f"/tasks/{DONE}:subscribe", None), "UNSUPPORTED_OPERATION"),
    Case("extended card not declared", ("GetExtendedAgentCard", None), ("GET", "/extendedAgentCard", None),
         "UNSUPPORTED_OPERATION"),
    # -32005
    send_case("no acceptable output mode", {**send(), "configuration": {"acceptedOutputModes": ["image/*"]}},
              "CONTENT_TYPE_NOT_SUPPORTED", metadata={"supportedOutputModes": MODES}),
    send_case("file type not accepted", parts({"raw": "iVBORw0K", "mediaType": "image/png"}),
              "CONTENT_TYPE_NOT_SUPPORTED", metadata={"supportedInputModes": MODES}),
]  # fmt: skip


def _fill(value: Any, task_id: str) -> Any:
    return None if value is None else json.loads(json.dumps(value).replace(DONE, task_id))


def _state(stack: Stack) -> tuple[int, int]:
    return len(stack.store._logs), len(stack.broker)


@pytest.fixture
async def done(client: httpx.AsyncClient, stack: Stack) -> str:
    """A task the echo agent has completed, created over HTTP+JSON."""
    params = {"message": message(), "configuration": {"returnImmediately": True}}
    answer = await call_rest(client, "POST", "/message:send", params)
    await stack.drain()
    return str(answer.json()["task"]["id"])


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_each_error_over_both_bindings(
    client: httpx.AsyncClient, stack: Stack, done: str, case: Case
) -> None:
    before = _state(stack)
    method, params = case.rpc
    over_rpc = await call_rpc(client, method, _fill(params, done), request_id="e-1")
    verb, path, body = case.rest
    over_rest = await call_rest(client, verb, path.replace(DONE, done), _fill(body, done))
    rpc_message = expect_rpc_error(
        over_rpc, case.reason, request_id="e-1", fields=case.fields, metadata=case.metadata
    )
    rest_message = expect_rest_error(over_rest, case.reason, fields=case.fields, metadata=case.metadata)
    if case.same_message:
        assert rpc_message == rest_message
    assert _state(stack) == before


# --- what only one binding can be sent ------------------------------------------------------

RPC_ONLY: list[tuple[str, bytes, str, Any, dict[str, Any]]] = [
    ("not json", b'{"jsonrpc": "2.0", "id": 1, "method": ', "PARSE_ERROR", None, {}),
    ("not utf-8", b'{"id": "\xff"}', "PARSE_ERROR", None, {}),
    ("batch", b'[{"jsonrpc": "2.0", "id": 1, "method": "GetTask"}]', "INVALID_REQUEST", None, {}),
    ("wrong jsonrpc", b'{"jsonrpc": "1.0", "id": 7, "method": "GetTask"}', "INVALID_REQUEST", 7, {}),
    ("method not a string", b'{"jsonrpc": "2.0", "id": 7, "method": 5}', "INVALID_REQUEST", 7, {}),
    ("boolean id", b'{"jsonrpc": "2.0", "id": true, "method": "GetTask"}', "INVALID_REQUEST", None, {}),
    ("unknown method", b'{"jsonrpc": "2.0", "id": "u", "method": "ListTask"}', "METHOD_NOT_FOUND", "u", {}),
    ("positional params", b'{"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": ["x"]}',
     "INVALID_PARAMS", 7, {}),
    ("GetTask without id", b'{"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {}}',
     "INVALID_PARAMS", 7, {"fields": ("id",)}),
    ("too deep", b'{"jsonrpc": "2.0", "id": 7, "method": "SendMessage", "params": {"metadata": '
     + b"[" * 100 + b"]" * 100 + b"}}", "INVALID_REQUEST", 7,
     {"fields": ("params.metadata" + "[0]" * 62,), "metadata": {"maxDepth": "64"}}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "body", "reason", "echoed", "more"), RPC_ONLY, ids=[c[0] for c in RPC_ONLY])
async def test_json_rpc_envelope_errors(
    client: httpx.AsyncClient, stack: Stack, name: str, body: bytes, reason: str, echoed: Any, more: Any
) -> None:
    response = await call_raw(client, "POST", "/", body)
    expect_rpc_error(response, reason, request_id=echoed, **more)
    assert _state(stack) == (0, 0)


REST_ONLY: list[tuple[str, str, str, bytes | None, str, dict[str, Any]]] = [
    ("not json", "POST", "/message:send", b'{"message": ', "PARSE_ERROR", {}),
    ("not utf-8", "POST", "/message:send", b'{"message": "\xff"}', "PARSE_ERROR", {}),
    ("array body", "POST", "/message:send", b"[]", "INVALID_REQUEST", {}),
    ("too deep", "POST", "/message:send", b'{"metadata": ' + b"[" * 100 + b"]" * 100 + b"}",
     "INVALID_REQUEST", {"fields": ("metadata" + "[0]" * 63,), "metadata": {"maxDepth": "64"}}),
    ("unknown path", "GET", "/task/abc", None, "METHOD_NOT_FOUND", {}),
    ("unknown verb", "POST", "/message:pause", None, "METHOD_NOT_FOUND", {}),
    ("path and body disagree", "POST", "/tasks/a:cancel", b'{"id": "b"}', "INVALID_PARAMS",
     {"fields": ("id",)}),
    ("query parameter twice", "GET", "/tasks?pageSize=1&pageSize=2", None, "INVALID_PARAMS",
     {"fields": ("pageSize",)}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "verb", "path", "body", "reason", "more"), REST_ONLY, ids=[c[0] for c in REST_ONLY]
)
async def test_http_json_request_errors(
    client: httpx.AsyncClient,
    stack: Stack,
    name: str,
    verb: str,
    path: str,
    body: bytes | None,
    reason: str,
    more: Any,
) -> None:
    response = await call_raw(client, verb, path, body)
    expect_rest_error(response, reason, **more)
    assert _state(stack) == (0, 0)


@pytest.mark.parametrize(
    ("verb", "path", "allow"),
    [
        ("PUT", "/message:send", "POST"),
        ("GET", "/message:stream", "POST"),
        ("DELETE", "/tasks", "GET"),
        ("GET", "/tasks/t1:cancel", "POST"),
        ("PATCH", "/tasks/t1:subscribe", "GET, POST"),
        ("POST", "/tasks/t1/pushNotificationConfigs/c1", "DELETE, GET"),
        ("POST", "/acme/extendedAgentCard", "GET"),
    ],
)
async def test_a_known_path_with_another_method_is_405_with_allow(
    client: httpx.AsyncClient, verb: str, path: str, allow: str
) -> None:
    response = await call_raw(client, verb, path)
    assert response.headers["allow"] == allow
    message = expect_rest_error(
        response, "METHOD_NOT_FOUND", metadata={"allow": allow}, http_status=405, grpc_status="UNIMPLEMENTED"
    )
    assert message == f"{verb} is not allowed on {path}; use {allow}"


async def test_a_body_over_the_limit_is_refused_by_both_bindings(
    client: httpx.AsyncClient, stack: Stack
) -> None:
    huge = {"message": message("x" * (70 * 1024))}
    limit = {"maxBodyBytes": "65536"}
    expect_rpc_error(
        await call_rpc(client, "SendMessage", huge), "INVALID_REQUEST", request_id=None, metadata=limit
    )
    expect_rest_error(
        await call_rest(client, "POST", "/message:send", huge), "INVALID_REQUEST", metadata=limit
    )
    assert _state(stack) == (0, 0)
