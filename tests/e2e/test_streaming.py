"""message/stream and tasks/resubscribe against the real dev server, on both backends.

The a2a-sdk 1.3 streaming client (through its 0.3 compatibility transport) checks what a client
library sees (ordering and append/lastChunk flags of the multi-turn example's chunks; 20
concurrent streams). Raw httpx streams check what the SDK hides: SSE ids across a dropped
connection and a resubscribe, error events, content types, ``: keepalive`` comments and the
``final`` flag (1.0 events have none, so the SDK drops it).

Event ids are sequence numbers in the task's log. A new task's log is the user message (1) and
``submitted`` (2); after that, one `agents.slow` turn appends only streamed kinds (status and
artifact updates), so its stream carries consecutive ids and a resumed stream continues them.
The Task a message/stream starts with is read once the stream starts, so it may already fold the
worker's first events (the moto backend shows this); the checks accept any such prefix as long
as every event is delivered once, in the snapshot or after it.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import pytest
from a2a.client import BaseClient
from a2a.types import Message, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent

from a2a_core.examples.multiturn import DraftWriter
from agents import ARTIFACT, chunk_text
from clients.sdk13 import artifact_chunks, connect, fold, request, text_of, user_message

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

HTTP_TIMEOUT = httpx.Timeout(30.0)
TEST_LIMIT = 15.0  # seconds: a stream that does not close fails the test instead of hanging
TASK_NOT_FOUND = -32001
INVALID_PARAMS = -32602
SNAPSHOT_SEQ = 2  # a new task's log: the user message (1), then "submitted" (2)
WORKING_SEQ = 3  # the worker's claim; the agent's first event is 4

DRAFT_TEXT = "Here is a first draft about {topic}: an opening, three key points, and a short summary. "
AUDIENCE_QUESTION = "Who is the audience for this piece?"


# --- SSE over raw httpx --------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One SSE event: its ``id:`` and its ``data:``, a JSON-RPC response."""

    id: int | None
    payload: dict[str, Any]

    @property
    def result(self) -> dict[str, Any]:
        assert "error" not in self.payload, self.payload
        result: dict[str, Any] = self.payload["result"]
        return result

    @property
    def kind(self) -> str:
        return str(self.result["kind"])

    @property
    def state(self) -> str:
        return str(self.result["status"]["state"])

    @property
    def chunk(self) -> str:
        """The text of an artifact update (one text part)."""
        assert self.kind == "artifact-update", self.payload
        (part,) = self.result["artifact"]["parts"]
        return str(part["text"])


@dataclass(frozen=True)
class Comment:
    text: str


async def sse_items(response: httpx.Response) -> AsyncGenerator[Event | Comment, None]:
    """Events and comments of an SSE body, in order (the WHATWG parsing rules we need)."""
    event_id: str | None = None
    data: list[str] = []
    async for line in response.aiter_lines():
        if not line:
            if data:
                yield Event(int(event_id) if event_id is not None else None, json.loads("\n".join(data)))
            event_id, data = None, []
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if not name:
            yield Comment(value)
        elif name == "id":
            event_id = value
        elif name == "data":
            data.append(value)
    assert not data, f"the stream ended inside an event: {data}"


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params}


def stream_request(text: str, *, task_id: str | None = None, parts: bool = True) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "user",
        "messageId": str(uuid.uuid4()),
        "parts": [{"kind": "text", "text": text}] if parts else [],
    }
    if task_id is not None:
        message["taskId"] = task_id
    return rpc("message/stream", {"message": message})


def resubscribe_request(task_id: str) -> dict[str, Any]:
    return rpc("tasks/resubscribe", {"id": task_id})


def last_event_id(value: int | str) -> dict[str, str]:
    return {"Last-Event-ID": str(value)}


@asynccontextmanager
async def open_stream(
    http: httpx.AsyncClient, url: str, body: dict[str, Any], headers: Mapping[str, str] | None = None
) -> AsyncIterator[AsyncIterator[Event | Comment]]:
    """POST ``body`` and iterate the SSE answer; leaving the block closes the connection."""
    async with http.stream("POST", url, json=body, headers=headers) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        async with aclosing(sse_items(response)) as items:
            yield items


async def read_events(
    http: httpx.AsyncClient,
    url: str,
    body: dict[str, Any],
    headers: Mapping[str, str] | None = None,
    *,
    limit: int | None = None,
) -> list[Event]:
    """The events of a stream until it closes, or the first ``limit`` (then the connection drops)."""
    events: list[Event] = []
    async with open_stream(http, url, body, headers) as items:
        async for item in items:
            if isinstance(item, Event):
                assert item.payload["id"] == body["id"], item.payload
                events.append(item)
                if len(events) == limit:
                    break
    return events


async def read_all(
    http: httpx.AsyncClient, url: str, body: dict[str, Any], headers: Mapping[str, str] | None = None
) -> list[Event | Comment]:
    async with open_stream(http, url, body, headers) as items:
        return [item async for item in items]


async def get_task(http: httpx.AsyncClient, url: str, task_id: str) -> dict[str, Any]:
    response = await http.post(url, json=rpc("tasks/get", {"id": task_id}))
    task: dict[str, Any] = response.json()["result"]
    return task


async def wait_for_state(http: httpx.AsyncClient, url: str, task_id: str, state: str) -> dict[str, Any]:
    for _ in range(500):
        task = await get_task(http, url, task_id)
        if task["status"]["state"] == state:
            return task
        await anyio.sleep(0.02)
    raise AssertionError(f"task {task_id} is still {task['status']['state']}, not {state}")


def ids(events: list[Event]) -> list[int | None]:
    return [event.id for event in events]


def consecutive(start: int, count: int) -> list[int | None]:
    return list(range(start, start + count))


def turn_log(text: str, chunks: int) -> dict[int, tuple[str, str]]:
    """What one `agents.slow` turn appends to a new task's log after ``submitted``, by sequence."""
    log = {WORKING_SEQ: ("status", "working")}
    log.update({WORKING_SEQ + 1 + i: ("artifact", chunk_text(text, i)) for i in range(chunks)})
    log[WORKING_SEQ + 1 + chunks] = ("status", "completed")
    return log


def assert_snapshot(event: Event, text: str, chunks: int) -> None:
    """A Task event is the task folded up to its id: the state and chunks of that prefix."""
    assert event.kind == "task", event.payload
    assert event.id is not None
    assert event.id >= SNAPSHOT_SEQ
    log = turn_log(text, chunks)
    prefix = [log[seq] for seq in range(WORKING_SEQ, event.id + 1)]
    states = [value for kind, value in prefix if kind == "status"]
    assert event.state == (states[-1] if states else "submitted")
    folded = [p["text"] for a in event.result.get("artifacts", []) for p in a["parts"]]
    assert folded == [value for kind, value in prefix if kind == "artifact"]


def assert_stream(
    events: list[Event], text: str, chunks: int, *, after: int | None = None, complete: bool = True
) -> None:
    """``events`` are one `agents.slow` turn's, in log order with consecutive ids and the right
    flags: a whole stream (a snapshot first) or, with ``after``, a resumption after that id.
    ``complete``: they end with the final ``completed`` status, the only final event."""
    log = turn_log(text, chunks)
    if after is None:
        assert_snapshot(events[0], text, chunks)
        after, events = events[0].id, events[1:]
    assert after is not None
    assert ids(events) == consecutive(after + 1, len(events))
    for event in events:
        assert event.id is not None
        kind, value = log[event.id]
        assert event.kind == f"{kind}-update", event.payload
        if kind == "status":
            assert event.state == value
            assert event.result["final"] is (event.id == max(log)), event.payload
        else:
            index = event.id - WORKING_SEQ - 1
            assert event.chunk == value
            assert event.result["artifact"]["name"] == ARTIFACT
            assert event.result.get("append", False) is (index > 0), event.payload
            assert event.result.get("lastChunk", False) is (index == chunks - 1), event.payload
    if complete:
        assert (events[-1].id if events else after) == max(log)
        if events:
            assert_completed(events[-1], text)


def assert_completed(event: Event, text: str) -> None:
    assert event.kind == "status-update"
    assert event.state == "completed"
    assert event.result["final"] is True
    assert event.result["status"]["message"]["parts"][0]["text"] == f"done: {text}"


def rpc_error(response: httpx.Response, body: dict[str, Any]) -> dict[str, Any]:
    """The JSON-RPC error of a plain JSON answer (an error found before any stream started)."""
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    payload: dict[str, Any] = response.json()
    assert payload["id"] == body["id"]
    assert "result" not in payload
    error: dict[str, Any] = payload["error"]
    return error


# --- the SDK client ------------------------------------------------------------------------------

Signature = tuple[Any, ...]


async def stream(client: BaseClient, message: Message) -> tuple[Task, list[Signature], Task]:
    """A streamed send through the SDK until the server closes it: the first event (a Task, as
    sent), the updates after it, and the task they fold into."""
    events = [event async for event in client.send_message(request(message))]
    assert events[0].HasField("task"), "the first event must be the Task"
    first = events[0].task
    updates: list[Signature] = []
    for event in events[1:]:
        update: TaskStatusUpdateEvent | TaskArtifactUpdateEvent
        if event.HasField("status_update"):
            update = event.status_update
        else:
            assert event.HasField("artifact_update"), event
            update = event.artifact_update
        assert (update.task_id, update.context_id) == (first.id, first.context_id), update
        updates.append(signature(update))
    return first, updates, fold(events)


def signature(update: TaskStatusUpdateEvent | TaskArtifactUpdateEvent) -> Signature:
    """What a test compares of an update: kind, state or artifact, text and flags."""
    if isinstance(update, TaskStatusUpdateEvent):
        status = update.status
        return ("status", status.state, text_of(status.message.parts) if status.HasField("message") else None)
    artifact = update.artifact
    return ("artifact", artifact.name, text_of(artifact.parts), update.append, update.last_chunk)


def turn(name: str, chunks: list[str], end: TaskState, end_text: str) -> list[Signature]:
    """The updates of one agent turn: working, an artifact in chunks, then the turn's end."""
    last = len(chunks) - 1
    return [
        ("status", TaskState.TASK_STATE_WORKING, None),
        *[("artifact", name, chunk, i > 0, i == last) for i, chunk in enumerate(chunks)],
        ("status", end, end_text),
    ]


def assert_rest_of_turn(
    first: Task, updates: list[Signature], expected: list[Signature], *, start: TaskState
) -> int:
    """``updates`` are the end of the ``expected`` turn, and ``first`` (the snapshot the stream
    began with) folds exactly the beginning that was not streamed; returns how long that is.

    The snapshot is read after the turn is queued, so the worker may be ahead of it by a few
    events (seen on the moto backend); the client still gets every event exactly once: in the
    snapshot, or streamed after it.
    """
    skipped = len(expected) - len(updates)
    assert skipped >= 0, updates
    assert updates == expected[skipped:]
    statuses = [s for s in expected[:skipped] if s[0] == "status"]
    assert first.status.state == (statuses[-1][1] if statuses else start)
    return skipped


# --- tests ---------------------------------------------------------------------------------------


async def test_multiturn_stream_orders_chunks_and_flags_then_continues(multiturn_server: str) -> None:
    words = DRAFT_TEXT.format(topic="cats").rstrip().split(" ")
    size = DraftWriter().chunk_words
    draft = [" ".join(words[i : i + size]) + " " for i in range(0, len(words), size)]
    assert len(draft) >= 3
    with anyio.fail_after(TEST_LIMIT):
        async with connect(multiturn_server, streaming=True) as client:
            first, updates, folded = await stream(client, user_message("cats"))
            expected = turn("draft", draft, TaskState.TASK_STATE_INPUT_REQUIRED, AUDIENCE_QUESTION)
            skipped = assert_rest_of_turn(first, updates, expected, start=TaskState.TASK_STATE_SUBMITTED)
            assert skipped < len(expected), "the stream must carry the final input-required status"
            assert artifact_chunks(first, "draft") == draft[: max(0, skipped - 1)]
            # What the events fold into is the task the server holds.
            assert folded.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
            assert artifact_chunks(folded, "draft") == draft

            reply = user_message("engineers", task_id=first.id, context_id=first.context_id)
            again, updates, folded = await stream(client, reply)
            assert again.id == first.id
            final = "Final version, written for engineers."
            expected = [
                *turn(
                    "final",
                    [final],
                    TaskState.TASK_STATE_COMPLETED,
                    "Done: the draft is tailored for engineers.",
                )
            ]
            skipped = assert_rest_of_turn(again, updates, expected, start=TaskState.TASK_STATE_WORKING)
            assert skipped < len(expected), "the stream must carry the final completed status"
            assert artifact_chunks(again, "final") == [final] * (skipped >= 2)
            assert folded.status.state == TaskState.TASK_STATE_COMPLETED
            assert [a.name for a in folded.artifacts] == ["draft", "final"]


async def test_disconnect_then_resubscribe_with_last_event_id_resumes_without_gap(slow_server: str) -> None:
    text = f"chunks=12 delay=0.04 resume-{uuid.uuid4().hex[:6]}"
    with anyio.fail_after(TEST_LIMIT):
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as http:
            # The Task and four more events; then the connection is dropped mid-turn.
            before = await read_events(http, slow_server, stream_request(text), limit=5)
            assert len(before) == 5
            assert_stream(before, text, 12, complete=False)
            task_id = before[0].result["id"]
            seen = before[-1].id
            assert seen is not None

            after = await read_events(http, slow_server, resubscribe_request(task_id), last_event_id(seen))
            assert after, "the resubscribe carried no events"
            assert after[0].id == seen + 1
            assert_stream(after, text, 12, after=seen)

            task = await get_task(http, slow_server, task_id)
            assert task["status"]["state"] == "completed"
            (artifact,) = task["artifacts"]
            assert [p["text"] for p in artifact["parts"]] == [chunk_text(text, i) for i in range(12)]


async def test_the_task_completes_after_a_disconnect_and_the_log_replays_the_rest(slow_server: str) -> None:
    text = f"chunks=6 delay=0.03 gone-{uuid.uuid4().hex[:6]}"
    with anyio.fail_after(TEST_LIMIT):
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as http:
            before = await read_events(http, slow_server, stream_request(text), limit=3)
            assert_stream(before, text, 6, complete=False)
            task_id = before[0].result["id"]
            seen = before[-1].id
            assert seen is not None

            # Nobody is listening any more; the agent finishes its turn all the same.
            task = await wait_for_state(http, slow_server, task_id, "completed")
            assert [p["text"] for p in task["artifacts"][0]["parts"]] == [
                chunk_text(text, i) for i in range(6)
            ]

            after = await read_events(http, slow_server, resubscribe_request(task_id), last_event_id(seen))
            assert_stream(after, text, 6, after=seen)


async def test_resubscribe_without_last_event_id_starts_from_a_snapshot(slow_server: str) -> None:
    text = f"chunks=10 delay=0.08 snapshot-{uuid.uuid4().hex[:6]}"
    with anyio.fail_after(TEST_LIMIT):
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as http:
            seen = await read_events(http, slow_server, stream_request(text), limit=4)
            task_id = seen[0].result["id"]

            events = await read_events(http, slow_server, resubscribe_request(task_id))
            snapshot = events[0]
            assert snapshot.result["id"] == task_id
            assert snapshot.state == "working", "the snapshot should catch the turn in progress"
            assert_stream(events, text, 10)
            assert len(events) > 2
            final_id = events[-1].id
            assert final_id is not None

            # A finished task: its final state, then the stream closes.
            (done,) = await read_events(http, slow_server, resubscribe_request(task_id))
            assert done.id == final_id
            assert done.state == "completed"
            assert_snapshot(done, text, 10)

            (ending,) = await read_events(
                http, slow_server, resubscribe_request(task_id), last_event_id(final_id)
            )
            assert ending.id == final_id
            assert_completed(ending, text)

            replay = await read_events(http, slow_server, resubscribe_request(task_id), last_event_id(5))
            assert_stream(replay, text, 10, after=5)


async def test_resubscribe_to_an_unknown_task_is_one_error_event(slow_server: str) -> None:
    body = resubscribe_request(f"no-such-task-{uuid.uuid4()}")
    with anyio.fail_after(TEST_LIMIT):
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as http:
            items = await read_all(http, slow_server, body)
    assert len(items) == 1, items
    (event,) = items
    assert isinstance(event, Event)
    assert event.payload["jsonrpc"] == "2.0"
    assert event.payload["id"] == body["id"]
    assert "result" not in event.payload
    assert event.payload["error"]["code"] == TASK_NOT_FOUND


async def test_errors_before_a_stream_starts_are_plain_json(slow_server: str) -> None:
    text = "chunks=1 delay=0 finished"
    with anyio.fail_after(TEST_LIMIT):
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as http:
            events = await read_events(http, slow_server, stream_request(text))
            assert events[-1].state == "completed"
            finished = events[0].result["id"]

            cases: list[tuple[dict[str, Any], dict[str, str] | None, int]] = [
                (stream_request("no parts", parts=False), None, INVALID_PARAMS),
                (stream_request("hello?", task_id=f"unknown-{uuid.uuid4()}"), None, TASK_NOT_FOUND),
                (stream_request("more", task_id=finished), None, INVALID_PARAMS),
                (rpc("tasks/resubscribe", {}), None, INVALID_PARAMS),
                (resubscribe_request(finished), last_event_id("abc"), INVALID_PARAMS),
                (resubscribe_request(finished), last_event_id("-1"), INVALID_PARAMS),
            ]
            for body, headers, code in cases:
                response = await http.post(slow_server, json=body, headers=headers)
                assert rpc_error(response, body)["code"] == code, (body, headers, response.text)


async def test_twenty_concurrent_streams_each_get_their_own_task(slow_server: str) -> None:
    texts = [f"chunks=3 delay=0 stream-{i}-{uuid.uuid4().hex[:6]}" for i in range(20)]
    with anyio.fail_after(TEST_LIMIT):
        async with connect(slow_server, streaming=True) as client:
            results = await asyncio.gather(*(stream(client, user_message(text)) for text in texts))

    assert len({first.id for first, _, _ in results}) == len(texts)
    for text, (first, updates, folded) in zip(texts, results, strict=True):
        assert text_of(first.history[0].parts) == text
        chunks = [chunk_text(text, i) for i in range(3)]
        expected = turn(ARTIFACT, chunks, TaskState.TASK_STATE_COMPLETED, f"done: {text}")
        assert_rest_of_turn(first, updates, expected, start=TaskState.TASK_STATE_SUBMITTED)
        assert folded.status.state == TaskState.TASK_STATE_COMPLETED
        assert artifact_chunks(folded, ARTIFACT) == chunks


async def test_a_quiet_agent_gets_keepalive_comments(keepalive_server: str) -> None:
    text = f"pause=1.0 chunks=2 delay=0 quiet-{uuid.uuid4().hex[:6]}"
    with anyio.fail_after(TEST_LIMIT):
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as http:
            items = await read_all(http, keepalive_server, stream_request(text))

    comments = [item for item in items if isinstance(item, Comment)]
    assert comments, "no keepalive comment in a stream quiet for 1 s"
    assert {c.text for c in comments} == {"keepalive"}
    events = [item for item in items if isinstance(item, Event)]
    assert_stream(events, text, 2)
    # The agent is silent for 1 s before its first chunk, and the stream that started its task
    # holds the opening Task until the agent shows it keeps one (it might answer with a message
    # instead): keepalives fill the gap, then the Task, the worker's claim and the chunk come.
    first_event = next(i for i, item in enumerate(items) if isinstance(item, Event))
    quiet = items[:first_event]
    assert len(quiet) >= 2, items
    assert all(isinstance(item, Comment) for item in quiet)
