"""The long-turn worker's core: the heartbeat lease (`leases.renew`, `Worker.with_heartbeat_lease`),
the run queue consumer's `HandOff` and `run_long_turn`, on the in-memory stack."""

from __future__ import annotations

import asyncio
import time

import pytest

from a2a_core.core.broker import RunOperation
from a2a_core.core.errors import StoreUnavailableError
from a2a_core.core.requests import TaskRef
from a2a_core.core.turn.delivery import Delivery
from a2a_core.core.turn.executor import FunctionAgent, TaskContext
from a2a_core.core.turn.leases import RunInProgressError, claim, renew
from a2a_core.core.turn.long_turns import (
    HandOff,
    LaunchFailedError,
    LongTurnLaunch,
    TurnHandedOffError,
    TurnLauncher,
    run_long_turn,
)
from a2a_core.core.turn.worker import Worker
from a2a_core.domain import TaskState
from clock import Clock
from support import CALLER, Stack, send_params, user_message

pytestmark = pytest.mark.anyio


async def _start(stack: Stack) -> RunOperation:
    await stack.engine.send_message(send_params(user_message("hi")), CALLER)
    operation = await stack.broker.receive(timeout=0)
    assert operation is not None
    return operation


async def _claimed(stack: Stack, operation: RunOperation, clock: Clock, lease: float = 60.0) -> None:
    await stack.ledger.write(
        operation.task_id, claim(operation, clock=clock, lease_seconds=lease, max_attempts=3)
    )


class Timings(Delivery):
    def __init__(self) -> None:
        self.times: list[float] = []
        self.acknowledged = 0

    async def redeliver_after(self, seconds: float) -> None:
        self.times.append(seconds)

    async def acknowledge(self) -> None:
        self.acknowledged += 1


class Launches(TurnLauncher):
    def __init__(self, *, fails: bool = False) -> None:
        self.launched: list[LongTurnLaunch] = []
        self.fails = fails

    async def launch(self, launch: LongTurnLaunch) -> None:
        if self.fails:
            raise RuntimeError("no capacity")
        self.launched.append(launch)


async def _quiet(ctx: TaskContext) -> str:
    return "done"


# --- the heartbeat --------------------------------------------------------------------------


async def test_a_heartbeat_pushes_the_lease_back_without_a_commit() -> None:
    stack, clock = Stack(_quiet), Clock()
    operation = await _start(stack)
    await _claimed(stack, operation, clock)
    head = await stack.ledger.head(operation.task_id)
    assert head.run is not None
    renewed = await renew(stack.ledger, head.run, operation.task_id, lease_until=clock() + 120)
    assert renewed is not None
    assert renewed.run is not None
    after = await stack.ledger.head(operation.task_id)
    assert after.run is not None
    assert after.run.lease_until == clock() + 120
    # Nothing a follower of the task sees: the same log, the same next sequence number.
    assert after.next_seq == head.next_seq
    assert len(await stack.ledger.commits_since(operation.task_id, 0)) == 2


async def test_a_dead_workers_lease_expires_and_the_next_claim_takes_over_a_live_one_is_kept() -> None:
    stack, clock = Stack(_quiet), Clock()
    operation = await _start(stack)
    await _claimed(stack, operation, clock, lease=60)
    head = await stack.ledger.head(operation.task_id)
    assert head.run is not None
    clock.now += 40
    await renew(stack.ledger, head.run, operation.task_id, lease_until=clock() + 60)
    clock.now += 40  # past the claim's lease, within the renewed one: the worker lives
    with pytest.raises(RunInProgressError):
        await _claimed(stack, operation, clock)
    clock.now += 21  # no heartbeat since: the worker died
    await _claimed(stack, operation, clock)
    taken = await stack.ledger.head(operation.task_id)
    assert taken.run is not None
    assert taken.run.attempt == 2


async def test_a_heartbeat_of_an_attempt_taken_over_renews_nothing() -> None:
    stack, clock = Stack(_quiet), Clock()
    operation = await _start(stack)
    await _claimed(stack, operation, clock, lease=60)
    old = (await stack.ledger.head(operation.task_id)).run
    assert old is not None
    clock.now += 61
    await _claimed(stack, operation, clock, lease=60)  # attempt 2
    assert await renew(stack.ledger, old, operation.task_id, lease_until=clock() + 600) is None
    head = await stack.ledger.head(operation.task_id)
    assert head.run is not None
    assert head.run.attempt == 2
    assert head.run.lease_until == clock() + 60


@pytest.mark.parametrize("ending", ["cancel", "complete"])
async def test_a_heartbeat_never_brings_an_ended_turn_back(ending: str) -> None:
    stack, clock = Stack(_quiet), Clock()
    operation = await _start(stack)
    if ending == "cancel":
        await _claimed(stack, operation, clock)
        await stack.engine.cancel_task(TaskRef(task_id=operation.task_id), CALLER)
    else:
        await Worker(stack.ledger, FunctionAgent(_quiet), clock=clock).handle(operation)
    lease = (await stack.ledger.head(operation.task_id)).run  # the attempt that ran, as it ended
    assert lease is not None
    assert lease.attempt == 1
    before = await stack.ledger.head(operation.task_id)
    assert await renew(stack.ledger, lease, operation.task_id, lease_until=clock() + 600) is None
    assert await stack.ledger.head(operation.task_id) == before


async def test_a_long_worker_keeps_its_short_lease_alive_while_the_agent_works() -> None:
    ran = asyncio.Event()

    async def slow(ctx: TaskContext) -> str:
        ran.set()
        for _ in range(6):
            await asyncio.sleep(0.5)
            await ctx.update("working")  # each commit carries the renewed lease
        return "done"

    stack = Stack(slow)
    operation = await _start(stack)
    long = Worker(stack.ledger, FunctionAgent(slow)).with_heartbeat_lease(1.2)
    delivery = Timings()
    run = asyncio.create_task(long.handle(operation, delivery=delivery))
    await ran.wait()
    await asyncio.sleep(2.0)  # past the claim's lease
    with pytest.raises(RunInProgressError):  # a duplicate delivery finds the lease renewed
        await Worker(stack.ledger, FunctionAgent(slow)).handle(operation)
    await run
    task = await stack.ledger.load(operation.task_id)
    assert task.status.state == TaskState.completed
    head = await stack.ledger.head(operation.task_id)
    assert head.run is not None
    assert head.run.attempt == 1
    # The message was timed to each renewed lease (and its margin): back a lease after a death.
    assert len(delivery.times) >= 3
    assert all(1.2 < seconds <= 1.2 + long.redelivery_margin for seconds in delivery.times)


async def test_a_long_worker_whose_turn_was_taken_over_stops_its_agent_and_writes_nothing_more() -> None:
    started, stopped = asyncio.Event(), asyncio.Event()

    async def quiet_for_long(ctx: TaskContext) -> str:
        started.set()
        try:
            await asyncio.sleep(30)
        finally:
            stopped.set()
        return "too late"

    stack = Stack(quiet_for_long)
    operation = await _start(stack)
    long = Worker(stack.ledger, FunctionAgent(quiet_for_long)).with_heartbeat_lease(0.6)
    run = asyncio.create_task(long.handle(operation))
    await started.wait()
    # Another worker took over (as if this one's heartbeats had stopped reaching the store).
    later = Clock(time.time() + 3600)
    await _claimed(stack, operation, later)
    await asyncio.wait_for(stopped.wait(), 10)
    with pytest.raises(RunInProgressError):  # the turn is the other attempt's: its message stays
        await run
    head = await stack.ledger.head(operation.task_id)
    assert head.state == TaskState.working
    assert head.run is not None
    assert head.run.attempt == 2


# --- the hand-off ---------------------------------------------------------------------------


def _hand_off(stack: Stack, launcher: Launches, clock: Clock) -> HandOff:
    return HandOff(
        stack.ledger, launcher, start_grace=120, retry_seconds=10, redelivery_margin=5, clock=clock
    )


async def test_a_due_turn_is_launched_and_its_message_left_for_the_start_up_grace() -> None:
    stack, clock, launcher, delivery = Stack(_quiet), Clock(), Launches(), Timings()
    operation = await _start(stack)
    launch = LongTurnLaunch(operation, source="arn:queue", receipt="r1")
    with pytest.raises(TurnHandedOffError):
        await _hand_off(stack, launcher, clock)(launch, delivery)
    assert launcher.launched == [launch]
    assert delivery.times == [120]
    # The consumer claims nothing: the launched worker does.
    assert (await stack.ledger.head(operation.task_id)).state == TaskState.submitted


async def test_a_duplicate_delivery_while_a_worker_holds_the_turn_launches_nothing() -> None:
    stack, clock, launcher, delivery = Stack(_quiet), Clock(), Launches(), Timings()
    operation = await _start(stack)
    await _claimed(stack, operation, clock, lease=60)
    clock.now += 20
    with pytest.raises(RunInProgressError):
        await _hand_off(stack, launcher, clock)(LongTurnLaunch(operation), delivery)
    assert launcher.launched == []
    assert delivery.times == [45]  # back as the lease ends, and the margin


async def test_a_delivery_after_the_worker_died_launches_the_next_attempt() -> None:
    stack, clock, launcher, delivery = Stack(_quiet), Clock(), Launches(), Timings()
    operation = await _start(stack)
    await _claimed(stack, operation, clock, lease=60)
    clock.now += 61
    with pytest.raises(TurnHandedOffError):
        await _hand_off(stack, launcher, clock)(LongTurnLaunch(operation), delivery)
    assert len(launcher.launched) == 1


async def test_a_delivery_of_a_turn_already_done_launches_nothing_and_lets_the_message_go() -> None:
    stack, clock, launcher, delivery = Stack(_quiet), Clock(), Launches(), Timings()
    operation = await _start(stack)
    await Worker(stack.ledger, FunctionAgent(_quiet), clock=clock).handle(operation)
    await _hand_off(stack, launcher, clock)(LongTurnLaunch(operation), delivery)
    await _hand_off(stack, launcher, clock)(
        LongTurnLaunch(RunOperation(task_id="nope", run_id="m")), delivery
    )
    assert launcher.launched == []
    assert delivery.times == []


async def test_a_launch_that_fails_leaves_the_task_alone_and_the_message_back_soon() -> None:
    stack, clock, delivery = Stack(_quiet), Clock(), Timings()
    operation = await _start(stack)
    before = await stack.ledger.head(operation.task_id)
    with pytest.raises(LaunchFailedError, match="no capacity"):
        await _hand_off(stack, Launches(fails=True), clock)(LongTurnLaunch(operation), delivery)
    assert delivery.times == [120, 10]
    assert await stack.ledger.head(operation.task_id) == before


async def test_a_turn_whose_attempts_are_used_up_is_failed_not_launched() -> None:
    stack, clock, launcher, delivery = Stack(_quiet), Clock(), Launches(), Timings()
    operation = await _start(stack)
    for _ in range(3):
        await _claimed(stack, operation, clock, lease=60)
        clock.now += 61
    await _hand_off(stack, launcher, clock)(LongTurnLaunch(operation), delivery)
    assert launcher.launched == []
    task = await stack.ledger.load(operation.task_id)
    assert task.status.state == TaskState.failed


# --- the long-turn worker's one turn --------------------------------------------------------


async def test_the_long_worker_deletes_its_message_once_the_turn_is_done_or_not_due() -> None:
    stack, delivery = Stack(_quiet), Timings()
    operation = await _start(stack)
    worker = Worker(stack.ledger, FunctionAgent(_quiet)).with_heartbeat_lease(60)
    await run_long_turn(worker, LongTurnLaunch(operation), delivery)
    assert (await stack.ledger.load(operation.task_id)).status.state == TaskState.completed
    await run_long_turn(worker, LongTurnLaunch(operation), delivery)  # a duplicate: nothing to run
    assert delivery.acknowledged == 2


async def test_the_long_worker_leaves_the_message_of_a_turn_another_live_attempt_holds() -> None:
    stack, delivery = Stack(_quiet), Timings()
    operation = await _start(stack)
    await _claimed(stack, operation, Clock(time.time()), lease=600)
    worker = Worker(stack.ledger, FunctionAgent(_quiet)).with_heartbeat_lease(60)
    await run_long_turn(worker, LongTurnLaunch(operation), delivery)
    assert delivery.acknowledged == 0


async def test_a_store_failure_keeps_the_message_for_the_next_try() -> None:
    stack, delivery = Stack(_quiet), Timings()
    operation = await _start(stack)

    async def broken(*args: object, **kwargs: object) -> None:
        raise StoreUnavailableError("down")

    worker = Worker(stack.ledger, FunctionAgent(_quiet)).with_heartbeat_lease(60)
    for read in ("head", "latest", "entries"):
        setattr(stack.store, read, broken)
    stack.ledger.store._sleep = lambda delay: asyncio.sleep(0)  # type: ignore[attr-defined]
    with pytest.raises(StoreUnavailableError):
        await run_long_turn(worker, LongTurnLaunch(operation), delivery)
    assert delivery.acknowledged == 0


# --- the time limit -------------------------------------------------------------------------


async def test_a_turn_past_max_turn_seconds_fails_naming_the_setting() -> None:
    async def slow(ctx: TaskContext) -> str:
        await asyncio.sleep(30)
        return "too late"

    stack = Stack(slow)
    operation = await _start(stack)
    worker = Worker(stack.ledger, FunctionAgent(slow), max_turn_seconds=0.3)
    await worker.handle(operation, deadline=time.monotonic() + 600)  # the invocation had time
    task = await stack.ledger.load(operation.task_id)
    assert task.status.state == TaskState.failed
    assert task.status.message is not None
    (part,) = task.status.message.parts
    assert getattr(part, "text", "") == (
        "The agent did not finish within max_turn_seconds = 0.3 s ([tool.a2a-serverless]); "
        "raise it to give turns longer."
    )


def test_a_limit_the_lambda_worker_set_says_what_would_give_turns_longer() -> None:
    from a2a_core.core.turn.worker import out_of_time

    assert "max_turn_seconds = 3 s (the default" in out_of_time(3, None)
    assert "needs the long-turn worker" in out_of_time(3, 60)
    assert out_of_time(30, 30).startswith("The agent did not finish within max_turn_seconds = 30 s")


async def test_a_long_worker_the_store_failed_gives_its_renewed_lease_back_for_the_next_try() -> None:
    failing = False

    async def works_then_store_fails(ctx: TaskContext) -> str:
        nonlocal failing
        await asyncio.sleep(0.5)  # a heartbeat renews the lease meanwhile
        failing = True  # the agent's next write finds the store unavailable, however often tried
        await ctx.update("still working")
        return "never"

    stack = Stack(works_then_store_fails)
    append = stack.store.append

    async def flaky_append(commit: object, snapshot: bytes | None = None) -> None:
        # Only the agent's writes fail (they run in its task, `supervision.run_agent`): the
        # worker's giving back of the lease, after the agent stopped, lands.
        running = asyncio.current_task()
        if failing and running is not None and running.get_name().startswith("agent "):
            raise StoreUnavailableError("throttled")
        await append(commit, snapshot)  # type: ignore[arg-type]

    stack.store.append = flaky_append  # type: ignore[method-assign]
    operation = await _start(stack)
    long = Worker(stack.ledger, FunctionAgent(works_then_store_fails)).with_heartbeat_lease(0.6)
    with pytest.raises(StoreUnavailableError):
        await long.handle(operation)
    head = await stack.ledger.head(operation.task_id)
    assert head.run is not None
    assert head.run.attempt == 1
    assert head.run.lease_until is None  # released: the next delivery takes over at once


async def test_a_store_that_cannot_be_read_brings_the_message_back_soon_and_launches_nothing() -> None:
    stack, clock, launcher, delivery = Stack(_quiet), Clock(), Launches(), Timings()
    operation = await _start(stack)

    async def broken(*args: object, **kwargs: object) -> None:
        raise StoreUnavailableError("down")

    stack.store.head = broken  # type: ignore[method-assign]
    stack.ledger.store._sleep = lambda delay: asyncio.sleep(0)  # type: ignore[attr-defined]
    with pytest.raises(StoreUnavailableError):
        await _hand_off(stack, launcher, clock)(LongTurnLaunch(operation), delivery)
    assert launcher.launched == []
    assert delivery.times == [10]
