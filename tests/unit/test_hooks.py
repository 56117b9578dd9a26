from __future__ import annotations

import pytest

from a2a_core.core.turn.executor import TaskContext
from a2a_core.core.turn.hooks import FrameworkAgent, artifact
from a2a_core.core.turn.worker import AGENT_FAILED
from a2a_core.domain import Artifact, Message, Role, Task, TaskState, TextPart
from support import CALLER, Stack, send_params, user_message

pytestmark = pytest.mark.anyio

Turn = tuple[str, str]  # a toy framework's message: (speaker, text)


class Shouter(FrameworkAgent[Turn, str]):
    """Answers the last thing the user said, in capitals; asks first when told to."""

    def __init__(self) -> None:
        self.histories: list[list[Turn]] = []

    def build_message_history(self, history: list[Message]) -> list[Turn]:
        return [(m.role.value, " ".join(p.text for p in m.parts if isinstance(p, TextPart))) for m in history]

    async def invoke(self, history: list[Turn], ctx: TaskContext) -> str:
        self.histories.append(history)
        if history[-1][1] == "ask me":
            await ctx.ask("What should I shout?")
            return "never used"
        if history[-1][1] == "break":
            raise RuntimeError("the framework broke")
        return history[-1][1].upper()

    def build_artifacts(self, result: str) -> list[Artifact]:
        return [artifact(result, name="shout", metadata={"loud": True})]

    def build_reply(self, result: str) -> str | None:
        return f"Shouted {len(result)} letters."


async def _send(stack: Stack, text: str, task_id: str | None = None) -> Task:
    sent = await stack.engine.send_message(send_params(user_message(text, task_id=task_id)), CALLER)
    await stack.drain()
    return await stack.ledger.load(sent.id)


def _texts(message: Message | None) -> list[str]:
    assert message is not None
    return [p.text for p in message.parts if isinstance(p, TextPart)]


async def test_the_hooks_turn_a_run_into_artifacts_and_a_reply() -> None:
    shouter = Shouter()
    task = await _send(Stack(shouter), "hello there")
    assert shouter.histories == [[("user", "hello there")]]
    assert task.status.state == TaskState.completed
    assert _texts(task.status.message) == ["Shouted 11 letters."]
    (shout,) = task.artifacts or []
    assert (shout.name, shout.parts, shout.metadata) == (
        "shout",
        [TextPart(text="HELLO THERE")],
        {"loud": True},
    )


async def test_artifacts_are_emitted_whole_as_last_chunks() -> None:
    stack = Stack(Shouter())
    task = await _send(stack, "hi")
    chunks = [
        event
        for commit in await stack.store.read(task.id)
        for event in commit.events
        if event.kind == "artifact"
    ]
    assert [(c.append, c.last_chunk) for c in chunks] == [(False, True)]


async def test_a_run_that_ends_the_turn_itself_builds_nothing_and_the_next_turn_sees_it_all() -> None:
    shouter = Shouter()
    stack = Stack(shouter)
    task = await _send(stack, "ask me")
    assert task.status.state == TaskState.input_required
    assert task.artifacts is None
    task = await _send(stack, "this", task_id=task.id)
    assert shouter.histories[-1] == [("user", "ask me"), ("agent", "What should I shout?"), ("user", "this")]
    assert task.status.state == TaskState.completed
    assert [a.parts for a in task.artifacts or []] == [[TextPart(text="THIS")]]


async def test_a_failing_run_fails_the_task_like_any_executor() -> None:
    task = await _send(Stack(Shouter()), "break")
    assert task.status.state == TaskState.failed
    assert _texts(task.status.message) == [AGENT_FAILED]
    assert task.artifacts is None


async def test_without_a_reply_the_task_completes_without_a_message() -> None:
    class Quiet(Shouter):
        def build_reply(self, result: str) -> None:
            return None

    task = await _send(Stack(Quiet()), "psst")
    assert task.status.state == TaskState.completed
    assert task.status.message is None
    assert [m.role for m in task.history or []] == [Role.user]


def test_artifact_gives_each_artifact_a_fresh_id() -> None:
    first, second = artifact("a"), artifact({"k": 1}, description="data")
    assert first.artifact_id != second.artifact_id
    assert second.description == "data"
