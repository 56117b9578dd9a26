from __future__ import annotations

import asyncio
import time

import pytest

from a2a_core.core.broker import RunOperation
from a2a_core.core.requests import TaskRef
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.turn.executor import HISTORY_WINDOW, FunctionAgent, TaskContext
from a2a_core.core.turn.worker import RunInProgressError, Worker
from a2a_core.domain import Message, Role, Task, TaskState, TextPart
from log_checks import CountingStore
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


async def _killed_mid_run(worker: Worker, operation: RunOperation, parked: asyncio.Event) -> None:
    """Run the turn until its agent parks (sets ``parked``), then stop the worker there, as a
    process that is killed (or frozen for good) stops: nothing more is written."""
    run = asyncio.create_task(worker.handle(operation))
    await parked.wait()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run


async def test_a_delivery_after_the_lease_expired_takes_over_from_a_dead_worker() -> None:
    now = [1000.0]

    async def agent(ctx: TaskContext) -> str:
        return "recovered"

    stack = Stack(agent)
    operation = await _start(stack)
    parked = asyncio.Event()

    async def dies(ctx: TaskContext) -> str:
        parked.set()
        await asyncio.Event().wait()  # the process is killed here
        return "never"

    dying = Worker(stack.ledger, FunctionAgent(dies), lease_seconds=60, clock=lambda: now[0])
    await _killed_mid_run(dying, operation, parked)
    head = await stack.ledger.head(operation.task_id)
    assert head.state == TaskState.working

    retry = Worker(stack.ledger, stack.worker.agent, lease_seconds=60, clock=lambda: now[0] + 30)
    with pytest.raises(RunInProgressError):
        await retry.handle(operation)
    later = Worker(stack.ledger, stack.worker.agent, lease_seconds=60, clock=lambda: now[0] + 61)
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
    await stack.engine.cancel_task(TaskRef(task_id=operation.task_id), CALLER)
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
    await stack.engine.cancel_task(TaskRef(task_id=operation.task_id), CALLER)
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


def _status_text(task: Task) -> str:
    assert task.status.message is not None
    part = task.status.message.parts[0]
    assert isinstance(part, TextPart)
    return part.text


async def test_an_agent_past_the_deadline_is_stopped_and_the_task_failed() -> None:
    stopped: list[str] = []

    async def slow(ctx: TaskContext) -> str:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            stopped.append("cancelled")
            raise
        return "too late"

    stack = Stack(slow)
    operation = await _start(stack)
    worker = Worker(stack.ledger, FunctionAgent(slow), safety_margin=5.0)
    started = time.monotonic()
    await worker.handle(operation, deadline=started + 5.05)
    assert time.monotonic() - started < 4.0  # stopped at the deadline less the margin, not run out
    task = await stack.ledger.load(operation.task_id)
    assert stopped == ["cancelled"]
    assert task.status.state == TaskState.failed
    # The setting that gives turns longer is named, with the time this turn had (the default).
    assert _status_text(task).startswith("The agent did not finish within max_turn_seconds = 5 s")


async def test_the_time_limit_never_overwrites_a_cancel() -> None:
    async def slow(ctx: TaskContext) -> None:
        await asyncio.sleep(60)

    stack = Stack(slow)
    operation = await _start(stack)
    worker = Worker(stack.ledger, FunctionAgent(slow), safety_margin=5.0)
    run = asyncio.create_task(worker.handle(operation, deadline=time.monotonic() + 5.1))
    await asyncio.sleep(0.02)
    await stack.engine.cancel_task(TaskRef(task_id=operation.task_id), CALLER)
    await run
    assert (await stack.ledger.load(operation.task_id)).status.state == TaskState.canceled


async def test_a_timeout_the_agent_raises_itself_is_an_agent_failure_not_the_time_limit() -> None:
    async def impatient(ctx: TaskContext) -> str:
        raise TimeoutError("the upstream API timed out")

    stack = Stack(impatient)
    operation = await _start(stack)
    await stack.worker.handle(operation, deadline=time.monotonic() + 900)
    task = await stack.ledger.load(operation.task_id)
    assert task.status.state == TaskState.failed
    assert _status_text(task) == "The agent failed while working on this task."


async def test_a_turn_whose_attempts_are_used_up_fails_instead_of_running_again() -> None:
    now = [1000.0]
    runs = 0

    parked = asyncio.Event()

    async def dies(ctx: TaskContext) -> str:
        nonlocal runs
        runs += 1
        parked.set()
        await asyncio.Event().wait()  # the process is killed here
        return "never"

    stack = Stack(dies)
    operation = await _start(stack)
    worker = Worker(stack.ledger, FunctionAgent(dies), lease_seconds=60, max_attempts=2, clock=lambda: now[0])
    for _ in range(2):
        parked.clear()
        await _killed_mid_run(worker, operation, parked)
        now[0] += 61
    await worker.handle(operation)
    task = await stack.ledger.load(operation.task_id)
    assert runs == 2
    assert task.status.state == TaskState.failed
    assert _status_text(task) == "The agent could not finish this task after 2 attempts."


async def test_give_up_fails_a_pending_turn_once() -> None:
    stack = Stack(lambda ctx: _ask(ctx))
    operation = await _start(stack)
    assert await stack.worker.give_up(operation, "It went to the dead-letter queue.") is True
    assert await stack.worker.give_up(operation, "It went to the dead-letter queue.") is False
    task = await stack.ledger.load(operation.task_id)
    assert task.status.state == TaskState.failed
    assert _status_text(task) == "It went to the dead-letter queue."
    assert [m.role for m in task.history or []] == [Role.user, Role.agent]


async def test_give_up_leaves_finished_waiting_and_unknown_tasks_alone() -> None:
    stack = Stack(lambda ctx: _ask(ctx))
    operation = await _start(stack)
    await stack.worker.handle(operation)
    assert await stack.worker.give_up(operation, "gone") is False
    assert (await stack.ledger.head(operation.task_id)).state == TaskState.input_required

    done = Stack(lambda ctx: _reply(ctx))
    finished = await _start(done)
    await done.worker.handle(finished)
    assert await done.worker.give_up(finished, "gone") is False
    assert (await done.ledger.head(finished.task_id)).state == TaskState.completed
    assert await done.worker.give_up(RunOperation(task_id="ghost", run_id="r"), "gone") is False


async def _reply(ctx: TaskContext) -> str:
    return "done"


async def test_give_up_waits_while_a_live_worker_holds_the_turn() -> None:
    release = asyncio.Event()

    async def slow(ctx: TaskContext) -> str:
        await release.wait()
        return "done"

    stack = Stack(slow)
    operation = await _start(stack)
    run = asyncio.create_task(stack.worker.handle(operation))
    await asyncio.sleep(0.01)
    with pytest.raises(RunInProgressError):
        await stack.worker.give_up(operation, "gone")
    release.set()
    await run
    assert (await stack.ledger.head(operation.task_id)).state == TaskState.completed


async def test_a_turn_of_a_long_task_starts_from_one_read_with_its_recent_messages() -> None:
    """ctx.history is the last HISTORY_WINDOW messages, whatever the task's length;
    ctx.load_history reads further back, and the turn's own writes take no reads."""
    seen: dict[str, list[str]] = {}

    async def agent(ctx: TaskContext) -> None:
        seen["history"] = [_text_of(m) for m in ctx.history]
        seen["older"] = [_text_of(m) for m in await ctx.load_history(25)]
        for index in range(10):
            await ctx.artifact(f"chunk {index}", artifact_id="a", append=index > 0)
        await ctx.ask(f"answer to {ctx.text}")

    stack = Stack(agent)
    counting = CountingStore(stack.store)
    worker = Worker(TaskLedger(counting), FunctionAgent(agent))
    operation = await _start(stack, "message 0")
    await worker.handle(operation)
    for turn in range(1, 30):
        await stack.engine.send_message(
            send_params(user_message(f"message {turn}", task_id=operation.task_id)), CALLER
        )
        counting.reset()
        await worker.handle(RunOperation(task_id=operation.task_id, run_id=(await _run_id(stack, operation))))

    expected = [text for turn in range(29) for text in (f"message {turn}", f"answer to message {turn}")]
    assert seen["history"] == [*expected, "message 29"][-HISTORY_WINDOW:]
    assert seen["older"] == [*expected, "message 29"][-25:]
    # The turn start (one page), load_history (one page, then the commits holding the older
    # messages, by key: ten artifact chunks lie between two messages). The worker's watch for a
    # cancel only waits on the log meanwhile: the agent's own writes look at the head.
    reads = {call: n for call, n in counting.calls.items() if call != "wait_for_append"}
    assert reads == {"latest": 2, "commits_at": 1}
    assert (await stack.ledger.load(operation.task_id, history_length=1)).history == [
        (await stack.ledger.load(operation.task_id)).history[-1]  # type: ignore[index]
    ]


async def _run_id(stack: Stack, operation: RunOperation) -> str:
    run = (await stack.ledger.head(operation.task_id)).run
    assert run is not None
    return run.run_id


def _text_of(message: Message) -> str:
    part = message.parts[0]
    assert isinstance(part, TextPart)
    return part.text


async def test_a_retried_turn_starts_from_the_turn_as_it_began_after_a_dead_attempt_said_a_lot() -> None:
    """The progress messages of an attempt that died are replaced by the next attempt's: its
    history ends with the message that started the turn, as the first attempt's did."""
    now = [1000.0]
    seen: list[list[str]] = []
    parked = asyncio.Event()

    async def talks_then_dies(ctx: TaskContext) -> str:
        for index in range(HISTORY_WINDOW + 2):
            await ctx.update(f"progress {index}")
        parked.set()
        await asyncio.Event().wait()  # the process is killed here
        return "never"

    async def agent(ctx: TaskContext) -> str:
        seen.append([ctx.text, *(_text_of(m) for m in ctx.history)])
        await ctx.update("progress again")
        return "done"

    stack = Stack(agent)
    operation = await _start(stack, "the question")
    dying = Worker(stack.ledger, FunctionAgent(talks_then_dies), lease_seconds=60, clock=lambda: now[0])
    await _killed_mid_run(dying, operation, parked)
    later = Worker(stack.ledger, FunctionAgent(agent), lease_seconds=60, clock=lambda: now[0] + 61)
    await later.handle(operation)

    assert seen == [["the question", "the question"]]
    task = await stack.ledger.load(operation.task_id)
    assert [_text_of(m) for m in task.history or []] == ["the question", "progress again", "done"]
