"""A2A 1.1 task generations, derived from the task log (`records.generation_of`): 1 at creation,
+1 per status or artifact update, the same on every read path, never going back (a superseded
attempt's updates still count), and nothing counted for what is no update."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from a2a_core.core.errors import TaskGenerationMismatchError
from a2a_core.core.streams import TaskStreams
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.records import (
    Commit,
    MessageAdded,
    RunLease,
    StatusChanged,
    event_generations,
    generation_of,
)
from a2a_core.core.turn.executor import FunctionAgent, TaskContext
from a2a_core.core.turn.worker import Worker
from a2a_core.domain import Task, TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent
from log_checks import reference_generation
from support import CALLER, Stack, send_params, user_message

pytestmark = pytest.mark.anyio


async def _steps(ctx: TaskContext) -> None:
    await ctx.update("reading")
    artifact_id = await ctx.artifact("part 1", name="report")
    await ctx.artifact("part 2", artifact_id=artifact_id, append=True, last_chunk=True)
    await ctx.ask("more?")


async def _finish(ctx: TaskContext) -> str:
    await ctx.update("again")
    return "done"


async def _two_turns(stack: Stack) -> str:
    task = await stack.engine.send_message(send_params(user_message("go")), CALLER)
    await stack.drain()
    await stack.engine.send_message(send_params(user_message("yes", task_id=task.id)), CALLER)
    await stack.drain()
    return task.id


def _agent() -> FunctionAgent:
    async def agent(ctx: TaskContext) -> str | None:
        if ctx.turn == 1:
            await _steps(ctx)
            return None
        return await _finish(ctx)

    return FunctionAgent(agent)


async def test_a_new_task_is_generation_1() -> None:
    stack = Stack(_agent())
    task = await stack.engine.send_message(send_params(user_message("go")), CALLER)
    assert task.generation == 1
    assert (await stack.ledger.load(task.id)).generation == 1


async def test_every_update_adds_one_and_messages_add_none() -> None:
    stack = Stack(_agent())
    task_id = await _two_turns(stack)
    log = await stack.store.read(task_id)
    updates = [e for c in log for e in c.events if not isinstance(e, MessageAdded)]
    task = await stack.ledger.load(task_id)
    assert task.status.state == TaskState.completed
    assert task.generation == len(updates) == reference_generation(log)
    # Event by event: 1, 2, 3, ... with a message taking the number of the update before it.
    numbers = [n for c in log for e, n in zip(c.events, event_generations(c), strict=True) if e in updates]
    assert numbers == list(range(1, len(updates) + 1))


async def test_reads_from_any_instance_agree_with_the_stream() -> None:
    stack = Stack(_agent())
    task_id = await _two_turns(stack)
    log = await stack.store.read(task_id)
    # A fresh ledger on the same store (another instance), with and without snapshots.
    for every in (1, 2, 50):
        fresh = TaskLedger(stack.store, snapshot_every=every)
        assert (await fresh.load(task_id)).generation == generation_of(log[-1])
        for commit in log:
            view = await fresh.view(task_id, through=commit.first_seq)
            assert view.task.generation == generation_of(commit)
    streams = TaskStreams(stack.engine)
    events = [item.result async for item in streams.follow(task_id, "", 0, to_terminal=True)]
    generations = [
        e.generation for e in events if isinstance(e, TaskStatusUpdateEvent | TaskArtifactUpdateEvent)
    ]
    assert generations == list(range(1, generation_of(log[-1]) + 1))


async def test_a_finished_task_resubscribed_at_its_end_repeats_its_last_generation() -> None:
    stack = Stack(_agent())
    task_id = await _two_turns(stack)
    head = await stack.ledger.head(task_id)
    streams = TaskStreams(stack.engine)
    events = [item.result async for item in streams.follow(task_id, "", head.last_seq)]
    assert len(events) == 1
    assert isinstance(events[0], TaskStatusUpdateEvent)
    assert events[0].generation == generation_of(head)


async def test_a_superseded_attempt_still_counts_so_the_generation_never_goes_back() -> None:
    now = [1000.0]
    stack = Stack(_agent())
    await stack.engine.send_message(send_params(user_message("go")), CALLER)
    operation = await stack.broker.receive(timeout=0)
    assert operation is not None
    parked = asyncio.Event()

    async def dies(ctx: TaskContext) -> None:
        await ctx.update("draft")
        await ctx.artifact("draft", name="report")
        parked.set()
        await asyncio.Event().wait()

    first = Worker(stack.ledger, FunctionAgent(dies), lease_seconds=60, clock=lambda: now[0])
    run = asyncio.create_task(first.handle(operation))
    await parked.wait()
    seen = (await stack.ledger.load(operation.task_id)).generation
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    now[0] += 61
    await Worker(stack.ledger, _agent(), lease_seconds=60, clock=lambda: now[0]).handle(operation)

    log = await stack.store.read(operation.task_id)
    task = await TaskLedger(stack.store).load(operation.task_id)
    assert task.artifacts is not None
    assert [a.name for a in task.artifacts] == ["report"]
    assert task.generation == reference_generation(log)
    assert seen is not None
    assert task.generation is not None
    assert task.generation > seen
    # A reader catching up on the log skips the replaced attempt: a gap, never a repeat.
    streams = TaskStreams(stack.engine)
    items = [item.result async for item in streams.follow(operation.task_id, "", 2)]
    numbers = [
        e.generation or 0 for e in items if isinstance(e, TaskStatusUpdateEvent | TaskArtifactUpdateEvent)
    ]
    assert 0 not in numbers
    assert numbers == sorted(set(numbers))
    assert len(numbers) < generation_of(log[-1]) - 1


def _commit(first_seq: int, events: tuple[MessageAdded | StatusChanged, ...], turn: int) -> Commit:
    return Commit(
        task_id="t",
        context_id="c",
        first_seq=first_seq,
        events=events,
        state=TaskState.working,
        run=RunLease(run_id="r", turn=turn),
        created_at=0.0,
    )


def _working(seq: int) -> StatusChanged:
    return StatusChanged(seq=seq, status=TaskStatus(state=TaskState.working))


def test_a_commit_renewing_a_lease_without_an_event_counts_nothing() -> None:
    before = _commit(3, (_working(3),), turn=1)
    # A heartbeat after it: the lease pushed back, no event, so no sequence number taken.
    renewal = Commit.model_construct(
        **{
            **before.__dict__,
            "first_seq": 4,
            "events": (),
            "run": RunLease(run_id="r", turn=1, lease_until=99.0),
        }
    )
    assert generation_of(before) == 2
    assert generation_of(renewal) == generation_of(before)
    assert event_generations(renewal) == []


def test_a_message_continuing_a_task_takes_no_generation() -> None:
    continued = _commit(
        5, (MessageAdded(seq=5, message=user_message("more")), _working(6)), turn=2
    )  # after seqs 1-4: message, submitted, working, input-required
    assert generation_of(continued) == 4
    assert event_generations(continued) == [3, 4]


def test_a_task_whose_turns_were_not_counted_has_no_generation() -> None:
    legacy = _commit(3, (_working(3),), turn=0)
    assert generation_of(legacy) == 0
    assert event_generations(legacy) == [0]


async def test_the_domain_model_never_writes_the_generation() -> None:
    stack = Stack(_agent())
    task = await stack.engine.send_message(send_params(user_message("go")), CALLER)
    assert isinstance(task, Task)
    assert task.generation == 1
    assert "generation" not in task.model_dump_json()


async def test_two_sends_racing_on_one_generation_continue_the_task_once() -> None:
    stack = Stack(_agent())
    task = await stack.engine.send_message(send_params(user_message("go")), CALLER)
    await stack.drain()  # input-required
    generation = (await stack.ledger.load(task.id)).generation
    sends = [
        replace(
            send_params(user_message(text, task_id=task.id)),
            if_generation_match=generation,
        )
        for text in ("yes", "no")
    ]
    results = await asyncio.gather(
        *(stack.engine.send_message(s, CALLER) for s in sends), return_exceptions=True
    )
    refused = [r for r in results if isinstance(r, TaskGenerationMismatchError)]
    assert len(refused) == 1
    log = await stack.store.read(task.id)
    assert sum(isinstance(e, MessageAdded) for c in log for e in c.events) == 2  # the first, and one reply
    assert await stack.drain() == 1


async def test_a_stale_generation_changes_nothing() -> None:
    stack = Stack(_agent())
    task = await stack.engine.send_message(send_params(user_message("go")), CALLER)
    await stack.drain()
    before = await stack.store.read(task.id)
    stale = replace(send_params(user_message("yes", task_id=task.id)), if_generation_match=1)
    with pytest.raises(TaskGenerationMismatchError):
        await stack.engine.send_message(stale, CALLER)
    assert await stack.store.read(task.id) == before
    assert await stack.drain() == 0
