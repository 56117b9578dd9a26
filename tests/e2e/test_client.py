"""`a2a_core.client.A2AClient` over real loopback sockets, against two servers.

- our `a2a-serverless dev` (moto and memory backends), the echo and multiturn example agents;
- a2a-sdk 1.3's reference server (`clients.reference_server`: JSON-RPC 1.0 with its 0.3
  compatibility layer, and REST) running a small streaming echo agent under uvicorn in a thread,
  so the client is checked against an implementation that is not ours.

Both cards offer A2A 1.0, so these run over JSON-RPC 1.0 unless a test pins the 0.x path (the
Last-Event-ID resumption); `test_client_v1.py` covers each binding and the fallbacks.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence

import httpx
import pytest
import uvicorn
from a2a.helpers import new_task_from_user_message, new_text_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Role

from a2a_core.client import A2AClient, A2AClientConnectionError, A2AClientHTTPError
from a2a_core.core.errors import (
    InvalidParamsError,
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    UnsupportedOperationError,
)
from a2a_core.core.errors import TaskNotFoundError as TaskNotFound
from a2a_core.domain import (
    Message,
    PushNotificationConfig,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatusUpdateEvent,
    TextPart,
)
from clients.reference_server import create_app

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

DRAFT = "Here is a first draft about {topic}: an opening, three key points, and a short summary. "
QUESTION = "Who is the audience for this piece?"


def reply_text(result: Task | Message) -> str:
    message = result.status.message if isinstance(result, Task) else result
    assert message is not None, result
    return "".join(part.text for part in message.parts if isinstance(part, TextPart))


def artifact_text(events: Sequence[object]) -> str:
    """The artifacts' text as a stream delivers it: a task snapshot holds what was written before it."""
    texts: dict[str, str] = {}
    for event in events:
        if isinstance(event, Task):
            texts = {a.artifact_id: _text_of(a.parts) for a in event.artifacts or []}
        elif isinstance(event, TaskArtifactUpdateEvent):
            before = texts.get(event.artifact.artifact_id, "") if event.append else ""
            texts[event.artifact.artifact_id] = before + _text_of(event.artifact.parts)
    return "".join(texts.values())


def _text_of(parts: Sequence[object]) -> str:
    return "".join(part.text for part in parts if isinstance(part, TextPart))


# --- our dev server ----------------------------------------------------------------------------


async def test_card_discovery_points_rpcs_at_the_cards_url(echo_server: str) -> None:
    async with A2AClient(echo_server) as client:
        card = await client.get_card()
        assert card.capabilities.streaming is True
        assert await client.rpc_url() == card.url == echo_server
    # The card's own URL works as well as the base URL.
    async with A2AClient(f"{echo_server}.well-known/agent.json") as client:
        assert (await client.get_card()).name == card.name


async def test_blocking_send_returns_the_completed_task(echo_server: str) -> None:
    async with A2AClient(echo_server) as client:
        task = await client.send_message("hello")
        assert isinstance(task, Task)
        assert task.status.state == TaskState.completed
        assert reply_text(task) == "Echo: hello"


async def test_non_blocking_send_then_get_task(echo_server: str) -> None:
    async with A2AClient(echo_server) as client:
        submitted = await client.send_message("later", blocking=False)
        assert isinstance(submitted, Task)
        deadline = time.monotonic() + 10
        task = submitted
        while task.status.state != TaskState.completed and time.monotonic() < deadline:
            task = await client.get_task(submitted.id)
        assert reply_text(task) == "Echo: later"
        trimmed = await client.get_task(submitted.id, history_length=1)
        assert trimmed.history is not None
        assert len(trimmed.history) == 1


async def test_send_continues_a_task_waiting_for_input(multiturn_server: str) -> None:
    async with A2AClient(multiturn_server) as client:
        first = await client.send_message("otters")
        assert isinstance(first, Task)
        assert first.status.state == TaskState.input_required
        assert reply_text(first) == QUESTION
        second = await client.send_message("children", task_id=first.id, context_id=first.context_id)
        assert isinstance(second, Task)
        assert second.id == first.id
        assert second.status.state == TaskState.completed
        assert reply_text(second) == "Done: the draft is tailored for children."


async def test_stream_yields_typed_events_until_the_turn_ends(multiturn_server: str) -> None:
    async with A2AClient(multiturn_server) as client:
        async with client.stream_message("otters") as stream:
            events = [event async for event in stream]
        assert isinstance(events[0], Task)
        assert artifact_text(events) == DRAFT.format(topic="otters")
        last = events[-1]
        assert isinstance(last, TaskStatusUpdateEvent)
        assert last.final
        assert last.status.state == TaskState.input_required
        assert stream.task_id == events[0].id
        assert stream.last_event_id is not None

        continued = [e async for e in client.stream_message("children", task_id=events[0].id)]
        assert continued[-1].kind == "status-update"
        assert isinstance(continued[-1], TaskStatusUpdateEvent)
        assert continued[-1].status.state == TaskState.completed


async def test_resubscribe_after_the_last_seen_event(multiturn_server: str) -> None:
    # 0.x: tasks/resubscribe continues after Last-Event-ID (1.0 resumes from a snapshot instead).
    async with A2AClient(multiturn_server, protocol_version="0.3") as client:
        seen = []
        async with client.stream_message("walruses") as stream:
            async for event in stream:
                seen.append(event)
                if len(seen) == 3:
                    break
        rest = [e async for e in client.resubscribe(stream.task_id or "", stream.last_event_id)]
        assert artifact_text(seen + rest) == DRAFT.format(topic="walruses")  # nothing lost, nothing twice
        assert isinstance(rest[-1], TaskStatusUpdateEvent)
        assert rest[-1].final


class _CutStream(httpx.AsyncByteStream):
    """Passes ``events`` whole SSE data events through, then fails like a dropped connection."""

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
                if b"data:" not in event:  # a keepalive comment
                    continue
                self.events -= 1
                if self.events == 0:
                    raise httpx.ReadError("connection dropped (test)")

    async def aclose(self) -> None:
        await self.inner.aclose()


STREAM_METHODS = ("message/stream", "SendStreamingMessage")


class _DroppingTransport(httpx.AsyncBaseTransport):
    """Real HTTP, except that the send-and-stream answer (0.x or 1.0) breaks after a few events."""

    def __init__(self, events: int) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.events = events
        self.calls: list[tuple[str, str | None]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        method = json.loads(request.content)["method"] if request.method == "POST" else request.method
        self.calls.append((method, request.headers.get("last-event-id")))
        response = await self.inner.handle_async_request(request)
        if method not in STREAM_METHODS:
            return response
        assert isinstance(response.stream, httpx.AsyncByteStream)
        stream = _CutStream(response.stream, self.events)
        return httpx.Response(response.status_code, headers=response.headers, stream=stream)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_resubscribe_continues_a_stream_without_repeats(multiturn_server: str) -> None:
    # 1.0: SubscribeToTask starts with the Task; given the stream, the client tells only what is new.
    async with A2AClient(multiturn_server) as client:
        assert (await client.interface()).version == "1.0"
        seen = []
        async with client.stream_message("narwhals") as stream:
            async for event in stream:
                seen.append(event)
                if len(seen) == 3:
                    break
        rest = [e async for e in client.resubscribe(stream)]
    assert not any(isinstance(e, Task) for e in rest)
    assert artifact_text(seen + rest) == DRAFT.format(topic="narwhals")  # nothing lost, nothing twice
    assert isinstance(rest[-1], TaskStatusUpdateEvent)
    assert rest[-1].final


async def test_a_dropped_stream_resumes_with_last_event_id(multiturn_server: str) -> None:
    transport = _DroppingTransport(events=3)
    async with (
        httpx.AsyncClient(transport=transport, timeout=30) as http,
        A2AClient(multiturn_server, httpx_client=http, protocol_version="0.3") as client,
    ):
        events = [event async for event in client.stream_message("seals")]
    assert artifact_text(events) == DRAFT.format(topic="seals")
    assert isinstance(events[-1], TaskStatusUpdateEvent)
    assert events[-1].final
    rpc_calls = [call for call in transport.calls if call[0] != "GET"]
    assert [method for method, _ in rpc_calls] == ["message/stream", "tasks/resubscribe"]
    assert rpc_calls[1][1] is not None  # resumed after the third event, not from the start


async def test_a_dropped_1_0_stream_resumes_from_a_folded_snapshot(multiturn_server: str) -> None:
    transport = _DroppingTransport(events=3)
    async with (
        httpx.AsyncClient(transport=transport, timeout=30) as http,
        A2AClient(multiturn_server, httpx_client=http) as client,
    ):
        events = [event async for event in client.stream_message("dugongs")]
    assert artifact_text(events) == DRAFT.format(topic="dugongs")
    assert sum(isinstance(e, Task) for e in events) == 1  # the resumed snapshot arrives as updates
    assert isinstance(events[-1], TaskStatusUpdateEvent)
    assert events[-1].final
    rpc_calls = [method for method, _ in transport.calls if method != "GET"]
    assert rpc_calls[:2] == ["SendStreamingMessage", "SubscribeToTask"]


async def test_json_rpc_errors_are_raised_as_typed_exceptions(echo_server: str) -> None:
    async with A2AClient(echo_server) as client:
        with pytest.raises(TaskNotFound) as missing:
            await client.get_task("no-such-task")
        assert missing.value.code == -32001
        assert "no-such-task" in missing.value.message
        done = await client.send_message("finish")
        assert isinstance(done, Task)
        with pytest.raises(TaskNotCancelableError):
            await client.cancel_task(done.id)
        # 1.0 (the client's default) calls continuing a finished task an unsupported operation;
        # 0.x, which has no such rule, an invalid parameter.
        with pytest.raises(UnsupportedOperationError) as terminal:
            await client.send_message("more", task_id=done.id)
        assert terminal.value.code == -32004
        with pytest.raises(TaskNotFound):
            async with client.stream_message("x", task_id="no-such-task") as stream:
                [event async for event in stream]
    async with A2AClient(echo_server, protocol_version="0.3") as client:
        with pytest.raises(InvalidParamsError) as terminal_v0:
            await client.send_message("more", task_id=done.id)
        assert terminal_v0.value.code == -32602


async def test_push_config_methods_follow_the_card(echo_server: str) -> None:
    async with A2AClient(echo_server) as client:
        card = await client.get_card()
        task = await client.send_message("push?")
        assert isinstance(task, Task)
        config = PushNotificationConfig(url="https://example.com/a2a-hook", id="hook")
        if not card.capabilities.push_notifications:
            with pytest.raises(PushNotificationNotSupportedError):
                await client.set_push_config(task.id, config)
            return
        saved = await client.set_push_config(task.id, config)
        assert saved.push_notification_config.url == config.url
        assert [c.push_notification_config.id for c in await client.list_push_configs(task.id)] == ["hook"]
        await client.delete_push_config(task.id, "hook")


async def test_http_errors_and_unreachable_servers_are_client_errors(echo_server: str) -> None:
    async with A2AClient(echo_server, rpc_url=f"{echo_server}healthz") as client:
        with pytest.raises(A2AClientHTTPError) as not_rpc:
            await client.get_task("x")
        assert not_rpc.value.status_code == 405
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    async with A2AClient(closed) as client:
        with pytest.raises(A2AClientConnectionError, match="cannot reach"):
            await client.get_card()


# --- a2a-sdk's reference server ----------------------------------------------------------------


class ReferenceEcho(AgentExecutor):
    """Echoes in an artifact streamed in two chunks; "message" answers with a bare Message and
    "wait" leaves the task waiting for input (so it can be canceled)."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input()
        if text == "message":
            reply = new_text_message("Echo: message", context_id=context.context_id, role=Role.ROLE_AGENT)
            await event_queue.enqueue_event(reply)
            return
        assert context.message is not None
        task = context.current_task or new_task_from_user_message(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        if text == "wait":
            await updater.requires_input(updater.new_agent_message([new_text_part("Waiting.")]))
            return
        await updater.start_work()
        await updater.add_artifact(
            [new_text_part("Echo, ")], artifact_id="echo", name="echo", last_chunk=False
        )
        await updater.add_artifact([new_text_part(text)], artifact_id="echo", append=True, last_chunk=True)
        await updater.complete(updater.new_agent_message([new_text_part(f"Echo: {text}")]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None
        assert context.context_id is not None
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


@pytest.fixture(scope="module")
def reference_server() -> Iterator[str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    app = create_app(url, ReferenceEcho())
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the a2a-sdk reference server did not start")
        time.sleep(0.02)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(5)
        sock.close()


async def test_reference_server_send_get_and_cancel(reference_server: str) -> None:
    async with A2AClient(reference_server) as client:
        assert (await client.get_card()).name == "Reference echo (a2a-sdk 1.3)"
        task = await client.send_message("hi")
        assert isinstance(task, Task)
        assert task.status.state == TaskState.completed
        assert reply_text(task) == "Echo: hi"
        fetched = await client.get_task(task.id)
        assert fetched.artifacts is not None
        assert "".join(p.text for p in fetched.artifacts[0].parts if isinstance(p, TextPart)) == "Echo, hi"

        waiting = await client.send_message("wait")
        assert isinstance(waiting, Task)
        assert waiting.status.state == TaskState.input_required
        canceled = await client.cancel_task(waiting.id)
        assert canceled.status.state == TaskState.canceled

        reply = await client.send_message("message")
        assert isinstance(reply, Message)
        assert reply_text(reply) == "Echo: message"


async def test_reference_server_stream(reference_server: str) -> None:
    async with A2AClient(reference_server) as client:
        async with client.stream_message("streamed") as stream:
            events = [event async for event in stream]
        assert artifact_text(events) == "Echo, streamed"
        last = events[-1]
        assert isinstance(last, TaskStatusUpdateEvent)
        assert last.final
        assert last.status.state == TaskState.completed
        assert stream.task_id is not None


async def test_reference_server_errors_are_typed(reference_server: str) -> None:
    async with A2AClient(reference_server) as client:
        with pytest.raises(TaskNotFound) as missing:
            await client.get_task("no-such-task")
        assert missing.value.code == -32001
        done = await client.send_message("done")
        assert isinstance(done, Task)
        with pytest.raises(TaskNotCancelableError):
            await client.cancel_task(done.id)


async def test_reference_server_push_configs(reference_server: str) -> None:
    async with A2AClient(reference_server) as client:
        task = await client.send_message("wait")
        assert isinstance(task, Task)
        config = PushNotificationConfig(url="https://example.com/hook", id="hook-1", token="t0ken")
        saved = await client.set_push_config(task.id, config)
        assert saved.task_id == task.id
        assert saved.push_notification_config.token == "t0ken"
        got = await client.get_push_config(task.id, "hook-1")
        assert got.push_notification_config.url == config.url
        assert [c.push_notification_config.id for c in await client.list_push_configs(task.id)] == ["hook-1"]
        await client.delete_push_config(task.id, "hook-1")
        assert await client.list_push_configs(task.id) == []
