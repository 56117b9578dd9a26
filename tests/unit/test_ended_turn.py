"""A time limit never overwrites a turn that already ended (issue 30, found by outside fault
injection): the agent's ``ctx.ask`` lands in the store, but its answer comes back after the
agent's budget (a throttled store's retries); the supervisor stops the agent, and the worker,
not knowing the question landed, must not append ``failed`` after ``input-required``: the client
that saw the question answers it and the task goes on."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import pytest

from a2a_core.compose import build_server
from a2a_core.core.broker import InMemoryBroker
from a2a_core.core.tasklog.records import Commit
from a2a_core.core.turn.context_store import InMemoryContextStore
from a2a_core.core.turn.executor import FunctionAgent, TaskContext
from a2a_core.core.turn.worker import Worker
from a2a_core.domain import TaskState, TextPart
from a2a_core.settings import Settings
from store_faults import FlakyStore
from support import CALLER, send_params, user_message

pytestmark = pytest.mark.anyio

BUDGET = 0.2  # the agent's time in this turn
SAFETY_MARGIN = 1.0


@dataclass
class SlowAnswers(FlakyStore):
    """Appends land at once, but the answer to the first ``input-required`` commit comes back
    ``delay`` seconds later (as when a throttled call is retried after the write went through)."""

    delay: float = 1.0
    delayed: int = 0

    async def append(self, commit: Commit, snapshot: bytes | None = None) -> None:
        await self.inner.append(commit, snapshot)
        if commit.state == TaskState.input_required and not self.delayed:
            self.delayed += 1
            await asyncio.sleep(self.delay)


async def asks_then_completes(ctx: TaskContext) -> str | None:
    if ctx.turn == 1:
        await ctx.ask("Short or detailed?")
        return None
    return f"The {ctx.text} version."


async def test_a_question_that_landed_after_the_budget_is_not_followed_by_failed() -> None:
    store = SlowAnswers()
    broker = InMemoryBroker()
    service = build_server(
        Settings(allow_unauthenticated=True), store=store, broker=broker, context_store=InMemoryContextStore()
    )
    worker = Worker(service.ledger, FunctionAgent(asks_then_completes), safety_margin=SAFETY_MARGIN)
    task = await service.engine.send_message(send_params(user_message("write it")), CALLER)
    operation = await broker.receive(timeout=0)
    assert operation is not None

    await worker.handle(operation, deadline=time.monotonic() + SAFETY_MARGIN + BUDGET)

    assert store.delayed == 1, "the question's answer was not delayed past the budget"
    asked = await service.ledger.load(operation.task_id)
    assert asked.status.state == TaskState.input_required, asked.status
    assert asked.status.message is not None
    assert asked.status.message.parts == [TextPart(text="Short or detailed?")]
    # The client that saw the question answers it, and the task goes on.
    reply = user_message("short", task_id=operation.task_id, context_id=asked.context_id)
    await service.engine.send_message(send_params(reply), CALLER)
    follow_up = await broker.receive(timeout=0)
    assert follow_up is not None
    await worker.handle(follow_up)
    done = await service.ledger.load(operation.task_id)
    assert done.status.state == TaskState.completed
    assert done.status.message is not None
    assert done.status.message.parts == [TextPart(text="The short version.")]
    assert task.id == operation.task_id


async def test_on_the_long_turn_worker_too_its_max_turn_seconds_never_overwrites_the_question() -> None:
    from a2a_core.core.turn.delivery import NO_DELIVERY
    from a2a_core.core.turn.long_turns import LongTurnLaunch, run_long_turn

    store = SlowAnswers()
    broker = InMemoryBroker()
    service = build_server(
        Settings(allow_unauthenticated=True), store=store, broker=broker, context_store=InMemoryContextStore()
    )
    # No invocation deadline: the budget is the project's max_turn_seconds; a heartbeat lease.
    worker = Worker(
        service.ledger, FunctionAgent(asks_then_completes), max_turn_seconds=BUDGET
    ).with_heartbeat_lease(3.0)
    await service.engine.send_message(send_params(user_message("write it")), CALLER)
    operation = await broker.receive(timeout=0)
    assert operation is not None

    await run_long_turn(worker, LongTurnLaunch(operation), NO_DELIVERY)

    assert store.delayed == 1, "the question's answer was not delayed past the budget"
    asked = await service.ledger.load(operation.task_id)
    assert asked.status.state == TaskState.input_required, asked.status
