"""`TaskStreams` on the in-memory store, and `sse.buffered`'s time budget.

Logs are written through the ledger directly, so each test decides exactly which events share a
commit. A new task's log is the user message (seq 1) and ``submitted`` (seq 2).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator

import pytest
from pydantic import BaseModel

from a2a_core.core.caller import Caller
from a2a_core.core.engine import TaskEngine
from a2a_core.core.errors import InvalidParamsError
from a2a_core.core.requests import TaskRef
from a2a_core.core.streams import StreamItem, TaskStreams
from a2a_core.core.tasklog.changes import Change, status
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.records import ArtifactUpdated, MessageAdded, StatusChanged
from a2a_core.domain import (
    Artifact,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatusUpdateEvent,
    TextPart,
)
from a2a_core.protocol.jsonrpc import Binding, StreamReply, error_body
from a2a_core.protocol.v0.methods import encode_model
from a2a_core.protocol.versions import Version
from a2a_core.web import sse
from log_checks import CountingStore
from support import CALLER, Stack, send_params, user_message

pytestmark = pytest.mark.anyio

FOLLOW_LIMIT = 2.0  # seconds; every follow below ends well within it, or the test fails


async def _nothing(ctx: object) -> None:
    return None


def _chunk(index: int, *, last: bool | None = None) -> ArtifactUpdated:
    artifact = Artifact(artifact_id="a", name="out", parts=[TextPart(text=f"c{index}")])
    return ArtifactUpdated(seq=0, artifact=artifact, append=index > 0, last_chunk=last)


async def _new_task(stack: Stack) -> tuple[str, str]:
    task = await stack.engine.send_message(send_params(user_message("hi")), CALLER)
    return task.id, task.context_id


async def _append(
    stack: Stack, task_id: str, *events: MessageAdded | StatusChanged | ArtifactUpdated
) -> None:
    commit = await stack.ledger.write(task_id, lambda head: Change(list(events)))
    assert commit is not None


async def _collect(items: AsyncIterator[StreamItem]) -> list[StreamItem]:
    async with asyncio.timeout(FOLLOW_LIMIT):
        return [item async for item in items]


def _describe(item: StreamItem) -> tuple[str | None, str, object]:
    """(SSE id, kind, what it carries) of a stream item."""
    result = item.result
    if isinstance(result, TaskStatusUpdateEvent):
        return item.id, "status", (result.status.state, result.final)
    if isinstance(result, TaskArtifactUpdateEvent):
        (part,) = result.artifact.parts
        assert isinstance(part, TextPart)
        return item.id, "artifact", (part.text, result.append, result.last_chunk)
    if isinstance(result, Task):
        return item.id, "task", result.status.state
    raise AssertionError(f"unexpected stream item {item!r}")


# seq 3-5 are one commit, 6 and 7 one commit each.
LOG = [
    ("3", "status", (TaskState.working, False)),
    ("4", "artifact", ("c0", None, None)),
    ("5", "artifact", ("c1", True, None)),
    ("6", "artifact", ("c2", True, True)),
    ("7", "status", (TaskState.completed, True)),
]


async def _finished_task(stack: Stack) -> tuple[str, str]:
    task_id, context_id = await _new_task(stack)
    await _append(stack, task_id, status(TaskState.working), _chunk(0), _chunk(1))
    await _append(stack, task_id, _chunk(2, last=True))
    await _append(stack, task_id, status(TaskState.completed))
    return task_id, context_id


@pytest.mark.parametrize("after", [2, 3, 4, 5, 6])
async def test_follow_replays_from_any_sequence_number_even_inside_a_commit(after: int) -> None:
    stack = Stack(_nothing)
    task_id, context_id = await _finished_task(stack)
    streams = TaskStreams(stack.engine)

    items = await _collect(streams.follow(task_id, context_id, after))

    assert [_describe(item) for item in items] == LOG[after - 2 :]
    assert all(item.error is None for item in items)
    for item in items:
        assert isinstance(item.result, TaskStatusUpdateEvent | TaskArtifactUpdateEvent)
        assert (item.result.task_id, item.result.context_id) == (task_id, context_id)


async def test_follow_ends_at_the_first_final_status_even_when_more_follows_in_the_log() -> None:
    stack = Stack(_nothing)
    task_id, context_id = await _new_task(stack)
    await _append(stack, task_id, status(TaskState.working), _chunk(0, last=True))
    await _append(stack, task_id, status(TaskState.input_required))
    # The client answers; the next turn's events are already in the log.
    await _append(
        stack, task_id, MessageAdded(seq=0, message=user_message("more")), status(TaskState.working)
    )
    await _append(stack, task_id, status(TaskState.completed))

    items = await _collect(TaskStreams(stack.engine).follow(task_id, context_id, 2))

    assert [_describe(item) for item in items] == [
        ("3", "status", (TaskState.working, False)),
        ("4", "artifact", ("c0", None, True)),
        ("5", "status", (TaskState.input_required, True)),
    ]
    # Resuming after the input-required status streams the next turn; its message is not streamed.
    items = await _collect(TaskStreams(stack.engine).follow(task_id, context_id, 5))
    assert [_describe(item) for item in items] == [
        ("7", "status", (TaskState.working, False)),
        ("8", "status", (TaskState.completed, True)),
    ]


async def test_a_live_follower_is_woken_by_appends_and_closes_on_the_final_status() -> None:
    stack = Stack(_nothing)
    task_id, context_id = await _new_task(stack)
    # Polls of 30 s: only the store's wake-up on append can deliver these events in time.
    streams = TaskStreams(stack.engine, poll_initial=30.0, poll_max=30.0)
    follower = asyncio.create_task(_collect(streams.follow(task_id, context_id, 2)))

    await asyncio.sleep(0.02)
    await _append(stack, task_id, status(TaskState.working), _chunk(0))
    await asyncio.sleep(0.02)
    await _append(stack, task_id, _chunk(1))
    await _append(stack, task_id, _chunk(2, last=True))
    await asyncio.sleep(0.02)
    assert not follower.done()
    started = time.monotonic()
    await _append(stack, task_id, status(TaskState.completed))

    items = await follower
    # Woken by the append, not by its next poll (up to 1 s later).
    assert time.monotonic() - started < 0.9
    assert [_describe(item) for item in items] == LOG


@pytest.mark.parametrize(
    "end", [TaskState.completed, TaskState.failed, TaskState.canceled, TaskState.input_required]
)
async def test_following_a_returned_task_after_its_last_event_yields_its_final_status_once(
    end: TaskState,
) -> None:
    stack = Stack(_nothing)
    task_id, context_id = await _new_task(stack)
    await _append(stack, task_id, status(TaskState.working), _chunk(0, last=True))
    await _append(stack, task_id, status(end))

    items = await _collect(TaskStreams(stack.engine).follow(task_id, context_id, 5))

    assert [_describe(item) for item in items] == [("5", "status", (end, True))]


async def test_resubscribe_after_the_final_event_yields_the_final_status_once() -> None:
    stack = Stack(_nothing)
    task_id, _ = await _finished_task(stack)
    streams = TaskStreams(stack.engine)

    ending = await streams.resubscribe(TaskRef(task_id=task_id), Caller(last_event_id="7"))
    assert [_describe(item) for item in await _collect(ending)] == [LOG[-1]]

    snapshot = await streams.resubscribe(TaskRef(task_id=task_id), Caller(last_event_id=" "))
    assert [_describe(item) for item in await _collect(snapshot)] == [("7", "task", TaskState.completed)]

    resumed = await streams.resubscribe(TaskRef(task_id=task_id), Caller(last_event_id=" 4 "))
    assert [_describe(item) for item in await _collect(resumed)] == LOG[2:]


@pytest.mark.parametrize("header", ["abc", "-1", "1.5", "4x"])
async def test_an_invalid_last_event_id_is_invalid_params_before_any_stream(header: str) -> None:
    stack = Stack(_nothing)
    task_id, _ = await _finished_task(stack)
    caller = Caller(last_event_id=header)

    with pytest.raises(InvalidParamsError):
        await TaskStreams(stack.engine).resubscribe(TaskRef(task_id=task_id), caller)

    body = {"jsonrpc": "2.0", "id": 9, "method": "tasks/resubscribe", "params": {"id": task_id}}
    reply = await stack.service.dispatcher.dispatch(json.dumps(body).encode(), caller, Version.V0_3)
    assert isinstance(reply, bytes), "the error must be a JSON answer, not a stream"
    answer = json.loads(reply)
    assert answer["id"] == 9
    assert answer["error"]["code"] == -32602


async def test_message_stream_starts_from_the_task_as_submitted() -> None:
    async def agent(ctx: object) -> str:
        return "done"

    stack = Stack(agent)
    items = await TaskStreams(stack.engine).message_stream(send_params(user_message("race")), CALLER)
    await stack.drain()  # the worker runs before the response starts streaming

    described = [_describe(item) for item in await _collect(items)]
    assert described[0] == ("2", "task", TaskState.submitted)
    assert described[-1] == ("4", "status", (TaskState.completed, True))


# --- sse.buffered -------------------------------------------------------------------------------


class _Result(BaseModel):
    n: int


def _reply(items: AsyncIterator[StreamItem]) -> StreamReply:
    binding = Binding(Version.V0_3, {}, error_body=error_body, encode_event=encode_model)
    return StreamReply("req-7", items, binding)


def _parse(body: str) -> list[tuple[str | None, dict[str, object]]]:
    """(id, data) of each event of an SSE body; every event must end with a blank line."""
    assert body.endswith(("\n\n", "\r\n\r\n")) or not body
    events = []
    for block in body.replace("\r\n", "\n").split("\n\n")[:-1]:
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        assert set(fields) <= {"id", "data"}, block
        events.append((fields.get("id"), json.loads(fields["data"])))
    return events


async def test_buffered_stops_at_the_budget_and_closes_the_stream() -> None:
    closed = asyncio.Event()

    async def items() -> AsyncIterator[StreamItem]:
        try:
            for n in range(3):
                yield StreamItem(str(n + 1), _Result(n=n))
            await asyncio.sleep(60)  # an agent gone quiet
            yield StreamItem("4", _Result(n=3))
        finally:
            closed.set()

    started = time.monotonic()
    response = await sse.buffered(_reply(items()), budget=0.2)
    elapsed = time.monotonic() - started

    assert 0.2 <= elapsed < 4.0  # the budget, not the quiet agent's 60 s
    assert closed.is_set(), "the abandoned stream must be closed (its reads stop)"
    assert response.media_type == sse.SSE
    events = _parse(bytes(response.body).decode())
    assert events == [(str(n + 1), {"jsonrpc": "2.0", "id": "req-7", "result": {"n": n}}) for n in range(3)]


async def test_buffered_always_carries_the_first_event_however_short_the_budget() -> None:
    """A slow store (or a loaded machine) may take longer than the budget to read the task: the
    body is never empty (it used to be, which the fuzz tests met under load)."""

    async def items() -> AsyncIterator[StreamItem]:
        await asyncio.sleep(0.1)  # the task's read, longer than the budget
        yield StreamItem("1", _Result(n=0))
        await asyncio.sleep(60)
        yield StreamItem("2", _Result(n=1))

    response = await sse.buffered(_reply(items()), budget=0.01)

    assert _parse(bytes(response.body).decode()) == [
        ("1", {"jsonrpc": "2.0", "id": "req-7", "result": {"n": 0}})
    ]


async def test_buffered_answers_as_soon_as_the_stream_ends() -> None:
    async def items() -> AsyncIterator[StreamItem]:
        yield StreamItem("2", _Result(n=1))
        yield StreamItem(None, error=InvalidParamsError("nope"))

    started = time.monotonic()
    response = await sse.buffered(_reply(items()), budget=5.0)

    assert time.monotonic() - started < 2.5  # not the 5 s budget
    events = _parse(bytes(response.body).decode())
    assert events == [
        ("2", {"jsonrpc": "2.0", "id": "req-7", "result": {"n": 1}}),
        (None, {"jsonrpc": "2.0", "id": "req-7", "error": {"code": -32602, "message": "nope"}}),
    ]


async def test_a_follower_reads_once_per_wake_up_whether_or_not_something_is_new() -> None:
    stack = Stack(_nothing)
    task_id, _ = await _new_task(stack)  # the worker never runs: the task stays submitted
    counting = CountingStore(stack.store)
    engine = TaskEngine(TaskLedger(counting), stack.broker)
    streams = TaskStreams(engine, poll_initial=0.001, poll_max=0.002)
    received: asyncio.Queue[StreamItem] = asyncio.Queue()

    async def follow() -> None:
        items = await streams.resubscribe(TaskRef(task_id=task_id), Caller(last_event_id="2"))
        async for item in items:
            await received.put(item)

    async with asyncio.timeout(FOLLOW_LIMIT), asyncio.TaskGroup() as group:
        group.create_task(follow())
        await counting.waiting.wait()  # the follower found nothing new yet
        for index in range(19):  # paced: the next chunk once the follower has the last one
            await _append(stack, task_id, _chunk(index))
            assert _describe(await received.get())[0] == str(3 + index)
        await _append(stack, task_id, status(TaskState.working), status(TaskState.input_required))
        assert _describe(await received.get()) == ("22", "status", (TaskState.working, False))
        assert _describe(await received.get()) == ("23", "status", (TaskState.input_required, True))

    # resubscribe: the task is the caller's (checked before anything is read), and nothing is new
    assert counting.calls["owned"] == counting.calls["head"] == 1
    # Each wake-up (an append, or a poll that timed out) is one read of what follows.
    assert counting.calls["entries"] == counting.calls["wait_for_append"] >= 20
    assert set(counting.calls) == {"owned", "head", "entries", "wait_for_append"}


@pytest.mark.parametrize("waiting", [TaskState.input_required, TaskState.auth_required])
async def test_subscribe_to_a_waiting_task_streams_the_follow_up_turn_to_its_terminal_state(
    waiting: TaskState,
) -> None:
    # Spec 1.0.1 section 3.1.6: the stream ends only at a terminal state, so a subscription to a
    # task waiting for input stays open and carries the turn the client's answer starts.
    stack = Stack(_nothing)
    task_id, _ = await _new_task(stack)
    await _append(stack, task_id, status(TaskState.working), status(waiting))
    received: asyncio.Queue[StreamItem] = asyncio.Queue()

    async def subscribe() -> None:
        async for item in await TaskStreams(stack.engine).subscribe(TaskRef(task_id=task_id), CALLER):
            await received.put(item)

    async with asyncio.timeout(FOLLOW_LIMIT), asyncio.TaskGroup() as group:
        subscriber = group.create_task(subscribe())
        assert _describe(await received.get()) == ("4", "task", waiting)
        await asyncio.sleep(0.3)  # the stream stays open while the task waits
        assert not subscriber.done()
        assert received.empty()
        await _append(
            stack, task_id, MessageAdded(seq=0, message=user_message("more")), status(TaskState.working)
        )
        await _append(stack, task_id, status(waiting))  # asked again: still not the end
        await _append(stack, task_id, status(TaskState.working), _chunk(0, last=True))
        await _append(stack, task_id, status(TaskState.completed))

    assert [_describe(received.get_nowait()) for _ in range(received.qsize())] == [
        ("6", "status", (TaskState.working, False)),
        ("7", "status", (waiting, True)),
        ("8", "status", (TaskState.working, False)),
        ("9", "artifact", ("c0", None, True)),
        ("10", "status", (TaskState.completed, True)),
    ]


async def test_resubscribe_to_a_waiting_task_still_ends_at_the_interruption() -> None:
    # 0.3 tasks/resubscribe keeps its behaviour: the 0.x stream ends at a `final` status.
    stack = Stack(_nothing)
    task_id, _ = await _new_task(stack)
    await _append(stack, task_id, status(TaskState.working), status(TaskState.input_required))

    items = await _collect(await TaskStreams(stack.engine).resubscribe(TaskRef(task_id=task_id), CALLER))

    assert [_describe(item) for item in items] == [("4", "task", TaskState.input_required)]
