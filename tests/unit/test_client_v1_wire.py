"""A2AClient over A2A 1.0 against scripted HTTP answers (httpx.MockTransport): requests as each
binding shapes them, errors as each binding carries them, subscriptions folded."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from a2a_core.client import A2AClient, A2AClientHTTPError
from a2a_core.client.errors import error_from_status, error_from_wire
from a2a_core.core.errors import (
    InvalidParamsError,
    StoreUnavailableError,
    TaskNotFoundError,
    UnsupportedOperationError,
    VersionNotSupportedError,
)
from a2a_core.domain import Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent
from a2a_core.protocol.v1.errors import jsonrpc_error, rest_error

pytestmark = pytest.mark.anyio

BASE = "http://agent.test/"
TASK = {"id": "t/1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}
Handler = Callable[[httpx.Request], httpx.Response]


def client(handler: Handler, binding: str = "jsonrpc") -> A2AClient:
    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return A2AClient(BASE, rpc_url=BASE, httpx_client=http, binding=binding, protocol_version="1.0")


def rpc(request: httpx.Request, **payload: Any) -> httpx.Response:
    body = json.loads(request.content)
    return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], **payload})


def sse(*payloads: dict[str, Any], event: str | None = None) -> httpx.Response:
    lines = []
    for payload in payloads:
        if event:
            lines.append(f"event: {event}")
        lines += [f"data: {json.dumps(payload)}", ""]
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, text="\n".join(lines) + "\n")


def status(state: str) -> dict[str, Any]:
    return {"statusUpdate": {"taskId": "t/1", "contextId": "c1", "status": {"state": state}}}


def chunk(text: str, *, append: bool) -> dict[str, Any]:
    artifact = {"artifactId": "a", "parts": [{"text": text}]}
    return {"artifactUpdate": {"taskId": "t/1", "contextId": "c1", "artifact": artifact, "append": append}}


async def test_json_rpc_1_0_names_the_operation_and_the_version() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return rpc(request, result={"task": TASK})

    task = await client(handler).send_message("hi", blocking=False, history_length=2)
    assert isinstance(task, Task)
    assert (task.id, task.status.state) == ("t/1", TaskState.working)
    body = json.loads(seen[0].content)
    assert seen[0].headers["a2a-version"] == "1.0"
    assert body["method"] == "SendMessage"
    assert body["params"]["configuration"] == {"returnImmediately": True, "historyLength": 2}
    assert body["params"]["message"]["role"] == "ROLE_USER"
    assert body["params"]["message"]["parts"] == [{"text": "hi"}]


async def test_rest_routes_encode_path_and_query_parameters() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/tasks":
            return httpx.Response(200, json={"tasks": [TASK], "pageSize": 1})  # defaults left out
        return httpx.Response(200, json=TASK)

    agent = client(handler, "rest")
    await agent.get_task("t/1", history_length=0)
    page = await agent.list_tasks(
        state=TaskState.input_required,
        include_artifacts=False,
        status_timestamp_after=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
    )
    await agent.cancel_task("t/1")
    assert (page.next_page_token, page.total_size, [t.id for t in page.tasks]) == ("", 0, ["t/1"])
    get, listing, cancel = seen
    assert (get.method, get.url.raw_path) == ("GET", b"/tasks/t%2F1?historyLength=0")
    assert dict(listing.url.params) == {
        "status": "TASK_STATE_INPUT_REQUIRED",
        "includeArtifacts": "false",
        "statusTimestampAfter": "2026-01-02T03:04:05.000Z",
    }
    assert (cancel.method, cancel.url.raw_path, json.loads(cancel.content)) == (
        "POST",
        b"/tasks/t%2F1:cancel",
        {"id": "t/1"},
    )
    assert {r.headers["a2a-version"] for r in seen} == {"1.0"}


async def test_rest_errors_map_back_by_reason_and_status() -> None:
    unavailable = rest_error(StoreUnavailableError("try later"))
    invalid = rest_error(
        InvalidParamsError("bad", data=[{"field": "message.parts.0.text", "message": "empty"}])
    )
    answers = iter([unavailable, invalid, (401, {"error": {"code": 401, "status": "UNAUTHENTICATED"}})])

    def handler(request: httpx.Request) -> httpx.Response:
        code, body = next(answers)
        return httpx.Response(code, json=body)

    agent = client(handler, "rest")
    with pytest.raises(StoreUnavailableError, match="try later"):
        await agent.get_task("t")
    with pytest.raises(InvalidParamsError) as raised:
        await agent.get_task("t")
    assert raised.value.data == [{"field": "message.parts[0].text", "message": "empty"}]
    with pytest.raises(A2AClientHTTPError) as refused:  # no A2A reason: the HTTP status says it
        await agent.get_task("t")
    assert refused.value.status_code == 401


def test_1_0_error_details_become_0_x_data() -> None:
    error = VersionNotSupportedError("no", data={"requestedVersion": "9.9"})
    mapped = error_from_wire(jsonrpc_error(error))
    assert isinstance(mapped, VersionNotSupportedError)
    assert mapped.data == {"requestedVersion": "9.9"}
    assert error_from_status({"error": {"details": [{"@type": "x", "reason": "NO_SUCH"}]}}) is None
    assert error_from_status("Bad Gateway") is None


async def test_a_rest_stream_error_event_is_raised_as_its_domain_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return sse({"task": TASK}, rest_error(TaskNotFoundError("gone"))[1])

    stream = client(handler, "rest").stream_message("hi")
    assert isinstance(await anext(stream), Task)
    with pytest.raises(TaskNotFoundError, match="gone"):
        await anext(stream)


async def test_a_subscription_refused_for_an_ended_task_is_read_and_folded() -> None:
    calls: list[str] = []
    done = {
        **TASK,
        "status": {"state": "TASK_STATE_COMPLETED"},
        "artifacts": [{"artifactId": "a", "parts": [{"text": "one "}, {"text": "two"}]}],
    }

    def handler(request: httpx.Request) -> httpx.Response:
        method = json.loads(request.content)["method"]
        calls.append(method)
        if method == "SendStreamingMessage":
            return sse(
                *[
                    {"jsonrpc": "2.0", "id": 1, "result": r}
                    for r in ({"task": TASK}, chunk("one ", append=False))
                ]
            )
        if method == "SubscribeToTask":
            return rpc(request, error=jsonrpc_error(UnsupportedOperationError("Task is completed")))
        return rpc(request, result=done)

    events = [event async for event in client(handler).stream_message("hi")]
    assert calls == ["SendStreamingMessage", "SubscribeToTask", "GetTask"]
    assert [type(e) for e in events] == [
        Task,
        TaskArtifactUpdateEvent,
        TaskArtifactUpdateEvent,
        TaskStatusUpdateEvent,
    ]
    grown = events[2]
    assert isinstance(grown, TaskArtifactUpdateEvent)
    assert grown.append
    assert [p.model_dump()["text"] for p in grown.artifact.parts] == ["two"]
    assert isinstance(events[-1], TaskStatusUpdateEvent)
    assert events[-1].final


async def test_a_resumed_subscription_starts_from_the_snapshot_without_last_event_id() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            return httpx.Response(
                200,
                headers={"content-type": "text/event-stream"},
                text="id: 7\ndata: " + json.dumps({"task": TASK}) + "\n\n",
            )
        snapshot = {**TASK, "artifacts": [{"artifactId": "a", "parts": [{"text": "one "}]}]}
        return sse({"task": snapshot}, chunk("two", append=True), status("TASK_STATE_COMPLETED"))

    events = [event async for event in client(handler, "rest").stream_message("hi")]
    assert [r.url.raw_path for r in seen] == [b"/message:stream", b"/tasks/t%2F1:subscribe"]
    assert (seen[1].method, seen[1].headers.get("last-event-id")) == ("GET", None)
    assert [type(e) for e in events] == [
        Task,
        TaskArtifactUpdateEvent,
        TaskArtifactUpdateEvent,
        TaskStatusUpdateEvent,
    ]
    assert isinstance(events[-1], TaskStatusUpdateEvent)
    assert (events[-1].final, events[-1].status.state) == (True, TaskState.completed)


@pytest.mark.parametrize("binding", ["jsonrpc", "rest"])
async def test_an_interface_with_a_tenant_names_it_in_every_call(binding: str) -> None:
    interfaces = [
        {"url": f"{BASE}a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0", "tenant": "acme"},
        {"url": f"{BASE}a2a", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0", "tenant": "acme"},
    ]
    card = {"name": "t", "description": "", "version": "1", "supportedInterfaces": interfaces, "skills": []}
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("agent-card.json"):
            return httpx.Response(200, json=card)
        seen.append(request)
        return rpc(request, result=TASK) if binding == "jsonrpc" else httpx.Response(200, json=TASK)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    await A2AClient(BASE, httpx_client=http, binding=binding).get_task("t/1")
    [request] = seen
    if binding == "jsonrpc":
        assert request.url.path == "/a2a"
        assert json.loads(request.content)["params"] == {"id": "t/1", "tenant": "acme"}
    else:
        assert request.url.raw_path == b"/a2a/acme/tasks/t%2F1"
