from __future__ import annotations

import asyncio

import pytest

from a2a_core.broker import RunOperation
from a2a_core.executor import FunctionExecutor, TaskContext
from a2a_core.types import TaskIdParams, TaskState, TextPart
from a2a_core.worker import RunInProgressError, Worker
from support import CALLER, Stack, send_params, user_message

pytestmark = pytest.mark.anyio


async def _start(stack: Stack, text: str = "hi") -> RunOperation:
    await stack.engine.send_message(send_params(user_message(text)), CALLER)
    operation = await stack.broker.receive(timeout=0)
    assert operation is not None
    return operation


async def test_a_duplicate_delivery_after_the_run_does_nothing() -> None:
    runs: list[str] = []

    async def agent(ctx: TaskContext) -> str:
        runs.append(ctx.text)
        await ctx.artifact("result")
        return "done"

    stack = Stack(agent)
    operation = await _start(stack)
    await stack.worker.handle(operation)
    await stack.worker.handle(operation)
    task = await stack.ledger.load(operation.task_id)
    assert runs == ["hi"]
    assert len(task.artifacts or []) == 1
    assert len(task.history or []) == 2


async def test_a_duplicate_delivery_during_a_live_run_is_retried_later_not_run() -> None:
    release = asyncio.Event()
    runs = 0

    async def slow(ctx: TaskContext) -> str:
        nonlocal runs
        runs += 1
        await release.wait()
        return "done"

    stack = Stack(slow)
    operation = await _start(stack)
    first = asyncio.create_task(stack.worker.handle(operation))
    await asyncio.sleep(0.01)
    with pytest.raises(RunInProgressError):
        await stack.worker.handle(operation)
    release.set()
    await first
    assert runs == 1
    assert (await stack.ledger.load(operation.task_id)).status.state == TaskState.completed


async def test_a_delivery_after_the_lease_expired_takes_over_from_a_dead_worker() -> None:
    now = [1000.0]

    async def agent(ctx: TaskContext) -> str:
        return "recovered"

    stack = Stack(agent)
    operation = await _start(stack)

    async def dies(ctx: TaskContext) -> str:
        raise asyncio.CancelledError  # the process froze or was killed mid-run

    dying = Worker(stack.ledger, FunctionExecutor(dies), lease_seconds=60, clock=lambda: now[0])
    with pytest.raises(asyncio.CancelledError):
        await dying.handle(operation)
    head = await stack.ledger.head(operation.task_id)
    assert head.state == TaskState.working

    retry = Worker(stack.ledger, stack.worker.executor, lease_seconds=60, clock=lambda: now[0] + 30)
    with pytest.raises(RunInProgressError):
        await retry.handle(operation)
    later = Worker(stack.ledger, stack.worker.executor, lease_seconds=60, clock=lambda: now[0] + 61)
    await later.handle(operation)
    task = await stack.ledger.load(operation.task_id)
    assert task.status.state == TaskState.completed
    head = await stack.ledger.head(operation.task_id)
    assert head.run is not None
    assert head.run.attempt == 2


async def test_cancel_during_a_run_is_never_overwritten_by_completion() -> None:
    started = asyncio.Event()
    proceed = asyncio.Event()
    outcome: list[str] = []

    async def agent(ctx: TaskContext) -> str:
        started.set()
        await proceed.wait()
        try:
            await ctx.update("still going")
        except BaseException as error:
            outcome.append(type(error).__name__)
            raise
        return "done"

    stack = Stack(agent)
    operation = await _start(stack)
    run = asyncio.create_task(stack.worker.handle(operation))
    await started.wait()
    await stack.engine.cancel_task(TaskIdParams(id=operation.task_id), CALLER)
    proceed.set()
    await run
    task = await stack.ledger.load(operation.task_id)
    assert task.status.state == TaskState.canceled
    assert outcome == ["TaskCanceledError"]


async def test_the_agent_can_notice_cancellation_through_the_context() -> None:
    seen: list[bool] = []
    proceed = asyncio.Event()

    async def agent(ctx: TaskContext) -> None:
        seen.append(await ctx.is_canceled())
        await proceed.wait()
        seen.append(await ctx.is_canceled())

    stack = Stack(agent)
    operation = await _start(stack)
    run = asyncio.create_task(stack.worker.handle(operation))
    await asyncio.sleep(0.01)
    await stack.engine.cancel_task(TaskIdParams(id=operation.task_id), CALLER)
    proceed.set()
    await run
    assert seen == [False, True]
    assert (await stack.ledger.load(operation.task_id)).status.state == TaskState.canceled


async def test_an_agent_exception_fails_the_task_without_leaking_details() -> None:
    async def broken(ctx: TaskContext) -> str:
        raise RuntimeError("secret database password is hunter2")

    stack = Stack(broken)
    operation = await _start(stack)
    await stack.worker.handle(operation)
    task = await stack.ledger.load(operation.task_id)
    assert task.status.state == TaskState.failed
    assert task.status.message is not None
    text = task.status.message.parts[0]
    assert isinstance(text, TextPart)
    assert "hunter2" not in text.text
    assert "failed" in text.text


async def test_a_stale_operation_of_an_earlier_turn_is_ignored() -> None:
    stack = Stack(lambda ctx: _ask(ctx))
    operation = await _start(stack)
    await stack.worker.handle(operation)
    assert (await stack.ledger.head(operation.task_id)).state == TaskState.input_required
    await stack.worker.handle(operation)  # redelivered after the turn ended
    assert (await stack.ledger.head(operation.task_id)).state == TaskState.input_required


async def _ask(ctx: TaskContext) -> None:
    await ctx.ask("more?")


async def test_an_operation_for_an_unknown_task_is_dropped() -> None:
    stack = Stack(lambda ctx: _ask(ctx))
    await stack.worker.handle(RunOperation(task_id="ghost", run_id="r"))
