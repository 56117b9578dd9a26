"""A2AClient against scripted HTTP answers (httpx.MockTransport): discovery, errors, resuming."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from a2a_core.client import A2AClient, A2AClientConnectionError, A2AClientHTTPError
from a2a_core.core.errors import A2AError, InvalidParamsError, TaskNotFoundError
from a2a_core.domain import Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent

pytestmark = pytest.mark.anyio

BASE = "http://agent.test/a2a/"
CARD = {
    "name": "Scripted",
    "description": "answers from a script",
    "url": "/a2a/rpc",
    "version": "1",
    "capabilities": {"streaming": True},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [],
}
TASK = {"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "working"}}
Handler = Callable[[httpx.Request], httpx.Response]


def rpc(request: httpx.Request) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(request.content)
    return body


def answer(request: httpx.Request, **payload: Any) -> httpx.Response:
    return httpx.Response(200, json={"jsonrpc": "2.0", "id": rpc(request)["id"], **payload})


def sse(*events: tuple[str | None, dict[str, Any]]) -> httpx.Response:
    lines = []
    for event_id, result in events:
        if event_id is not None:
            lines.append(f"id: {event_id}")
        lines += [f"data: {json.dumps({'jsonrpc': '2.0', 'id': 1, 'result': result})}", ""]
    return httpx.Response(
        200, headers={"content-type": "text/event-stream"}, text="\r\n".join(lines) + "\r\n"
    )


def client(handler: Handler, **options: Any) -> A2AClient:
    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return A2AClient(BASE, rpc_url=f"{BASE}rpc", httpx_client=http, **options)


def status(state: str, *, final: bool = False) -> dict[str, Any]:
    return {
        "kind": "status-update",
        "taskId": "t1",
        "contextId": "c1",
        "status": {"state": state},
        "final": final,
    }


async def test_card_discovery_falls_back_to_agent_json_and_resolves_a_relative_url() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.path.endswith("agent-card.json"):
            return httpx.Response(404)
        return httpx.Response(200, json=CARD)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    agent = A2AClient(BASE.rstrip("/"), httpx_client=http)
    assert (await agent.get_card()).name == "Scripted"
    assert seen == ["/a2a/.well-known/agent-card.json", "/a2a/.well-known/agent.json"]
    assert await agent.rpc_url() == "http://agent.test/a2a/rpc"


async def test_no_card_is_an_http_error() -> None:
    http = httpx.AsyncClient(transport=httpx.MockTransport(lambda request: httpx.Response(404)))
    with pytest.raises(A2AClientHTTPError) as error:
        await A2AClient(BASE, httpx_client=http).get_card()
    assert error.value.status_code == 404
    assert error.value.url.endswith("/agent.json")


async def test_known_error_codes_become_their_domain_errors_with_data() -> None:
    error = {"code": -32602, "message": "Invalid params: id", "data": [{"field": "id"}]}
    with pytest.raises(InvalidParamsError) as raised:
        await client(lambda request: answer(request, error=error)).get_task("t1")
    assert (raised.value.code, raised.value.message, raised.value.data) == (
        -32602,
        "Invalid params: id",
        [{"field": "id"}],
    )


async def test_unknown_error_codes_keep_their_code() -> None:
    error = {"code": -32050, "message": "Quota exceeded", "data": {"retryAfter": 3}}
    with pytest.raises(A2AError) as raised:
        await client(lambda request: answer(request, error=error)).get_task("t1")
    assert (raised.value.code, raised.value.message, raised.value.data) == (
        -32050,
        "Quota exceeded",
        {"retryAfter": 3},
    )


@pytest.mark.parametrize(
    ("response", "fragment"),
    [
        (httpx.Response(502, text="Bad Gateway"), "HTTP 502"),
        (httpx.Response(200, html="<html>login</html>"), "non-JSON (text/html"),
        (httpx.Response(200, json={"ok": True}), "not answer with a JSON-RPC 2.0 response"),
        (httpx.Response(200, json={"jsonrpc": "2.0", "id": 1, "result": {"kind": "task"}}), "invalid object"),
    ],
)
async def test_answers_that_are_not_json_rpc_are_http_errors(response: httpx.Response, fragment: str) -> None:
    with pytest.raises(A2AClientHTTPError, match=re.escape(fragment)) as raised:
        await client(lambda request: response).get_task("t1")
    assert raised.value.status_code == response.status_code


async def test_headers_go_with_every_request() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["authorization"] == "Bearer s3cret"
        return answer(request, result=TASK)

    assert (await client(handler, headers={"Authorization": "Bearer s3cret"}).get_task("t1")).id == "t1"


async def test_a_stream_that_ends_early_is_resumed_after_the_last_event() -> None:
    calls: list[tuple[str, str | None]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append((rpc(request)["method"], request.headers.get("last-event-id")))
        if len(calls) == 1:
            return sse(("1", TASK), ("2", status("working")))
        artifact = {"artifactId": "a", "parts": [{"kind": "text", "text": "x"}]}
        update = {"kind": "artifact-update", "taskId": "t1", "contextId": "c1", "artifact": artifact}
        return sse(("3", update), ("4", status("completed", final=True)))

    async with client(handler).stream_message("hi") as stream:
        events = [event async for event in stream]
    assert [type(e) for e in events] == [
        Task,
        TaskStatusUpdateEvent,
        TaskArtifactUpdateEvent,
        TaskStatusUpdateEvent,
    ]
    assert calls == [("message/stream", None), ("tasks/resubscribe", "2")]
    assert (stream.task_id, stream.last_event_id) == ("t1", "4")


async def test_a_stream_that_keeps_failing_gives_up() -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(rpc(request)["method"])
        return sse(("1", TASK)) if len(calls) == 1 else sse()

    with pytest.raises(A2AClientConnectionError, match="gave up after 1 resumes"):
        [event async for event in client(handler, max_reconnects=1).stream_message("hi")]
    assert calls == ["message/stream", "tasks/resubscribe"]


async def test_a_task_that_ended_while_disconnected_is_fetched() -> None:
    done = {**TASK, "status": {"state": "completed"}}

    def handler(request: httpx.Request) -> httpx.Response:
        method = rpc(request)["method"]
        if method == "message/stream":
            return sse(("1", TASK))
        if method == "tasks/resubscribe":  # a2a-sdk refuses to resubscribe to a finished task
            return answer(request, error={"code": -32602, "message": "Task t1 is in terminal state"})
        return answer(request, result=done)

    events = [event async for event in client(handler).stream_message("hi")]
    # The fetched task arrives as what the stream had not told: here, its final status.
    assert [type(e) for e in events] == [Task, TaskStatusUpdateEvent]
    assert isinstance(events[-1], TaskStatusUpdateEvent)
    assert events[-1].final
    assert events[-1].status.state == TaskState.completed


async def test_errors_before_a_stream_are_raised_and_message_stream_is_never_resent() -> None:
    calls: list[str] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        calls.append(rpc(request)["method"])
        return answer(request, error={"code": -32001, "message": "Task nope not found"})

    with pytest.raises(TaskNotFoundError):
        [event async for event in client(refuse).stream_message("hi", task_id="nope")]

    def unreachable(request: httpx.Request) -> httpx.Response:
        calls.append(rpc(request)["method"])
        raise httpx.ConnectError("connection refused")

    with pytest.raises(A2AClientConnectionError, match="cannot reach"):
        [event async for event in client(unreachable).stream_message("hi")]
    assert calls == ["message/stream", "message/stream"]


async def test_an_extended_card_answer_that_is_no_card_is_an_http_error() -> None:
    card = {**CARD, "protocolVersion": "0.3.0", "supportsAuthenticatedExtendedCard": True}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("agent-card.json"):
            return httpx.Response(200, json=card)
        assert rpc(request)["method"] == "agent/getAuthenticatedExtendedCard"
        return answer(request, result={"name": "half a card"})

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    with pytest.raises(A2AClientHTTPError, match=r"rpc did not answer with an agent card") as error:
        await A2AClient(BASE, httpx_client=http).get_extended_card()
    assert error.value.url == "http://agent.test/a2a/rpc"


async def test_a_0_2_5_extended_card_is_read_beside_the_cards_url() -> None:
    card = {**CARD, "protocolVersion": "0.2.5", "supportsAuthenticatedExtendedCard": True}
    extended = {**card, "skills": [{"id": "more", "name": "More", "description": "d", "tags": []}]}
    seen: list[tuple[str, str | None]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.path, request.headers.get("authorization")))
        if request.url.path.endswith("agent-card.json"):
            return httpx.Response(200, json=card)
        return httpx.Response(200, json=extended)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    agent = A2AClient(BASE, httpx_client=http, headers={"Authorization": "Bearer t"})
    assert [skill.id for skill in (await agent.get_extended_card()).skills] == ["more"]
    # {url}/../agent/authenticatedExtendedCard, as the 0.2.5 spec puts it, with the credentials.
    assert seen[-1] == ("/a2a/agent/authenticatedExtendedCard", "Bearer t")
