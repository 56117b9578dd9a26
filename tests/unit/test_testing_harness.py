"""`a2a_core.testing`: a user's agent driven through the real engine and worker, as their tests
would drive it (a function agent, an `Agent` subclass, streams, cancels, failures)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import JsonValue

from a2a_core import Agent, DataPart, Settings, TaskContext
from a2a_core.core.errors import InvalidAgentResponseError, TaskTerminalError
from a2a_core.examples.multiturn import DraftWriter
from a2a_core.testing import AgentHarness, TaskResult, run_agent

pytestmark = pytest.mark.anyio


async def two_turns(ctx: TaskContext) -> str | None:
    if ctx.turn == 1:
        await ctx.update("Looking into it...")
        draft = await ctx.artifact("Part one. ", name="answer")
        await ctx.artifact("Part two.", artifact_id=draft, append=True, last_chunk=True)
        await ctx.ask("Short or detailed?")
        return None
    return f"Here is the {ctx.text} version."


async def test_a_function_agent_asks_and_finishes_on_the_reply() -> None:
    async with run_agent(two_turns) as a:
        task = await a.send("otters")
        assert task.state == "input-required"
        assert task.text == "Short or detailed?"
        assert task.artifact("answer") == "Part one. Part two."
        assert task.agent_messages == ["Looking into it...", "Short or detailed?"]

        done = await a.reply(task, "short")
        assert (done.id, done.context_id) == (task.id, task.context_id)
        assert done.state == "completed"
        assert done.text == "Here is the short version."
        assert [m.role for m in done.history] == ["user", "agent", "agent", "user", "agent"]


async def test_an_executor_subclass_streams_its_draft_then_completes() -> None:
    async with run_agent(DraftWriter(delay=0)) as a:
        turn = await a.stream("otters")
        assert turn.states == ["submitted", "working", "input-required"]
        assert "".join(turn.chunks).startswith("Here is a first draft about otters:")
        assert len(turn.chunks) > 1
        assert turn.text == "Who is the audience for this piece?"

        final = await a.stream("children", task_id=turn.task.id)
        assert final.states[-1] == "completed"
        assert final.chunks == ["Final version, written for children."]
        assert final.task.artifact("final") == "Final version, written for children."


async def test_a_cancel_stops_the_running_agent_and_wait_returns_when_it_has() -> None:
    started, go_on = asyncio.Event(), asyncio.Event()
    cleaned_up: list[str] = []

    async def slow(ctx: TaskContext) -> str:
        started.set()
        try:
            await go_on.wait()
            await ctx.update("still working")
        finally:
            cleaned_up.append(ctx.task_id)
        return "never sent"

    async with run_agent(slow) as a:
        task = await a.send("take your time", wait=False)
        assert task.state in ("submitted", "working")
        await started.wait()
        assert (await a.cancel(task)).state == "canceled"
        go_on.set()
        stopped = await a.wait(task)
        assert stopped.state == "canceled"
        assert cleaned_up == [task.id]
        assert stopped.agent_messages == []  # the agent's late update was refused


async def test_subscribe_follows_a_running_task_to_its_end() -> None:
    go_on = asyncio.Event()

    async def waits(ctx: TaskContext) -> str:
        await ctx.update("waiting")
        await go_on.wait()
        return "done"

    async with run_agent(waits) as a:
        task = await a.send("x", wait=False)
        events = a.subscribe(task)
        first = await anext(events)
        assert first.kind == "task"
        go_on.set()
        rest = [event async for event in events]
        assert rest[-1].kind == "status-update"
        assert rest[-1].status.state == "completed"


async def test_an_agent_error_is_raised_in_the_test_by_default() -> None:
    async def broken(ctx: TaskContext) -> str:
        raise LookupError("no such city")

    async with run_agent(broken) as a:
        with pytest.raises(LookupError, match="no such city"):
            await a.send("Paris")
        [task] = await a.tasks()
        assert task.state == "failed"  # the server's side of it happened all the same


async def test_without_raising_the_task_fails_as_a_client_sees_it() -> None:
    async def broken(ctx: TaskContext) -> str:
        raise LookupError("no such city")

    async with run_agent(broken, raise_agent_errors=False) as a:
        task = await a.send("Paris")
    assert task.state == "failed"
    assert "no such city" not in task.text  # clients get the generic message
    assert isinstance(task.error, LookupError)


async def test_content_the_server_cannot_send_is_raised_where_the_test_sees_it() -> None:
    async def wrong(ctx: TaskContext) -> object:
        return 42

    async with run_agent(wrong) as a:
        with pytest.raises(InvalidAgentResponseError):
            await a.send("x")
    async with run_agent(wrong, raise_agent_errors=False) as a:
        task = await a.send("x")
    assert task.state == "failed"
    assert task.text == "The agent returned an invalid response."


async def test_a_turn_that_never_ends_times_out_naming_its_state_and_is_stopped_at_exit() -> None:
    stopped = asyncio.Event()

    async def stuck(ctx: TaskContext) -> None:
        try:
            await asyncio.Event().wait()
        finally:
            stopped.set()

    async with run_agent(stuck, timeout=0.2) as a:
        with pytest.raises(TimeoutError, match=r"did not end within 0.2 s \(it is working\)"):
            await a.send("x")
    assert stopped.is_set()


def one_more_turn(now: JsonValue | None) -> JsonValue:
    turns = now["turns"] if isinstance(now, dict) and isinstance(now["turns"], int) else 0
    return {"turns": turns + 1}


async def test_data_in_and_out_and_the_context_store() -> None:
    async def counter(ctx: TaskContext) -> dict[str, object]:
        [part] = ctx.message.parts
        assert isinstance(part, DataPart)
        state = await ctx.change_context(one_more_turn)
        assert isinstance(state, dict)
        return {"turns": state["turns"], "asked": part.data["n"]}

    async with run_agent(counter) as a:
        first = await a.send({"n": 1})
        second = await a.send({"n": 2}, context_id=first.context_id)
        assert second.id != first.id
        assert second.data == {"turns": 2, "asked": 2}
        assert await a.load_context(second) == {"turns": 2}
        assert [t.id for t in await a.tasks(context_id=first.context_id)] == [second.id, first.id]
        assert await a.tasks(state="input-required") == []
        with pytest.raises(TaskTerminalError):
            await a.reply(first, "a completed task takes no more turns")


async def test_results_say_what_is_missing() -> None:
    async with run_agent(two_turns) as a:
        task = await a.send("x")
    with pytest.raises(KeyError, match=r"no artifact 'summary'; it has \['answer'\]"):
        task.artifact("summary")
    assert repr(task) == f"TaskResult(id={task.id!r}, state='input-required', text='Short or detailed?')"
    assert isinstance(task, TaskResult)


async def test_it_is_used_inside_async_with_and_refuses_push() -> None:
    harness = AgentHarness(two_turns)
    with pytest.raises(RuntimeError, match="async with run_agent"):
        await harness.send("x")
    with pytest.raises(ValueError, match="push notifications"):
        AgentHarness(two_turns, settings=Settings(allow_unauthenticated=True, push_enabled=True))


class Greeter(Agent):
    async def run(self, ctx: TaskContext) -> str:
        return f"Hello, {ctx.text}!"


async def test_settings_reach_the_engine() -> None:
    settings = Settings(allow_unauthenticated=True, max_history_length=1)
    async with run_agent(Greeter(), settings=settings) as a:
        task = await a.send("Ada")
        assert task.text == "Hello, Ada!"
        assert len(task.history) == 1  # the history cap applies, as on a server
