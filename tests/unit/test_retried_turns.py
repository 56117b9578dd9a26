"""A retried turn replaces what its interrupted attempt wrote: reads of the task (GetTask, lists,
stream starts, snapshots) and streams catching up on the log show the last attempt's output only;
the log keeps everything."""

from __future__ import annotations

import asyncio

import pytest

from a2a_core.core.broker import RunOperation
from a2a_core.core.caller import Caller
from a2a_core.core.requests import TaskRef
from a2a_core.core.streams import TaskStreams
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.records import ArtifactUpdated
from a2a_core.core.tasklog.snapshots import Folding, TaskSnapshot
from a2a_core.core.turn.executor import AgentFunction, FunctionAgent, TaskContext
from a2a_core.core.turn.worker import Worker
from a2a_core.domain import Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent, TextPart
from log_checks import reference_task
from support import CALLER, Stack, send_params, user_message

pytestmark = pytest.mark.anyio


def _artifacts(task: Task) -> list[tuple[str | None, list[str]]]:
    return [(a.name, [p.text for p in a.parts if isinstance(p, TextPart)]) for a in task.artifacts or []]


def _history(task: Task) -> list[str]:
    return [p.text for m in task.history or [] for p in m.parts if isinstance(p, TextPart)]


async def _first_operation(stack: Stack, text: str) -> RunOperation:
    await stack.engine.send_message(send_params(user_message(text)), CALLER)
    operation = await stack.broker.receive(timeout=0)
    assert operation is not None
    return operation


async def _dies_after(
    stack: Stack, operation: RunOperation, agent: AgentFunction, now: list[float], *, ledger: TaskLedger
) -> None:
    """Run ``agent`` as attempt N of the turn until it parks, then lose its worker for good, and
    let its lease run out."""
    parked = asyncio.Event()

    async def then_park(ctx: TaskContext) -> None:
        await agent(ctx)
        parked.set()
        await asyncio.Event().wait()

    worker = Worker(ledger, FunctionAgent(then_park), lease_seconds=60, clock=lambda: now[0])
    run = asyncio.create_task(worker.handle(operation))
    await parked.wait()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    now[0] += 61


async def _retried(
    first: AgentFunction, second: AgentFunction, *, snapshot_every: int = 4
) -> tuple[Stack, TaskLedger, RunOperation]:
    now = [1000.0]
    stack = Stack(second)
    ledger = TaskLedger(stack.store, snapshot_every=snapshot_every)
    operation = await _first_operation(stack, "the question")
    await _dies_after(stack, operation, first, now, ledger=ledger)
    await Worker(ledger, FunctionAgent(second), lease_seconds=60, clock=lambda: now[0]).handle(operation)
    return stack, ledger, operation


async def _drafts(ctx: TaskContext) -> None:
    await ctx.update("reading the question")
    artifact_id = await ctx.artifact("draft, part 1", name="report")
    await ctx.artifact("draft, part 2", artifact_id=artifact_id, append=True)
    await ctx.artifact("notes", name="notes")


async def _final(ctx: TaskContext) -> str:
    await ctx.update("reading it again")
    await ctx.artifact("final report", name="report", last_chunk=True)
    return "here it is"


@pytest.mark.parametrize("snapshot_every", [1, 2, 4, 50])
async def test_reads_show_the_last_attempt_only(snapshot_every: int) -> None:
    stack, ledger, operation = await _retried(_drafts, _final, snapshot_every=snapshot_every)

    task = await ledger.load(operation.task_id)
    assert task.status.state == TaskState.completed
    assert _history(task) == ["the question", "reading it again", "here it is"]
    assert _artifacts(task) == [("report", ["final report"])]
    log = await stack.store.read(operation.task_id)
    assert task == reference_task(log)
    for history_length in (0, 1, 2, 10):
        assert await ledger.load(operation.task_id, history_length) == reference_task(log, history_length)
    # The log itself keeps every attempt's writes.
    chunks = [e.artifact.parts for c in log for e in c.events if isinstance(e, ArtifactUpdated)]
    assert len(chunks) == 4


async def test_an_attempt_that_said_more_than_a_snapshot_holds_is_replaced_too() -> None:
    async def chatty(ctx: TaskContext) -> None:
        for index in range(25):
            await ctx.update(f"step {index}")

    stack, ledger, operation = await _retried(chatty, _final, snapshot_every=2)
    task = await ledger.load(operation.task_id)
    assert _history(task) == ["the question", "reading it again", "here it is"]
    assert task == reference_task(await stack.store.read(operation.task_id))


async def test_an_artifact_of_an_earlier_turn_that_the_dead_attempt_changed_is_restored() -> None:
    now = [1000.0]

    async def first_turn(ctx: TaskContext) -> None:
        await ctx.artifact("chapter 1", artifact_id="book", name="book")
        await ctx.ask("go on?")

    stack = Stack(first_turn)
    operation = await _first_operation(stack, "write a book")
    await stack.worker.handle(operation)
    await stack.engine.send_message(send_params(user_message("yes", task_id=operation.task_id)), CALLER)
    second_turn = await stack.broker.receive(timeout=0)
    assert second_turn is not None

    async def scribbles(ctx: TaskContext) -> None:
        await ctx.artifact("chapter 2 (draft)", artifact_id="book", append=True)
        await ctx.artifact("a rewrite", artifact_id="book")

    async def finishes(ctx: TaskContext) -> str:
        await ctx.artifact("chapter 2", artifact_id="book", append=True, last_chunk=True)
        return "done"

    await _dies_after(stack, second_turn, scribbles, now, ledger=stack.ledger)
    await Worker(stack.ledger, FunctionAgent(finishes), lease_seconds=60, clock=lambda: now[0]).handle(
        second_turn
    )
    task = await stack.ledger.load(operation.task_id)
    assert _artifacts(task) == [("book", ["chapter 1", "chapter 2"])]
    assert _history(task) == ["write a book", "go on?", "yes", "done"]


async def test_a_retried_turn_gives_its_artifacts_the_ids_the_dead_attempt_gave_them() -> None:
    stack, _, operation = await _retried(_drafts, _final)
    log = await stack.store.read(operation.task_id)
    ids = [e.artifact.artifact_id for c in log for e in c.events if isinstance(e, ArtifactUpdated)]
    # Each attempt's first new artifact: the same id, so a client that saw the draft sees it replaced.
    assert ids[0] == ids[-1]
    assert len(set(ids)) == 2


async def test_a_stream_catching_up_past_a_retry_sees_the_last_attempt_only() -> None:
    stack, _, operation = await _retried(_drafts, _final)
    log = await stack.store.read(operation.task_id)
    streams = TaskStreams(stack.engine)
    caller = Caller(last_event_id=str(log[0].last_seq))
    items = [item async for item in await streams.resubscribe(TaskRef(task_id=operation.task_id), caller)]

    artifacts = [i.result for i in items if isinstance(i.result, TaskArtifactUpdateEvent)]
    statuses = [i.result for i in items if isinstance(i.result, TaskStatusUpdateEvent)]
    assert [[p.text for p in a.artifact.parts if isinstance(p, TextPart)] for a in artifacts] == [
        ["final report"]
    ]
    messages = [s.status.message for s in statuses if s.status.message is not None]
    assert [p.text for m in messages for p in m.parts if isinstance(p, TextPart)] == [
        "reading it again",
        "here it is",
    ]
    assert statuses[-1].status.state == TaskState.completed


def test_a_snapshot_written_before_retried_turns_were_replaced_still_reads() -> None:
    old = TaskSnapshot.model_validate_json(
        '{"format":1,"task_id":"t","context_id":"c","upto":3,"status":{"state":"working"},'
        '"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"x"}]}],'
        '"messages":[],"message_count":1,"positions":""}'
    )
    folding = Folding.resume(old)
    assert folding.turn_run is None
    assert [a.artifact_id for a in folding.artifacts()] == ["a"]
