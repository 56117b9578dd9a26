"""Every protocol generation through the API Lambda handler (Mangum), behind each front door.

Each request is a real event from tests/events: the REST API's (payload 1.0, ``apigw_rest_*``),
the HTTP API's (payload 2.0, ``apigw_http_*``) and a function URL's (2.0, ``lambda_url_*``),
for a 0.2.5 ``message/send``, an a2a-sdk 0.3 ``message/send``, a 1.0 JSON-RPC ``SendMessage``
(and ``SendStreamingMessage``) and the 1.0 HTTP+JSON routes (send, get, list with query
parameters, cancel, and ``message:stream``); streams come back buffered into one SSE body.
Events that name a task say ``TASK_ID``. No worker runs in the API function: tests that need a
turn to finish run it on the handler's own memory store and queue, on the loop the handler
drives.
"""

from __future__ import annotations

import asyncio
import json
from types import ModuleType
from typing import Any

import pytest

from a2a_core.compose import compose_worker
from a2a_core.core.turn.executor import AgentFunction
from a2a_core.examples.echo import agent as echo
from agents import chunk_text, slow
from auth_support import sse_data
from aws_events import EVENTS, api_context, load_function

DOORS = ["apigw_rest", "apigw_http", "lambda_url"]
pytestmark = pytest.mark.parametrize("door", DOORS)


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop) -> ModuleType:
    env = {"A2A_BACKEND": "memory", "A2A_ALLOW_UNAUTHENTICATED": "true", "A2A_STREAM_BUFFER_SECONDS": "5"}
    return load_function(monkeypatch, "api", env)


def event(door: str, name: str, task_id: str = "") -> dict[str, Any]:
    text = (EVENTS / f"{door}_{name}.json").read_text()
    loaded: dict[str, Any] = json.loads(text.replace("TASK_ID", task_id))
    return loaded


def invoke(api: ModuleType, door: str, request: dict[str, Any]) -> tuple[int, dict[str, str], str]:
    """Status, headers (lower-case names) and body of the handler's answer to ``request``."""
    response: dict[str, Any] = api.handler(request, api_context())
    # Each payload version gets its own response format back.
    assert ("multiValueHeaders" in response) is (door == "apigw_rest")
    assert response["isBase64Encoded"] is False
    headers = {name.lower(): value for name, value in response["headers"].items()}
    return response["statusCode"], headers, response["body"]


def call(api: ModuleType, door: str, request: dict[str, Any], content_type: str) -> Any:
    status, headers, body = invoke(api, door, request)
    assert status == 200, body
    assert headers["content-type"] == content_type
    return json.loads(body)


def run_turn(api: ModuleType, loop: asyncio.AbstractEventLoop, agent: AgentFunction) -> asyncio.Task[None]:
    """The worker Lambda's part: run the next queued turn, on the handler's store and queue."""

    async def run() -> None:
        operation = await api.adapters.broker.receive(timeout=5)
        assert operation is not None
        await compose_worker(api.adapters, agent).handle(operation)

    return loop.create_task(run())


def test_a_0_2_5_message_send(api: ModuleType, door: str) -> None:
    answer = call(api, door, event(door, "message_send"), "application/json")
    assert answer["id"] == "req-1"
    assert answer["result"]["kind"] == "task"
    assert answer["result"]["status"]["state"] == "submitted"


def test_an_a2a_sdk_0_3_message_send_blocks_until_the_turn_ends(
    api: ModuleType, door: str, loop: asyncio.AbstractEventLoop
) -> None:
    request = event(door, "sdk03_message_send")
    worker = run_turn(api, loop, echo)
    answer = call(api, door, request, "application/json")
    loop.run_until_complete(worker)
    assert answer["id"] == json.loads(request["body"])["id"]
    task = answer["result"]
    assert (task["kind"], task["status"]["state"]) == ("task", "completed")
    assert task["history"][0]["parts"] == [{"kind": "text", "text": "hello from a2a-sdk 0.3"}]


def test_a_1_0_json_rpc_send_message(api: ModuleType, door: str) -> None:
    request = event(door, "v1_jsonrpc_send_message")
    answer = call(api, door, request, "application/json")
    assert answer["id"] == json.loads(request["body"])["id"]
    task = answer["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert task["history"][0]["role"] == "ROLE_USER"

    # The same request without its A2A-Version header is a 0.3 request calling a 1.0 method.
    for headers in (request["headers"], request.get("multiValueHeaders", {})):
        for name in [name for name in headers if name.lower() == "a2a-version"]:
            del headers[name]
    refused = call(api, door, request, "application/json")
    assert refused["error"]["code"] == -32601  # 0.3 is served, and has no such method
    assert "A2A-Version: 1.0" in refused["error"]["message"]


def test_the_1_0_http_json_routes(api: ModuleType, door: str) -> None:
    a2a_json = "application/a2a+json"
    task = call(api, door, event(door, "v1_message_send"), a2a_json)["task"]
    task_id = task["id"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED"

    fetched = call(api, door, event(door, "v1_get_task", task_id), a2a_json)
    assert fetched["id"] == task_id
    assert [m["parts"] for m in fetched["history"]] == [[{"text": "hello from a2a-sdk 1.3 over HTTP+JSON"}]]

    # ?status=TASK_STATE_SUBMITTED&pageSize=10&historyLength=0&statusTimestampAfter=2026-01-01T00:00:00Z
    listed = call(api, door, event(door, "v1_list_tasks"), a2a_json)
    assert [t["id"] for t in listed["tasks"]] == [task_id]
    assert (listed["pageSize"], listed["totalSize"], listed["nextPageToken"]) == (10, 1, "")
    assert "history" not in listed["tasks"][0]

    canceled = call(api, door, event(door, "v1_cancel_task", task_id), a2a_json)
    assert canceled["status"]["state"] == "TASK_STATE_CANCELED"
    assert call(api, door, event(door, "v1_list_tasks"), a2a_json)["tasks"] == []


def _json_rpc_stream(door: str) -> dict[str, Any]:
    """The 1.0 JSON-RPC event, carrying SendStreamingMessage instead of SendMessage."""
    request = event(door, "v1_jsonrpc_send_message")
    body = json.loads(request["body"])
    body["method"] = "SendStreamingMessage"
    body["params"] = json.loads(event(door, "v1_message_stream")["body"])
    request["body"] = json.dumps(body)
    for headers in (request["headers"], request.get("multiValueHeaders", {})):
        for name in list(headers):
            if name.lower() == "content-length":
                headers[name] = str(len(request["body"]))
            if name.lower() == "accept":
                headers[name] = (
                    ["text/event-stream"] if isinstance(headers[name], list) else "text/event-stream"
                )
    return request


@pytest.mark.parametrize("binding", ["HTTP+JSON", "JSONRPC"])
def test_a_1_0_stream_is_one_buffered_sse_body(
    api: ModuleType, door: str, binding: str, loop: asyncio.AbstractEventLoop
) -> None:
    request = event(door, "v1_message_stream") if binding == "HTTP+JSON" else _json_rpc_stream(door)
    worker = run_turn(api, loop, slow)
    status, headers, body = invoke(api, door, request)
    loop.run_until_complete(worker)
    assert status == 200
    assert headers["content-type"].startswith("text/event-stream")
    assert body.endswith(("\n\n", "\r\n\r\n"))
    events = sse_data(body)
    if binding == "JSONRPC":  # each event is a JSON-RPC response carrying a StreamResponse
        assert {answer["id"] for answer in events} == {"7a1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"}
        events = [answer["result"] for answer in events]
    assert list(events[0]) == ["task"]
    task_id = events[0]["task"]["id"]
    chunks = [e["artifactUpdate"]["artifact"]["parts"][0]["text"] for e in events if "artifactUpdate" in e]
    assert chunks == [chunk_text("chunks=2 delay=0", index) for index in range(2)]
    final = events[-1]["statusUpdate"]
    assert (final["taskId"], final["status"]["state"]) == (task_id, "TASK_STATE_COMPLETED")
    assert all("final" not in update for update in (e.get("statusUpdate", {}) for e in events))


@pytest.mark.parametrize(("task_id", "encoded"), [("été", "%C3%A9t%C3%A9"), ("50% off", "50%25%20off")])
def test_an_id_that_needs_escaping_reaches_the_routes_intact(
    api: ModuleType, door: str, task_id: str, encoded: str
) -> None:
    # The REST API and function URLs pass the path still encoded, the HTTP API decoded.
    request = event(door, "v1_get_task", task_id if door == "apigw_http" else encoded)
    status, _, body = invoke(api, door, request)
    assert status == 404
    assert json.loads(body)["error"]["message"] == f"Task {task_id} not found"


def _with_version(request: dict[str, Any], value: str) -> dict[str, Any]:
    for headers in (request["headers"], request.get("multiValueHeaders", {})):
        for name in [name for name in headers if name.lower() == "a2a-version"]:
            headers[name] = [value] if isinstance(headers[name], list) else value
    return request


@pytest.mark.parametrize("value", ["1" * 4301 + ".0", "1." + "0" * 4301])
def test_a_version_no_int_can_hold_is_refused_not_a_500(api: ModuleType, door: str, value: str) -> None:
    request = _with_version(event(door, "v1_jsonrpc_send_message"), value)
    assert call(api, door, request, "application/json")["error"]["code"] == -32009
    status, _, body = invoke(api, door, _with_version(event(door, "v1_list_tasks"), value))
    assert (status, json.loads(body)["error"]["status"]) == (400, "FAILED_PRECONDITION")
