"""When the worker has its operation's message delivered again: just after the lease, if it dies;
when a live lease ends, if the turn is busy; shortly, if the store failed."""

from __future__ import annotations

import asyncio

import pytest

from a2a_core.core.broker import InMemoryBroker, RunOperation
from a2a_core.core.engine import TaskEngine
from a2a_core.core.errors import StoreUnavailableError
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.turn.delivery import Delivery, hold
from a2a_core.core.turn.executor import FunctionAgent, TaskContext
from a2a_core.core.turn.worker import RunInProgressError, Worker
from store_faults import LOST, FlakyStore
from support import CALLER, send_params, user_message

pytestmark = pytest.mark.anyio


class RecordingDelivery(Delivery):
    def __init__(self) -> None:
        self.asked: list[float] = []
        self.changed = asyncio.Event()

    async def redeliver_after(self, seconds: float) -> None:
        self.asked.append(seconds)
        self.changed.set()


async def _started(ledger: TaskLedger) -> RunOperation:
    broker = InMemoryBroker()
    await TaskEngine(ledger, broker).send_message(send_params(user_message("hi")), CALLER)
    operation = await broker.receive(timeout=0)
    assert operation is not None
    return operation


async def test_a_claimed_message_comes_back_just_after_the_lease_and_a_busy_one_when_it_ends() -> None:
    now = [1000.0]
    ledger = TaskLedger(FlakyStore())
    operation = await _started(ledger)
    release = asyncio.Event()

    async def agent(ctx: TaskContext) -> str:
        await release.wait()
        return "done"

    worker = Worker(
        ledger, FunctionAgent(agent), lease_seconds=600, redelivery_margin=5, clock=lambda: now[0]
    )
    claimed = RecordingDelivery()
    running = asyncio.create_task(worker.handle(operation, delivery=claimed))
    await claimed.changed.wait()
    assert claimed.asked == [605]  # if this worker dies now, the turn resumes 5 s after its lease

    now[0] += 100
    duplicate = RecordingDelivery()
    with pytest.raises(RunInProgressError):
        await worker.handle(operation, delivery=duplicate)
    assert duplicate.asked == [505]  # not before the live lease ends

    release.set()
    await running
    assert claimed.asked == [605]  # done: the message is deleted, nothing more to time


async def test_a_store_failure_brings_the_message_back_shortly() -> None:
    store = FlakyStore()
    ledger = TaskLedger(store)
    operation = await _started(ledger)
    store.arm("latest", *[LOST] * 4)
    delivery = RecordingDelivery()
    worker = Worker(ledger, FunctionAgent(lambda ctx: _done()), store_retry_seconds=7)
    with pytest.raises(StoreUnavailableError):
        await worker.handle(operation, delivery=delivery)
    assert delivery.asked == [7]


async def _done() -> str:
    return "done"


async def test_a_run_outliving_its_lease_keeps_its_message_away_a_beat_at_a_time() -> None:
    now = [1000.0]
    delivery = RecordingDelivery()
    done = asyncio.Event()
    keeping = asyncio.create_task(
        hold(delivery, 1000.0, clock=lambda: now[0], margin=0.01, beat=30, done=done)
    )
    for expected in ([0.01], [0.01, 30.01]):
        while delivery.asked != expected:
            delivery.changed.clear()
            await asyncio.wait_for(delivery.changed.wait(), timeout=30)
    done.set()
    await asyncio.wait_for(keeping, timeout=30)
    assert delivery.asked == [0.01, 30.01]


async def test_a_turn_done_before_the_hold_delay_never_changes_its_message() -> None:
    """A short turn's message is deleted when the handler returns: timing it would be an SQS
    request for nothing."""
    ledger = TaskLedger(FlakyStore())
    operation = await _started(ledger)

    async def agent(ctx: TaskContext) -> str:
        return "done"

    worker = Worker(ledger, FunctionAgent(agent), lease_seconds=600, hold_after_seconds=5)
    delivery = RecordingDelivery()
    await worker.handle(operation, delivery=delivery)
    assert delivery.asked == []
    assert (await ledger.head(operation.task_id)).state.value == "completed"


async def test_a_turn_running_past_the_hold_delay_has_its_message_timed_to_the_lease() -> None:
    now = [1000.0]
    ledger = TaskLedger(FlakyStore())
    operation = await _started(ledger)
    release = asyncio.Event()

    async def agent(ctx: TaskContext) -> str:
        await release.wait()
        return "done"

    worker = Worker(
        ledger,
        FunctionAgent(agent),
        lease_seconds=600,
        redelivery_margin=5,
        clock=lambda: now[0],
        hold_after_seconds=0.05,
    )
    delivery = RecordingDelivery()
    running = asyncio.create_task(worker.handle(operation, delivery=delivery))
    await asyncio.sleep(0.01)
    assert delivery.asked == []  # still within the delay
    await asyncio.wait_for(delivery.changed.wait(), 5)
    assert delivery.asked == [605]
    release.set()
    await running
