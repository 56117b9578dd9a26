"""The benchmarks' send + get workload in each protocol a server answers, and the checks its
answers must pass.

- ``0.3``: JSON-RPC ``message/send`` (``blocking: false``) and ``tasks/get`` at ``/``, no
  ``A2A-Version`` header (0.3, as every 0.x client sends them);
- ``1.0-jsonrpc``: JSON-RPC ``SendMessage`` (``returnImmediately: true``) and ``GetTask`` at
  ``/`` with ``A2A-Version: 1.0``: ``SendMessage``'s result is ``{"task": Task}``, ``GetTask``'s
  the Task;
- ``1.0-rest``: the HTTP+JSON binding, ``POST /message:send`` and ``GET /tasks/{id}`` with
  ``A2A-Version: 1.0``: the same objects as the response bodies.

Every answer must be HTTP 200 with a text body (not base64: an API Gateway REST API without
binary media types would hand base64 to the client), the protocol's shape, and the right task:
the one holding the message just sent, then that same task. Anything else raises
`BenchmarkError`, so no benchmark can end up timing error responses.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lambda_events import rest_event

V1_HEADERS = {"A2A-Version": "1.0"}
REST_HEADERS = {**V1_HEADERS, "content-type": "application/a2a+json", "accept": "application/a2a+json"}
TEXT = "hello, benchmark"

Event = dict[str, Any]
Task = dict[str, Any]


class BenchmarkError(RuntimeError):
    """A response was not what the workload expects; the timing would be meaningless."""


@dataclass(frozen=True)
class Workload:
    """One protocol's two calls: ``send(rpc_id)`` gives the event and the message id it carries,
    ``get(rpc_id, task_id)`` the event; ``sent``/``got`` check an answer and return its task."""

    name: str
    description: str
    send: Callable[[int], tuple[Event, str]]
    get: Callable[[int, str], Event]
    sent: Callable[[dict[str, Any], int, str], Task]  # (response, rpc_id, message id) -> task
    got: Callable[[dict[str, Any], int, str], Task]  # (response, rpc_id, task id) -> task
    send_method: str
    get_method: str


def body_of(response: dict[str, Any], what: str) -> Any:
    """The JSON body of an HTTP 200 answer given as text."""
    if response.get("statusCode") != 200:
        raise BenchmarkError(f"{what}: HTTP {response.get('statusCode')}: {response.get('body')!r}")
    if response.get("isBase64Encoded"):
        content_type = (response.get("headers") or {}).get("content-type")
        raise BenchmarkError(f"{what}: a base64 body ({content_type}): a REST API would pass it on as is")
    return json.loads(response["body"])


def rpc_result(response: dict[str, Any], rpc_id: int, what: str) -> Any:
    payload = body_of(response, what)
    if payload.get("jsonrpc") != "2.0" or payload.get("id") != rpc_id or "error" in payload:
        raise BenchmarkError(f"{what}: not a JSON-RPC success for id {rpc_id}: {payload}")
    return payload.get("result")


def _holds(task: Any, message_id: str, what: str, *, kind: str | None, state_prefix: str) -> Task:
    """``task`` is a task of this generation (``kind`` for 0.x, state names) holding the message."""
    if not isinstance(task, dict) or not task.get("id") or task.get("kind") != kind:
        raise BenchmarkError(f"{what}: not a task with an id: {task}")
    state = (task.get("status") or {}).get("state", "")
    if not state.startswith(state_prefix):
        raise BenchmarkError(f"{what}: task state {state!r} is not a {state_prefix or '0.x'} state")
    if message_id not in [message.get("messageId") for message in task.get("history") or []]:
        raise BenchmarkError(f"{what}: task {task['id']} does not hold message {message_id}")
    return task


def _same(task: Any, task_id: str, what: str, *, kind: str | None, state_prefix: str) -> Task:
    if not isinstance(task, dict) or task.get("id") != task_id or task.get("kind") != kind:
        raise BenchmarkError(f"{what}: not task {task_id}: {task}")
    if not (task.get("status") or {}).get("state", "").startswith(state_prefix):
        raise BenchmarkError(
            f"{what}: task state {task.get('status')} is not a {state_prefix or '0.x'} state"
        )
    return task


def _message_v0() -> dict[str, Any]:
    parts = [{"kind": "text", "text": TEXT}]
    return {"kind": "message", "role": "user", "messageId": str(uuid.uuid4()), "parts": parts}


def _message_v1() -> dict[str, Any]:
    return {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": TEXT}]}


def _rpc(rpc_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params}


def _v0_send(rpc_id: int) -> tuple[Event, str]:
    message = _message_v0()
    configuration = {"blocking": False, "acceptedOutputModes": ["text/plain"]}
    body = _rpc(rpc_id, "message/send", {"message": message, "configuration": configuration})
    return rest_event(body, str(uuid.uuid4())), message["messageId"]


def _v1_send_params() -> dict[str, Any]:
    configuration = {"returnImmediately": True, "acceptedOutputModes": ["text/plain"]}
    return {"message": _message_v1(), "configuration": configuration}


def _v1_rpc_send(rpc_id: int) -> tuple[Event, str]:
    params = _v1_send_params()
    event = rest_event(_rpc(rpc_id, "SendMessage", params), str(uuid.uuid4()), headers=V1_HEADERS)
    return event, params["message"]["messageId"]


def _v1_rest_send(_: int) -> tuple[Event, str]:
    params = _v1_send_params()
    event = rest_event(params, str(uuid.uuid4()), path="/message:send", headers=REST_HEADERS)
    return event, params["message"]["messageId"]


def _v1_sent(task: Any, message_id: str, what: str) -> Task:
    if not isinstance(task, dict) or set(task) != {"task"}:
        raise BenchmarkError(f"{what}: not a SendMessage result {{task}}: {task}")
    return _holds(task["task"], message_id, what, kind=None, state_prefix="TASK_STATE_")


V0_3 = Workload(
    name="0.3",
    description="JSON-RPC 0.3 (no A2A-Version): message/send (blocking=false) + tasks/get",
    send=_v0_send,
    get=lambda rpc_id, task_id: rest_event(_rpc(rpc_id, "tasks/get", {"id": task_id}), str(uuid.uuid4())),
    sent=lambda r, rpc_id, mid: _holds(
        rpc_result(r, rpc_id, "message/send"), mid, "message/send", kind="task", state_prefix=""
    ),
    got=lambda r, rpc_id, tid: _same(
        rpc_result(r, rpc_id, "tasks/get"), tid, "tasks/get", kind="task", state_prefix=""
    ),
    send_method="message/send",
    get_method="tasks/get",
)
V1_JSONRPC = Workload(
    name="1.0-jsonrpc",
    description="JSON-RPC 1.0 (A2A-Version: 1.0): SendMessage (returnImmediately) + GetTask",
    send=_v1_rpc_send,
    get=lambda rpc_id, task_id: rest_event(
        _rpc(rpc_id, "GetTask", {"id": task_id}), str(uuid.uuid4()), headers=V1_HEADERS
    ),
    sent=lambda r, rpc_id, mid: _v1_sent(rpc_result(r, rpc_id, "SendMessage"), mid, "SendMessage"),
    got=lambda r, rpc_id, tid: _same(
        rpc_result(r, rpc_id, "GetTask"), tid, "GetTask", kind=None, state_prefix="TASK_STATE_"
    ),
    send_method="SendMessage",
    get_method="GetTask",
)
V1_REST = Workload(
    name="1.0-rest",
    description="HTTP+JSON 1.0 (A2A-Version: 1.0): POST /message:send (returnImmediately) + GET /tasks/{id}",
    send=_v1_rest_send,
    get=lambda _, task_id: rest_event(
        None, str(uuid.uuid4()), method="GET", path=f"/tasks/{task_id}", headers=REST_HEADERS
    ),
    sent=lambda r, _, mid: _v1_sent(body_of(r, "POST /message:send"), mid, "POST /message:send"),
    got=lambda r, _, tid: _same(
        body_of(r, "GET /tasks/{id}"), tid, "GET /tasks/{id}", kind=None, state_prefix="TASK_STATE_"
    ),
    send_method="POST /message:send",
    get_method="GET /tasks/{id}",
)
WORKLOADS = {workload.name: workload for workload in (V0_3, V1_JSONRPC, V1_REST)}
