"""What the worker does when the task store fails: a write whose outcome is unknown is found out,
a turn whose ending landed stays ended, and a store error is retried, never a failed task."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from a2a_core.core.broker import InMemoryBroker, RunOperation
from a2a_core.core.engine import TaskEngine
from a2a_core.core.errors import StoreUnavailableError
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.records import Commit, StatusChanged
from a2a_core.core.turn.executor import AgentFunction, FunctionAgent, TaskContext
from a2a_core.core.turn.worker import Worker
from a2a_core.domain import Task, TaskState, TextPart
from store_faults import LOST, FlakyStore
from support import CALLER, send_params, user_message

pytestmark = pytest.mark.anyio

# Enough failures in a row to outlast the ledger's own tries of one call.
OUTLASTING = 4


@dataclass
class Flaky:
    store: FlakyStore
    ledger: TaskLedger
    engine: TaskEngine
    broker: InMemoryBroker

    @classmethod
    def build(cls) -> Flaky:
        store = FlakyStore()
        ledger = TaskLedger(store)
        broker = InMemoryBroker()
        return cls(store, ledger, TaskEngine(ledger, broker), broker)

    async def start(self, text: str = "question", task_id: str | None = None) -> RunOperation:
        await self.engine.send_message(send_params(user_message(text, task_id=task_id)), CALLER)
        operation = await self.broker.receive(timeout=0)
        assert operation is not None
        return operation

    def worker(self, agent: AgentFunction) -> Worker:
        return Worker(self.ledger, FunctionAgent(agent))

    async def states(self, task_id: str) -> list[TaskState]:
        commits = await self.store.inner.read(task_id)
        return [e.status.state for c in commits for e in c.events if isinstance(e, StatusChanged)]


def _ending(state: TaskState) -> Callable[[Commit | None], bool]:
    return lambda commit: commit is not None and commit.state == state


def progress(commit: Commit | None) -> bool:
    """A commit of a progress message (``ctx.update`` with content)."""
    return commit is not None and any(
        isinstance(e, StatusChanged) and e.status.state == TaskState.working and e.status.message is not None
        for e in commit.events
    )


def _texts(task: Task) -> list[str]:
    return [p.text for m in task.history or [] for p in m.parts if isinstance(p, TextPart)]


async def _asks(ctx: TaskContext) -> None:
    await ctx.ask("which one?")


async def test_an_ending_write_that_landed_before_its_error_ends_the_turn() -> None:
    flaky = Flaky.build()
    operation = await flaky.start()
    flaky.store.arm("append", "landed", when=_ending(TaskState.input_required))

    await flaky.worker(_asks).handle(operation)

    assert flaky.store.failed == ["append:landed"]
    assert await flaky.states(operation.task_id) == [
        TaskState.submitted,
        TaskState.working,
        TaskState.input_required,
    ]
    task = await flaky.ledger.load(operation.task_id)
    assert _texts(task) == ["question", "which one?"]
    # The client's answer is taken: the task waits for it, as the client was told.
    await flaky.start("the red one", task_id=operation.task_id)


async def test_an_ending_write_whose_outcome_stays_unknown_is_never_failed_after_the_fact() -> None:
    flaky = Flaky.build()
    operation = await flaky.start()
    flaky.store.arm("append", "landed", *[LOST] * OUTLASTING, when=_ending(TaskState.input_required))
    worker = flaky.worker(_asks)

    with pytest.raises(StoreUnavailableError):  # the record goes back to the queue
        await worker.handle(operation)
    await worker.handle(operation)  # its redelivery finds the turn ended

    assert await flaky.states(operation.task_id) == [
        TaskState.submitted,
        TaskState.working,
        TaskState.input_required,
    ]
    await flaky.start("the red one", task_id=operation.task_id)


async def test_a_store_error_that_outlasts_the_retries_runs_the_turn_again_instead_of_failing_it() -> None:
    flaky = Flaky.build()
    operation = await flaky.start()
    runs: list[int] = []

    async def agent(ctx: TaskContext) -> str:
        runs.append(len(runs) + 1)
        await ctx.artifact(f"draft of run {len(runs)}", name="draft")
        await ctx.update("thinking")
        return "the answer"

    flaky.store.arm("append", *[LOST] * OUTLASTING, when=progress)
    worker = flaky.worker(agent)
    with pytest.raises(StoreUnavailableError):
        await worker.handle(operation)
    assert (await flaky.ledger.head(operation.task_id)).state == TaskState.working
    # The failed attempt gave its lease back: the next delivery takes over at once.
    await worker.handle(operation)

    assert runs == [1, 2]
    task = await flaky.ledger.load(operation.task_id)
    assert task.status.state == TaskState.completed
    assert TaskState.failed not in await flaky.states(operation.task_id)
    assert _texts(task) == ["question", "thinking", "the answer"]
    assert [[p.text for p in a.parts if isinstance(p, TextPart)] for a in task.artifacts or []] == [
        ["draft of run 2"]
    ]


@pytest.mark.parametrize("handling", ["wraps it", "swallows it"])
async def test_a_store_error_reaches_the_worker_whatever_the_agent_does_with_it(handling: str) -> None:
    flaky = Flaky.build()
    operation = await flaky.start()
    flaky.store.arm("append", *[LOST] * OUTLASTING, when=progress)
    ran: list[str] = []

    async def careless(ctx: TaskContext) -> str:
        ran.append("ran")
        try:
            await ctx.update("thinking")
        except Exception as error:
            if handling == "wraps it":
                raise RuntimeError("my tool failed") from error
        return "an answer built on nothing"

    with pytest.raises(StoreUnavailableError):
        await flaky.worker(careless).handle(operation)

    assert ran == ["ran"]
    assert flaky.store.failed == ["append:lost"] * OUTLASTING
    states = await flaky.states(operation.task_id)
    assert TaskState.failed not in states
    assert TaskState.completed not in states


async def test_a_read_the_store_fails_once_is_tried_again() -> None:
    flaky = Flaky.build()
    operation = await flaky.start()
    flaky.store.arm("latest", "lost", "lost")

    await flaky.worker(_asks).handle(operation)

    assert flaky.store.failed == ["latest:lost", "latest:lost"]
    assert (await flaky.ledger.head(operation.task_id)).state == TaskState.input_required
