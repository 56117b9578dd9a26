"""`TaskContext.turn` and `resumed_from`: which turn of its task an agent runs, counted by the
server, whatever the agent emitted before; and what the call carried (`metadata`, `extensions`,
`principal`)."""

from __future__ import annotations

import pytest

from a2a_core import TaskContext
from a2a_core.core.caller import Caller
from a2a_core.core.requests import SendRequest
from a2a_core.domain import Role, Task, TaskState, TaskStatus
from a2a_core.testing import run_agent
from support import Stack, user_message

pytestmark = pytest.mark.anyio


async def chatty(ctx: TaskContext) -> str | None:
    """The README's two-turn agent, with a first turn that reports a dozen steps."""
    if ctx.turn == 1:
        for step in range(12):
            await ctx.update(f"step {step + 1} of 12")
        await ctx.ask("Short or detailed?")
        return None
    return f"Here is the {ctx.text} version (turn {ctx.turn}, after {ctx.resumed_from})."


async def test_a_first_turn_of_twelve_progress_messages_still_leaves_the_reply_turn_two() -> None:
    # Counting user messages in ctx.history (a window of the last 10 messages) saw one here, and
    # the agent asked its question again forever.
    async with run_agent(chatty) as a:
        task = await a.send("Write about otters")
        assert task.state == TaskState.input_required
        assert len(task.agent_messages) == 13
        task = await a.reply(task, "short")
        assert task.state == TaskState.completed
        assert task.text == "Here is the short version (turn 2, after input-required)."


async def test_turns_count_each_continuation_and_say_what_the_task_waited_in() -> None:
    seen: list[tuple[int, TaskState | None]] = []

    async def agent(ctx: TaskContext) -> None:
        seen.append((ctx.turn, ctx.resumed_from))
        if ctx.turn == 1:
            await ctx.require_auth("Sign in first.")
        elif ctx.turn < 4:
            await ctx.ask("And?")
        else:
            await ctx.complete()

    async with run_agent(agent) as a:
        task = await a.send("start")
        for reply in ("token", "more", "done"):
            task = await a.reply(task, reply)
    assert seen == [
        (1, None),
        (2, TaskState.auth_required),
        (3, TaskState.input_required),
        (4, TaskState.input_required),
    ]


async def test_the_example_agent_tells_its_turns_apart() -> None:
    from a2a_core.examples.multiturn import DraftWriter

    async with run_agent(DraftWriter(chunk_words=1, delay=0)) as a:
        task = await a.send("otters")
        assert task.state == TaskState.input_required
        task = await a.reply(task, "children")
        assert task.text == "Done: the draft is tailored for children."


def test_without_a_counted_turn_the_user_messages_in_the_window_say_it() -> None:
    # A turn started before turns were counted (its lease has no turn): the old estimate.
    answer = user_message("b").model_copy(update={"role": Role.agent})
    history = [user_message("a"), answer, user_message("c")]
    task = Task(id="t", context_id="c", status=TaskStatus(state=TaskState.working), history=history)
    ctx = TaskContext(Stack(chatty).ledger, task, "run")
    assert (ctx.turn, ctx.resumed_from) == (2, None)


async def test_what_the_call_carried_reaches_each_turn() -> None:
    seen: list[tuple[object, ...]] = []

    async def agent(ctx: TaskContext) -> None:
        seen.append((ctx.turn, ctx.metadata, ctx.extensions, ctx.accepted_output_modes, ctx.principal))
        if ctx.turn == 1:
            await ctx.ask("?")

    stack = Stack(agent)
    alice = Caller(principal="alice", extensions=("https://example.com/ext/a",))
    first = SendRequest(user_message("one"), metadata={"trace": 1}, accepted_output_modes=("text/plain",))
    submitted = await stack.engine.submit(first, alice)
    await stack.drain()
    second = SendRequest(user_message("two", task_id=submitted.operation.task_id), metadata={"trace": 2})
    await stack.engine.submit(second, Caller(principal="alice"))
    await stack.drain()
    assert seen == [
        (1, {"trace": 1}, ("https://example.com/ext/a",), ("text/plain",), "alice"),
        (2, {"trace": 2}, (), None, "alice"),
    ]
