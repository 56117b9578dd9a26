"""A turn taken over by another worker is that worker's alone: the first one's late writes are
refused, its agent stopped, and the task ends with one run's output."""

from __future__ import annotations

import asyncio

import pytest

from a2a_core.core.broker import RunOperation
from a2a_core.core.errors import TaskCanceledError
from a2a_core.core.tasklog.records import ArtifactUpdated
from a2a_core.core.turn.executor import FunctionAgent, TaskContext
from a2a_core.core.turn.worker import RunInProgressError, Worker
from a2a_core.domain import Task, TaskState, TextPart
from support import CALLER, Stack, send_params, user_message

pytestmark = pytest.mark.anyio


async def _start(stack: Stack) -> RunOperation:
    await stack.engine.send_message(send_params(user_message("write it")), CALLER)
    operation = await stack.broker.receive(timeout=0)
    assert operation is not None
    return operation


def _texts(task: Task) -> list[list[str]]:
    return [[p.text for p in a.parts if isinstance(p, TextPart)] for a in task.artifacts or []]


async def test_a_worker_whose_turn_was_taken_over_is_refused_and_only_the_new_attempt_counts() -> None:
    now = [1000.0]
    first_wrote, first_go_on, second_wrote, second_go_on = (asyncio.Event() for _ in range(4))
    refused: list[str] = []

    async def first(ctx: TaskContext) -> str:
        artifact_id = await ctx.artifact("first, chunk 1", name="story")
        first_wrote.set()
        await first_go_on.wait()  # meanwhile its lease runs out and another worker takes over
        try:
            await ctx.artifact("first, chunk 2", artifact_id=artifact_id, append=True)
        except TaskCanceledError as error:
            refused.append(type(error).__name__)
            raise
        return "first's answer"

    async def second(ctx: TaskContext) -> str:
        artifact_id = await ctx.artifact("second, chunk 1", name="story")
        second_wrote.set()
        await second_go_on.wait()
        await ctx.artifact("second, chunk 2", artifact_id=artifact_id, append=True, last_chunk=True)
        return "second's answer"

    stack = Stack(second)
    operation = await _start(stack)
    clock = lambda: now[0]  # noqa: E731
    worker_a = Worker(stack.ledger, FunctionAgent(first), lease_seconds=1, clock=clock)
    worker_b = Worker(stack.ledger, FunctionAgent(second), lease_seconds=1, clock=clock)

    running_a = asyncio.create_task(worker_a.handle(operation))
    await first_wrote.wait()
    now[0] += 2  # A's lease (1 s) ran out while its agent (3 s) works: a redelivery takes over
    running_b = asyncio.create_task(worker_b.handle(operation))
    await second_wrote.wait()
    first_go_on.set()
    # A's write is refused, and A ends without writing anything more; its message stays queued,
    # for the turn is B's and not over yet (B may need it, if it fails too).
    with pytest.raises(RunInProgressError):
        await running_a
    second_go_on.set()
    await running_b

    task = await stack.ledger.load(operation.task_id)
    assert refused == ["TurnLostError"]
    assert task.status.state == TaskState.completed
    assert task.status.message is not None
    assert task.status.message.parts == [TextPart(text="second's answer")]
    assert _texts(task) == [["second, chunk 1", "second, chunk 2"]]
    # Nothing of attempt 1 was written after attempt 2's claim.
    commits = await stack.ledger.store.read(operation.task_id)
    claims = [c for c in commits if c.run is not None and c.run.attempt == 2]
    takeover = claims[0].first_seq
    late = [c for c in commits if c.first_seq > takeover and c.run is not None and c.run.attempt == 1]
    assert late == []
    chunks = [e for c in commits for e in c.events if isinstance(e, ArtifactUpdated)]
    assert len(chunks) == 3  # A's first chunk (superseded) and B's two


async def test_an_agent_that_swallows_the_refusal_is_stopped() -> None:
    now = [1000.0]
    first_wrote, first_go_on = asyncio.Event(), asyncio.Event()
    what_happened: list[str] = []

    async def stubborn(ctx: TaskContext) -> str:
        await ctx.update("working on it")
        first_wrote.set()
        await first_go_on.wait()
        try:
            await ctx.update("still at it")
        except Exception as error:  # noqa: BLE001 (a broad handler that goes on regardless)
            what_happened.append(type(error).__name__)
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            what_happened.append("stopped")
            raise
        return "never"

    async def second(ctx: TaskContext) -> str:
        return "done"

    stack = Stack(second)
    operation = await _start(stack)
    clock = lambda: now[0]  # noqa: E731
    worker_a = Worker(stack.ledger, FunctionAgent(stubborn), lease_seconds=1, clock=clock, stop_grace=0.05)
    running_a = asyncio.create_task(worker_a.handle(operation))
    await first_wrote.wait()
    now[0] += 2
    await Worker(stack.ledger, FunctionAgent(second), lease_seconds=1, clock=clock).handle(operation)
    first_go_on.set()
    await asyncio.wait_for(running_a, timeout=30)

    assert what_happened == ["TurnLostError", "stopped"]
    task = await stack.ledger.load(operation.task_id)
    assert task.status.state == TaskState.completed
    texts = [p.text for m in task.history or [] for p in m.parts if isinstance(p, TextPart)]
    assert texts == ["write it", "done"]  # the first attempt's progress was replaced
