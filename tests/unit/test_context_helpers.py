"""`TaskContext.load_context` / `update_context` / `change_context` through a real worker."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from a2a_core.compose import build_server
from a2a_core.core.caller import Caller
from a2a_core.core.tasklog.store import InMemoryTaskStore
from a2a_core.core.turn.context_store import NO_CONTEXT, ContextConflictError
from a2a_core.core.turn.executor import TaskContext
from a2a_core.core.turn.worker import AGENT_FAILED
from a2a_core.domain import Task, TaskState, TextPart
from a2a_core.settings import Settings
from support import CALLER, Stack, send_params, user_message

pytestmark = pytest.mark.anyio


async def _send(stack: Stack, text: str, context_id: str = "conversation") -> Task:
    message = user_message(text, context_id=context_id)
    sent = await stack.engine.send_message(send_params(message), CALLER)
    await stack.drain()
    return await stack.ledger.load(sent.id)


async def _counter(ctx: TaskContext) -> str:
    value = await ctx.load_context()
    count = 1
    if isinstance(value, dict) and isinstance(value["count"], int):
        count += value["count"]
    await ctx.update_context({"count": count})
    return f"message #{count} in this context"


def _reply(task: Task) -> str:
    assert task.status.message is not None
    (part,) = task.status.message.parts
    assert isinstance(part, TextPart)
    return part.text


async def test_state_carries_over_between_tasks_of_one_context_only() -> None:
    stack = Stack(_counter)
    assert _reply(await _send(stack, "a")) == "message #1 in this context"
    assert _reply(await _send(stack, "b")) == "message #2 in this context"
    assert _reply(await _send(stack, "c", context_id="other")) == "message #1 in this context"
    stored = await stack.context_store.load_context("conversation")
    assert stored is not None
    assert (stored.value, stored.version) == ({"count": 2}, 2)


async def test_an_update_built_on_a_stale_load_raises_and_keeps_the_other_write() -> None:
    outcomes: list[str] = []

    async def agent(ctx: TaskContext) -> None:
        await ctx.load_context()
        # Another task of the context stores its state while this one works.
        await ctx.context_store.update_context(ctx.context_id, "theirs", expected_version=NO_CONTEXT)
        try:
            await ctx.update_context("mine")
        except ContextConflictError:
            outcomes.append("conflict")
            await ctx.change_context(lambda current: [current, "mine"])

    stack = Stack(agent)
    task = await _send(stack, "go")
    assert task.status.state == TaskState.completed
    assert outcomes == ["conflict"]
    stored = await stack.context_store.load_context("conversation")
    assert stored is not None
    assert (stored.value, stored.version) == (["theirs", "mine"], 2)


async def test_successive_updates_in_one_turn_build_on_each_other() -> None:
    async def agent(ctx: TaskContext) -> None:
        await ctx.update_context("first")  # no load: replaces whatever is stored
        await ctx.update_context("second")
        value: JsonValue = await ctx.change_context(lambda current: f"{current}, third")
        assert value == "second, third"

    stack = Stack(agent)
    assert (await _send(stack, "go")).status.state == TaskState.completed
    stored = await stack.context_store.load_context("conversation")
    assert stored is not None
    assert (stored.value, stored.version) == ("second, third", 3)


async def test_an_agent_using_context_without_a_store_fails_its_task() -> None:
    stack = Stack(_counter)
    service = build_server(Settings(), store=InMemoryTaskStore(), broker=stack.broker)
    stack.ledger, stack.worker = service.ledger, service.worker(_counter)
    stack.engine = service.engine
    task = await _send(stack, "a")
    assert task.status.state == TaskState.failed
    assert _reply(task) == AGENT_FAILED


async def test_contexts_are_per_caller_even_when_two_callers_name_the_same_context() -> None:
    seen: dict[str, object] = {}

    async def agent(ctx: TaskContext) -> str:
        seen[ctx.text] = await ctx.load_context()
        await ctx.update_context({"last": ctx.text})
        return "ok"

    stack = Stack(agent)
    alice, bob = Caller("alice"), Caller("bob")
    for text, caller in (("a1", alice), ("b1", bob), ("a2", alice)):
        await stack.engine.send_message(send_params(user_message(text, context_id="shared")), caller)
        await stack.drain()
    assert seen == {"a1": None, "b1": None, "a2": {"last": "a1"}}
