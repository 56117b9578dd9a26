"""`a2a_core.client.A2AClient` over every protocol it speaks, against real servers over sockets.

- A2A 1.0 over JSON-RPC and over HTTP+JSON against each server in `V1_SERVERS` (a2a-sdk 1.3's
  reference server and our `dev` server, both running the `agents.scripted` contract): the card
  picks the interface, then send (blocking and not), get, list, stream, subscribe (folded),
  a dropped stream resumed, cancel, push config CRUD and errors, all as domain objects;
- the fallbacks: a card offering only JSON-RPC 0.3 (served by a stub next to the real server,
  which then answers over its 0.3 layer) and a 0.2.5 card (``agent.json`` only);
- the card's signature, verified against the dev server's JWKS.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx
import pytest
import uvicorn
from joserfc.jwk import ECKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from a2a_core.client import A2AClient, A2AClientCardError, A2AClientUnsupportedError
from a2a_core.core.errors import (
    InvalidParamsError,
    TaskNotCancelableError,
    TaskNotFoundError,
)
from a2a_core.domain import (
    Message,
    PushNotificationConfig,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatusUpdateEvent,
    TextPart,
)
from agents import ARTIFACT, WAIT_QUESTION
from clients.summaries import chunks_text, unique

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

HOOK = "http://127.0.0.1:9/a2a-hook"  # loopback (a dev server accepts it); nothing is delivered
BINDINGS = {"jsonrpc": "JSONRPC", "rest": "HTTP+JSON"}


@pytest.fixture(params=list(BINDINGS))
def binding(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


class Recorder:
    """The requests a client sent (method, path, A2A-Version header, JSON-RPC method)."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    async def __call__(self, request: httpx.Request) -> None:
        self.requests.append(request)

    @property
    def calls(self) -> list[tuple[str, str, str | None, str | None]]:
        return [
            (r.method, r.url.path, r.headers.get("a2a-version"), _rpc_method(r))
            for r in self.requests
            if "/.well-known/" not in r.url.path
        ]


def _rpc_method(request: httpx.Request) -> str | None:
    if request.method != "POST" or not request.content:
        return None
    body = json.loads(request.content)
    return body.get("method") if isinstance(body, dict) and body.get("jsonrpc") else None


@asynccontextmanager
async def recording(url: str, **options: Any) -> AsyncIterator[tuple[A2AClient, Recorder]]:
    """A client for ``url`` whose requests are recorded."""
    recorder = Recorder()
    async with (
        httpx.AsyncClient(timeout=30, event_hooks={"request": [recorder]}) as http,
        A2AClient(url, httpx_client=http, **options) as client,
    ):
        yield client, recorder


def text_of(parts: Sequence[object]) -> str:
    return "".join(part.text for part in parts if isinstance(part, TextPart))


def status_text(result: Task | Message) -> str:
    message = result.status.message if isinstance(result, Task) else result
    assert message is not None, result
    return text_of(message.parts)


def artifact_text(events: Sequence[object]) -> str:
    """The artifacts' text as a stream delivers it (a Task snapshot holds what came before it)."""
    texts: dict[str, str] = {}
    for event in events:
        if isinstance(event, Task):
            texts = {a.artifact_id: text_of(a.parts) for a in event.artifacts or []}
        elif isinstance(event, TaskArtifactUpdateEvent):
            before = texts.get(event.artifact.artifact_id, "") if event.append else ""
            texts[event.artifact.artifact_id] = before + text_of(event.artifact.parts)
    return "".join(texts.values())


def assert_done(task: Task, text: str, chunks: int) -> None:
    assert task.status.state == TaskState.completed, task
    assert status_text(task) == f"done: {text}"
    assert [a.name for a in task.artifacts or []] == [ARTIFACT]
    assert artifact_text([task]) == chunks_text(text, chunks)


async def wait_until_done(client: A2AClient, task_id: str) -> Task:
    deadline = time.monotonic() + 20
    while True:
        task = await client.get_task(task_id)
        if task.status.state == TaskState.completed or time.monotonic() > deadline:
            return task


# --- A2A 1.0, each binding, each server ----------------------------------------------------------


async def test_the_card_picks_1_0_and_each_binding_carries_the_version(v1_server: str, binding: str) -> None:
    async with recording(v1_server, binding=binding) as (client, recorder):
        interface = await client.interface()
        assert (interface.binding, interface.version[:3]) == (BINDINGS[binding], "1.0")
        assert (await client.get_card()).capabilities.streaming is True
        text = unique("chunks=2 delay=0 hello")
        task = await client.send_message(text)
    assert isinstance(task, Task)
    assert_done(task, text, 2)
    [(method, path, version, rpc_method)] = recorder.calls
    assert version == "1.0"
    if binding == "rest":
        assert (method, path, rpc_method) == ("POST", "/message:send", None)
    else:
        assert (method, path, rpc_method) == ("POST", "/", "SendMessage")


async def test_non_blocking_send_then_get(v1_server: str, binding: str) -> None:
    text = unique("chunks=3 delay=0.05 later")
    async with A2AClient(v1_server, binding=binding) as client:
        submitted = await client.send_message(text, blocking=False)
        assert isinstance(submitted, Task)
        assert submitted.status.state in (TaskState.submitted, TaskState.working)
        task = await wait_until_done(client, submitted.id)
        assert_done(task, text, 3)
        trimmed = await client.get_task(submitted.id, history_length=1)
        assert trimmed.history is not None
        assert len(trimmed.history) == 1


async def test_list_tasks_of_a_context_newest_first_in_pages(v1_server: str, binding: str) -> None:
    context_id = f"ctx-{uuid.uuid4().hex}"
    async with A2AClient(v1_server, binding=binding) as client:
        ids = []
        for index in range(3):
            task = await client.send_message(unique(f"chunks=1 delay=0 list-{index}"), context_id=context_id)
            assert isinstance(task, Task)
            ids.append(task.id)
        listed = await client.list_tasks(context_id=context_id)
        assert [task.id for task in listed.tasks] == ids[::-1]
        assert listed.next_page_token == ""
        first = await client.list_tasks(context_id=context_id, page_size=2)
        assert [task.id for task in first.tasks] == ids[:0:-1]
        assert first.next_page_token
        rest = await client.list_tasks(context_id=context_id, page_size=2, page_token=first.next_page_token)
        assert [task.id for task in rest.tasks] == ids[:1]
        assert rest.next_page_token == ""
        done = await client.list_tasks(context_id=context_id, state=TaskState.completed)
        assert len(done.tasks) == 3
        assert (await client.list_tasks(context_id=context_id, state=TaskState.working)).tasks == ()


async def test_streams_end_at_terminal_or_interrupted_states(v1_server: str, binding: str) -> None:
    text = unique("chunks=3 delay=0.01 streamed")
    async with A2AClient(v1_server, binding=binding) as client:
        async with client.stream_message(text) as stream:
            events = [event async for event in stream]
        assert isinstance(events[0], Task)
        assert artifact_text(events) == chunks_text(text, 3)
        last = events[-1]
        assert isinstance(last, TaskStatusUpdateEvent)
        assert (last.final, last.status.state) == (True, TaskState.completed)
        assert last.status.message is not None
        assert text_of(last.status.message.parts) == f"done: {text}"
        assert stream.task_id == events[0].id

        asking = [e async for e in client.stream_message(unique("wait"))]
        question = asking[-1]
        assert isinstance(question, TaskStatusUpdateEvent)
        assert (question.final, question.status.state) == (True, TaskState.input_required)
        assert question.status.message is not None
        assert text_of(question.status.message.parts) == WAIT_QUESTION
        answered = [e async for e in client.stream_message("blue", task_id=question.task_id)]
        assert isinstance(answered[-1], TaskStatusUpdateEvent)
        assert answered[-1].status.state == TaskState.completed


async def test_subscribe_continues_a_stream_without_repeats(v1_server: str, binding: str) -> None:
    text = unique("chunks=6 delay=0.2 resumed")
    async with A2AClient(v1_server, binding=binding) as client:
        seen = []
        async with client.stream_message(text) as stream:
            async for event in stream:
                seen.append(event)
                if len(seen) == 3:
                    break
        assert stream.task_id is not None
        # From a task id, the subscription starts with the task as it stands.
        async with client.resubscribe(stream.task_id) as fresh:
            assert isinstance(await anext(fresh), Task)
        rest = [event async for event in client.resubscribe(stream)]
    assert not any(isinstance(event, Task) for event in rest)
    assert artifact_text(seen + rest) == chunks_text(text, 6)  # nothing lost, nothing twice
    assert isinstance(rest[-1], TaskStatusUpdateEvent)
    assert (rest[-1].final, rest[-1].status.state) == (True, TaskState.completed)


class _CutFirstStream(httpx.AsyncBaseTransport):
    """Real HTTP, except that the first event stream breaks after ``events`` events."""

    def __init__(self, events: int) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.events = events
        self.cut = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        streaming = response.headers.get("content-type", "").startswith("text/event-stream")
        if self.cut or not streaming:
            return response
        self.cut = True
        assert isinstance(response.stream, httpx.AsyncByteStream)
        stream = _Cut(response.stream, self.events)
        return httpx.Response(response.status_code, headers=response.headers, stream=stream)

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Cut(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, events: int) -> None:
        self.inner = inner
        self.events = events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        buffer = b""
        async for chunk in self.inner:
            buffer += chunk
            while (end := re.search(rb"\r?\n\r?\n", buffer)) is not None:
                event, buffer = buffer[: end.end()], buffer[end.end() :]
                yield event
                if b"data:" in event:
                    self.events -= 1
                    if self.events == 0:
                        raise httpx.ReadError("connection dropped (test)")

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_a_dropped_stream_is_resumed_by_subscribing(v1_server: str, binding: str) -> None:
    text = unique("chunks=6 delay=0.2 dropped")
    recorder = Recorder()
    transport = _CutFirstStream(events=3)
    async with (
        httpx.AsyncClient(transport=transport, timeout=30, event_hooks={"request": [recorder]}) as http,
        A2AClient(v1_server, httpx_client=http, binding=binding) as client,
    ):
        events = [event async for event in client.stream_message(text)]
    assert artifact_text(events) == chunks_text(text, 6)
    assert sum(isinstance(event, Task) for event in events) == 1
    assert isinstance(events[-1], TaskStatusUpdateEvent)
    assert events[-1].final
    operations = [rpc or f"{method} {path.rsplit(':', 1)[-1]}" for method, path, _, rpc in recorder.calls]
    expected = (
        ["SendStreamingMessage", "SubscribeToTask"]
        if binding == "jsonrpc"
        else ["POST stream", "GET subscribe"]
    )
    assert operations[:2] == expected


async def test_cancel_and_errors_are_domain_errors(v1_server: str, binding: str) -> None:
    async with A2AClient(v1_server, binding=binding) as client:
        waiting = await client.send_message(unique("wait"))
        assert isinstance(waiting, Task)
        assert waiting.status.state == TaskState.input_required
        canceled = await client.cancel_task(waiting.id)
        assert canceled.status.state == TaskState.canceled
        with pytest.raises(TaskNotCancelableError) as not_cancelable:
            await client.cancel_task(waiting.id)
        assert not_cancelable.value.code == -32002
        with pytest.raises(TaskNotFoundError) as missing:
            await client.get_task(f"no-such-task-{uuid.uuid4().hex}")
        assert missing.value.code == -32001
        with pytest.raises(TaskNotFoundError):
            async with client.stream_message("x", task_id=f"no-such-task-{uuid.uuid4().hex}") as stream:
                [event async for event in stream]
        # A finished task cannot be subscribed to in 1.0; the client reads it instead.
        ended = [event async for event in client.resubscribe(waiting.id)]
        assert [type(event) for event in ended] == [Task]
        assert isinstance(ended[0], Task)
        assert ended[0].status.state == TaskState.canceled


async def test_push_config_create_get_list_delete(v1_server: str, binding: str) -> None:
    async with A2AClient(v1_server, binding=binding) as client:
        task = await client.send_message(unique("wait"))
        assert isinstance(task, Task)
        config = PushNotificationConfig(url=HOOK, id="hook-1", token="t0ken")
        saved = await client.set_push_config(task.id, config)
        assert (saved.task_id, saved.push_notification_config.token) == (task.id, "t0ken")
        got = await client.get_push_config(task.id, "hook-1")
        assert got.push_notification_config.url == HOOK
        first = await client.get_push_config(task.id)  # 1.0 needs an id: the client lists
        assert first.push_notification_config.id == "hook-1"
        assert [c.push_notification_config.id for c in await client.list_push_configs(task.id)] == ["hook-1"]
        await client.delete_push_config(task.id, "hook-1")
        assert await client.list_push_configs(task.id) == []
        await client.cancel_task(task.id)


async def test_field_errors_come_back_as_0_x_style_data(scripted_server: str, binding: str) -> None:
    async with A2AClient(scripted_server, binding=binding) as client:
        with pytest.raises(InvalidParamsError) as invalid:
            await client.list_tasks(page_size=1000)
    assert invalid.value.code == -32602
    assert isinstance(invalid.value.data, list)
    assert invalid.value.data[0]["field"] == "pageSize"


# --- falling back: cards that offer only 0.3, or 0.2.5 -------------------------------------------


@contextmanager
def serve(routes: list[Route]) -> Iterator[str]:
    """A small Starlette app on a free loopback port, in a thread, for the block."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(Starlette(routes=routes), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the stub card server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        server.should_exit = True
        thread.join(5)
        sock.close()


def legacy_card(url: str, version: str) -> dict[str, Any]:
    """A 0.x card (``protocolVersion``, ``url``, ``preferredTransport``) for the agent at ``url``."""
    return {
        "name": f"stub {version} card",
        "description": "points at a real server",
        "url": url,
        "version": "1",
        "protocolVersion": version,
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": [{"url": url, "transport": "JSONRPC"}],
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }


def card_routes(cards: dict[str, dict[str, Any]]) -> list[Route]:
    def answer(document: dict[str, Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            return JSONResponse(document)

        return endpoint

    return [
        Route(f"/.well-known/{name}", answer(document), methods=["GET"]) for name, document in cards.items()
    ]


async def exercise_0_x(client: A2AClient, recorder: Recorder) -> None:
    text = unique("chunks=2 delay=0 legacy")
    task = await client.send_message(text)
    assert isinstance(task, Task)
    assert_done(task, text, 2)
    assert_done(await client.get_task(task.id), text, 2)
    streamed = [event async for event in client.stream_message(unique("chunks=2 delay=0 legacy-stream"))]
    assert isinstance(streamed[-1], TaskStatusUpdateEvent)
    assert (streamed[-1].final, streamed[-1].status.state) == (True, TaskState.completed)
    with pytest.raises(A2AClientUnsupportedError, match=r"ListTasks is an A2A 1\.0 operation"):
        await client.list_tasks()
    calls = recorder.calls
    assert {version for _, _, version, _ in calls} == {None}  # no A2A-Version: 0.3 to every server
    assert [rpc for _, _, _, rpc in calls] == ["message/send", "tasks/get", "message/stream"]


async def test_a_card_offering_only_0_3_is_spoken_to_in_0_3(v1_server: str) -> None:
    with serve(card_routes({"agent-card.json": legacy_card(v1_server, "0.3.0")})) as stub:
        async with recording(stub) as (client, recorder):
            interface = await client.interface()
            assert (interface.binding, interface.version, interface.url) == ("JSONRPC", "0.3.0", v1_server)
            await exercise_0_x(client, recorder)


async def test_a_0_2_5_card_at_agent_json_is_spoken_to_in_0_2_5(scripted_server: str) -> None:
    with serve(card_routes({"agent.json": legacy_card(scripted_server, "0.2.5")})) as stub:
        async with recording(stub) as (client, recorder):
            assert (await client.interface()).version == "0.2.5"
            await exercise_0_x(client, recorder)
    # Our own server's 0.2.5 card, named directly, or asked for.
    async with A2AClient(f"{scripted_server}.well-known/agent.json") as client:
        assert (await client.interface()).version == "0.2.5"
    async with A2AClient(scripted_server, protocol_version="0.2.5") as client:
        assert str(await client.interface()) == f"JSONRPC 0.2.5 at {scripted_server}"
        assert (await client.get_card()).protocol_version == "0.2.5"
        # 0.2.5 gets a task's (first) push config without naming it (a2a-sdk's 0.3 layer cannot).
        task = await client.send_message(unique("wait"))
        assert isinstance(task, Task)
        await client.set_push_config(task.id, PushNotificationConfig(url=HOOK, id="hook-025"))
        assert (await client.get_push_config(task.id)).push_notification_config.id == "hook-025"
        await client.delete_push_config(task.id, "hook-025")
        await client.cancel_task(task.id)


async def test_push_configs_over_0_3(v1_server: str) -> None:
    async with A2AClient(v1_server, protocol_version="0.3") as client:
        task = await client.send_message(unique("wait"))
        assert isinstance(task, Task)
        config = PushNotificationConfig(url=HOOK, id="hook-0", token="t0ken")
        saved = await client.set_push_config(task.id, config)
        assert (saved.task_id, saved.push_notification_config.token) == (task.id, "t0ken")
        assert (await client.get_push_config(task.id, "hook-0")).push_notification_config.url == HOOK
        assert [c.push_notification_config.id for c in await client.list_push_configs(task.id)] == ["hook-0"]
        await client.delete_push_config(task.id, "hook-0")
        assert await client.list_push_configs(task.id) == []
        await client.cancel_task(task.id)


async def test_forcing_a_version_or_binding_the_card_does_not_offer_is_refused(scripted_server: str) -> None:
    async with A2AClient(scripted_server, protocol_version="0.3") as client:
        assert str(await client.interface()) == f"JSONRPC 0.3 at {scripted_server}"
    async with A2AClient(scripted_server, protocol_version="0.3", binding="rest") as client:
        with pytest.raises(A2AClientCardError, match=r"no interface for HTTP\+JSON 0\.3"):
            await client.get_task("t1")
    with serve(card_routes({"agent-card.json": legacy_card(scripted_server, "0.3.0")})) as stub:
        async with A2AClient(stub, binding="rest") as client:
            with pytest.raises(A2AClientCardError, match=r"it offers: JSONRPC 0\.3\.0 at"):
                await client.send_message("hi")


# --- signed cards ----------------------------------------------------------------------------------


async def test_the_card_signature_verifies_against_the_agents_jwks(scripted_server: str) -> None:
    jwks_url = f"{scripted_server}.well-known/jwks.json"
    async with A2AClient(scripted_server, card_jwks=jwks_url) as client:
        card = await client.get_card()
        assert client.card_signature is not None
        assert client.card_signature["jku"] == jwks_url
        assert card.name
    async with httpx.AsyncClient(timeout=10) as http:
        keys = (await http.get(jwks_url)).json()
    async with A2AClient(scripted_server, card_jwks=keys) as client:
        await client.send_message(unique("chunks=1 delay=0 signed"))
        assert client.card_signature is not None

    stranger = {"keys": [ECKey.generate_key("P-256", parameters={"kid": "stranger"}).as_dict(private=False)]}
    async with A2AClient(scripted_server, card_jwks=stranger) as client:
        with pytest.raises(A2AClientCardError, match="does not verify"):
            await client.get_card()


async def test_a_card_in_1_0_terms_only_is_read_and_an_unsigned_one_fails_verification(
    scripted_server: str,
) -> None:
    """A card without the 0.3 fields a 1.x server may merge in: ProtoJSON names throughout."""
    card = {
        "name": "stub 1.0 card",
        "description": "HTTP+JSON only",
        "version": "2",
        "supportedInterfaces": [
            {"url": scripted_server, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
            {"url": scripted_server, "protocolBinding": "GRPC", "protocolVersion": "1.0"},
        ],
        "capabilities": {"streaming": True, "pushNotifications": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "echoes", "tags": ["echo"]}],
        "securitySchemes": {"key": {"apiKeySecurityScheme": {"location": "header", "name": "x-api-key"}}},
        "securityRequirements": [{"schemes": {"key": {"list": []}}}],
    }
    with serve(card_routes({"agent-card.json": card})) as stub:
        async with A2AClient(stub) as client:
            read = await client.get_card()
            assert (read.url, read.preferred_transport, read.protocol_version) == (
                scripted_server,
                "HTTP+JSON",
                "1.0",
            )
            assert [i.transport for i in read.additional_interfaces or []] == ["GRPC"]
            assert read.security == [{"key": []}]
            assert read.security_schemes is not None
            assert read.security_schemes["key"].model_dump(by_alias=True, exclude_none=True) == {
                "type": "apiKey",
                "name": "x-api-key",
                "in": "header",
            }
            assert str(await client.interface()) == f"HTTP+JSON 1.0 at {scripted_server}"
            text = unique("chunks=1 delay=0 rest-only")
            task = await client.send_message(text)
            assert isinstance(task, Task)
            assert_done(task, text, 1)
        keys = {"keys": [ECKey.generate_key("P-256", parameters={"kid": "k"}).as_dict(private=False)]}
        async with A2AClient(stub, card_jwks=keys) as client:
            with pytest.raises(A2AClientCardError, match="no signatures"):
                await client.get_card()
