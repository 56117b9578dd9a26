from __future__ import annotations

import pytest

from a2a_core.core.errors import InvalidTransitionError
from a2a_core.core.turn.executor import Agent, AgentExecutor, TaskContext, as_agent, as_executor, to_parts
from a2a_core.domain import DataPart, TaskState, TextPart
from support import CALLER, Stack, send_params, user_message

pytestmark = pytest.mark.anyio


async def _run(agent: object) -> Stack:
    stack = Stack(agent)
    await stack.engine.send_message(send_params(user_message("question")), CALLER)
    await stack.drain()
    return stack


async def _only_task(stack: Stack) -> tuple[str, TaskState]:
    commits = stack.store._logs
    (task_id,) = commits
    return task_id, (await stack.ledger.head(task_id)).state


async def test_chunked_artifact_is_assembled_in_order() -> None:
    async def agent(ctx: TaskContext) -> None:
        artifact_id = await ctx.artifact("a", name="story")
        await ctx.artifact("b", artifact_id=artifact_id, append=True)
        await ctx.artifact("c", artifact_id=artifact_id, append=True, last_chunk=True)
        await ctx.complete()

    stack = await _run(agent)
    task_id, state = await _only_task(stack)
    task = await stack.ledger.load(task_id)
    assert state == TaskState.completed
    (artifact,) = task.artifacts or []
    assert artifact.name == "story"
    assert [p.text for p in artifact.parts if isinstance(p, TextPart)] == ["a", "b", "c"]


async def test_an_artifact_without_append_replaces_one_with_the_same_id() -> None:
    async def agent(ctx: TaskContext) -> None:
        artifact_id = await ctx.artifact("draft")
        await ctx.artifact("final", artifact_id=artifact_id)

    stack = await _run(agent)
    task = await stack.ledger.load((await _only_task(stack))[0])
    (artifact,) = task.artifacts or []
    assert artifact.parts == [TextPart(text="final")]


@pytest.mark.parametrize(
    ("method", "state"),
    [
        ("ask", TaskState.input_required),
        ("require_auth", TaskState.auth_required),
        ("fail", TaskState.failed),
        ("complete", TaskState.completed),
        ("reject", TaskState.rejected),
    ],
)
async def test_each_ending_sets_its_state_with_a_message(method: str, state: TaskState) -> None:
    async def agent(ctx: TaskContext) -> None:
        await getattr(ctx, method)("because")

    stack = await _run(agent)
    task = await stack.ledger.load((await _only_task(stack))[0])
    assert task.status.state == state
    assert task.status.message is not None
    assert task.status.message.parts == [TextPart(text="because")]


async def test_emitting_after_the_turn_ended_is_an_error_and_changes_nothing() -> None:
    errors: list[str] = []

    async def agent(ctx: TaskContext) -> None:
        await ctx.ask("what?")
        try:
            await ctx.update("more")
        except InvalidTransitionError as error:
            errors.append(str(error))

    stack = await _run(agent)
    task = await stack.ledger.load((await _only_task(stack))[0])
    assert task.status.state == TaskState.input_required
    assert errors == ["This turn has ended; the agent cannot emit more"]


async def test_progress_updates_are_recorded_in_history() -> None:
    async def agent(ctx: TaskContext) -> str:
        await ctx.update("thinking")
        return "answer"

    stack = await _run(agent)
    task = await stack.ledger.load((await _only_task(stack))[0])
    texts = [p.text for m in task.history or [] for p in m.parts if isinstance(p, TextPart)]
    assert texts == ["question", "thinking", "answer"]


async def test_context_exposes_the_message_and_text() -> None:
    seen: list[tuple[str, str]] = []

    async def agent(ctx: TaskContext) -> None:
        seen.append((ctx.text, ctx.message.message_id))
        await ctx.complete()

    await _run(agent)
    assert seen[0][0] == "question"


def test_to_parts_accepts_text_data_parts_and_lists() -> None:
    assert to_parts("x") == [TextPart(text="x")]
    assert to_parts({"a": 1}) == [DataPart(data={"a": 1})]
    assert to_parts(TextPart(text="y")) == [TextPart(text="y")]
    assert to_parts([TextPart(text="y"), DataPart(data={})]) == [TextPart(text="y"), DataPart(data={})]


def test_as_agent_refuses_what_cannot_run() -> None:
    with pytest.raises(TypeError):
        as_agent(42)  # type: ignore[arg-type]

    class Quiet(Agent):
        async def run(self, ctx: TaskContext) -> None:
            return None

    agent = Quiet()
    assert as_agent(agent) is agent
    assert as_executor is as_agent  # the helper's old name


async def test_the_old_base_class_warns_once_defined_and_still_runs() -> None:
    with pytest.warns(
        DeprecationWarning, match=r"Old: a2a_core's AgentExecutor is deprecated; subclass a2a_core.Agent"
    ):

        class Old(AgentExecutor):
            async def execute(self, ctx: TaskContext) -> str:
                return f"still {ctx.text}"

    stack = await _run(Old())
    task = await stack.ledger.load((await _only_task(stack))[0])
    assert task.status.state == TaskState.completed
    assert task.status.message is not None
    assert task.status.message.parts == [TextPart(text="still question")]
