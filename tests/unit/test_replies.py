"""A turn answered with a message and no task (`TaskContext.reply`): what SendMessage returns,
what a stream carries, what a retry and GetTask see, and when a reply completes a task instead."""

from __future__ import annotations

import asyncio

import pytest

from a2a_core import TaskContext
from a2a_core.core.requests import ListTasksQuery, SendRequest, TaskQuery
from a2a_core.core.streams import StreamItem, TaskStreams
from a2a_core.domain import Message, Task, TaskState, TaskStatusUpdateEvent, TextPart
from support import CALLER, Stack, user_message

pytestmark = pytest.mark.anyio


async def answers(ctx: TaskContext) -> None:
    await ctx.reply(f"You said {ctx.text}.")


async def _answer(stack: Stack, request: SendRequest) -> Task | Message:
    """SendMessage as a blocking client sends it, with a worker running meanwhile."""
    worker = asyncio.create_task(_work(stack))
    try:
        return await stack.engine.answer_message(request, CALLER)
    finally:
        worker.cancel()


async def _work(stack: Stack) -> None:
    while True:
        operation = await stack.broker.receive(timeout=1.0)
        if operation is not None:
            await stack.worker.handle(operation)


def _texts(message: Message | None) -> list[str]:
    assert message is not None
    return [part.text for part in message.parts if isinstance(part, TextPart)]


async def test_a_blocking_send_returns_the_message_and_a_retry_the_same_one() -> None:
    stack = Stack(answers)
    message = user_message("hi")
    answer = await _answer(stack, SendRequest(message, blocking=True))
    assert isinstance(answer, Message)
    assert _texts(answer) == ["You said hi."]
    assert answer.task_id is None  # the client is given no task to track
    assert answer.context_id  # but the conversation, to continue it
    again = await stack.engine.answer_message(SendRequest(message, blocking=True), CALLER)
    assert again == answer  # durable: the stored message, not a new one
    assert await stack.drain() == 0  # nothing ran twice


async def test_the_task_record_is_kept_completed_with_the_answer() -> None:
    stack = Stack(answers)
    message = user_message("hi")
    sent = await stack.engine.answer_message(SendRequest(message, blocking=False), CALLER)
    assert isinstance(sent, Task)  # a non-blocking send returns at once: the agent has not answered
    assert sent.status.state == TaskState.submitted
    await stack.drain()
    task = await stack.engine.get_task(TaskQuery(sent.id), CALLER)
    assert task.status.state == TaskState.completed
    assert _texts(task.status.message) == ["You said hi."]
    page = await stack.engine.list_tasks(ListTasksQuery(), CALLER)
    assert [listed.id for listed in page.tasks] == [sent.id]
    # A retry of the non-blocking send, once answered, gets the answer.
    assert isinstance(
        await stack.engine.answer_message(SendRequest(message, blocking=False), CALLER), Message
    )


async def test_a_reply_on_a_later_turn_completes_the_task_the_client_follows() -> None:
    async def agent(ctx: TaskContext) -> None:
        if ctx.turn == 1:
            await ctx.ask("Name?")
        else:
            await ctx.reply(f"Hello, {ctx.text}.")

    stack = Stack(agent)
    first = await _answer(stack, SendRequest(user_message("hi"), blocking=True))
    assert isinstance(first, Task)
    second = await _answer(stack, SendRequest(user_message("Ada", task_id=first.id), blocking=True))
    assert isinstance(second, Task)
    assert second.status.state == TaskState.completed
    assert _texts(second.status.message) == ["Hello, Ada."]


async def test_a_reply_after_progress_completes_the_task() -> None:
    async def agent(ctx: TaskContext) -> None:
        await ctx.update("thinking")
        await ctx.reply("done")

    stack = Stack(agent)
    answer = await _answer(stack, SendRequest(user_message("hi"), blocking=True))
    assert isinstance(answer, Task)
    assert answer.status.state == TaskState.completed
    assert _texts(answer.status.message) == ["done"]


async def _stream(stack: Stack, streams: TaskStreams, message: Message) -> list[StreamItem]:
    worker = asyncio.create_task(_work(stack))
    try:
        items = await streams.message_stream(SendRequest(message), CALLER)
        return [item async for item in items]
    finally:
        worker.cancel()


async def test_the_stream_of_an_answered_message_is_that_message_alone() -> None:
    stack = Stack(answers)
    streams = TaskStreams(stack.engine)
    message = user_message("hi")
    (only,) = await _stream(stack, streams, message)
    assert isinstance(only.result, Message)
    assert _texts(only.result) == ["You said hi."]
    (again,) = await _stream(stack, streams, message)  # a retry of the stream
    assert again.result == only.result


async def test_a_slow_answer_opens_its_stream_with_the_task_and_ends_it_completed() -> None:
    async def slow(ctx: TaskContext) -> None:
        await asyncio.sleep(0.3)
        await ctx.reply("at last")

    stack = Stack(slow)
    items = await _stream(stack, TaskStreams(stack.engine, reply_wait=0.05), user_message("hi"))
    assert isinstance(items[0].result, Task)  # the wait ran out: a task it is, for this client
    last = items[-1].result
    assert isinstance(last, TaskStatusUpdateEvent)
    assert last.status.state == TaskState.completed
    assert _texts(last.status.message) == ["at last"]


async def test_an_agent_that_keeps_a_task_opens_its_stream_at_its_first_event() -> None:
    async def agent(ctx: TaskContext) -> str:
        await ctx.update("on it")
        await asyncio.sleep(0.2)
        return "done"

    stack = Stack(agent)
    streams = TaskStreams(stack.engine, reply_wait=30)
    worker = asyncio.create_task(_work(stack))
    try:
        items = await streams.message_stream(SendRequest(user_message("hi")), CALLER)
        opening = await asyncio.wait_for(anext(items), 5)  # long before reply_wait
        assert isinstance(opening.result, Task)
        rest = [item.result async for item in items]
    finally:
        worker.cancel()
    states = [r.status.state for r in rest if isinstance(r, TaskStatusUpdateEvent)]
    assert states == [TaskState.working, TaskState.working, TaskState.completed]


async def test_a_client_that_leaves_a_held_stream_closes_it_cleanly() -> None:
    started = asyncio.Event()

    async def silent(ctx: TaskContext) -> None:
        started.set()
        await asyncio.sleep(0.5)

    stack = Stack(silent)
    worker = asyncio.create_task(_work(stack))
    try:
        items = await TaskStreams(stack.engine, reply_wait=30).message_stream(
            SendRequest(user_message("hi")), CALLER
        )
        first = asyncio.ensure_future(anext(items))
        await started.wait()
        first.cancel()  # the client went away while the opening Task was held
        with pytest.raises(asyncio.CancelledError):
            await first
        await items.aclose()  # type: ignore[attr-defined]  # no error, and (warnings are errors) no warning
    finally:
        worker.cancel()
