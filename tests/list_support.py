"""Builders for the ListTasks tests: an engine over any store, tasks in chosen states, all pages."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace

from a2a_core.core.broker import InMemoryBroker
from a2a_core.core.caller import Caller
from a2a_core.core.changes import Change, Decide
from a2a_core.core.config import EngineConfig
from a2a_core.core.engine import TaskEngine
from a2a_core.core.ledger import TaskLedger
from a2a_core.core.page_tokens import PageTokens
from a2a_core.core.records import ArtifactUpdated, Commit, StatusChanged
from a2a_core.core.requests import ListTasksQuery, TaskPage
from a2a_core.core.store import InMemoryTaskStore, TaskStore
from a2a_core.domain import Artifact, Message, Role, TaskState, TaskStatus, TextPart
from clock import Clock

SECRET = b"0123456789abcdef-test-secret"
ALICE, BOB = Caller(principal="api_key:alice"), Caller(principal="api_key:bob")

# The states a seeded task may end in, each with the status changes that lead there.
_PATHS: dict[TaskState, tuple[TaskState, ...]] = {
    TaskState.submitted: (),
    TaskState.working: (TaskState.working,),
    TaskState.completed: (TaskState.working, TaskState.completed),
    TaskState.input_required: (TaskState.working, TaskState.input_required),
}
STATES = tuple(_PATHS)


def make_engine(store: TaskStore, clock: Clock, config: EngineConfig | None = None) -> TaskEngine:
    """An engine whose task creation times and token expiry follow ``clock``."""
    ledger = TaskLedger(store, clock=clock)
    return TaskEngine(ledger, InMemoryBroker(), config, page_tokens=PageTokens(SECRET, clock=clock))


@dataclass(frozen=True)
class Seeded:
    task_id: str
    context_id: str
    state: TaskState
    owner: str
    # The timestamp of its last status change, when the test chose it.
    stamp: str | None = None


async def seed(
    engine: TaskEngine,
    clock: Clock,
    caller: Caller,
    state: TaskState,
    *,
    context_id: str = "ctx",
    stamp: str | None = None,
    artifact: bool = False,
) -> Seeded:
    """A task of ``caller`` created one second after the previous one, brought to ``state``; its
    last status change carries ``stamp`` as its timestamp when given."""
    clock.now += 1
    task_id = str(uuid.uuid4())
    message = Message(role=Role.user, parts=[TextPart(text="hi")], message_id=str(uuid.uuid4()))
    await engine.ledger.create(
        task_id=task_id, context_id=context_id, message=message, run_id="r", owner=caller.principal
    )
    path = _PATHS[state]
    for index, step in enumerate(path):
        last = index == len(path) - 1
        status = TaskStatus(state=step, timestamp=stamp if last else None)
        change = Change([StatusChanged(seq=0, status=status)])
        if artifact and last:
            output = Artifact(artifact_id="a", parts=[TextPart(text="out")])
            change = Change([ArtifactUpdated(seq=0, artifact=output), *change.events])
        await engine.ledger.write(task_id, always(change))
    return Seeded(task_id, context_id, state, caller.principal, stamp if path else None)


async def list_all(engine: TaskEngine, caller: Caller, query: ListTasksQuery) -> list[TaskPage]:
    """Every page of ``query``, following the tokens."""
    pages = [await engine.list_tasks(query, caller)]
    while pages[-1].next_page_token:
        assert len(pages) < 1000, "the listing never ended"
        pages.append(await engine.list_tasks(replace(query, page_token=pages[-1].next_page_token), caller))
    return pages


def ids(pages: list[TaskPage]) -> list[str]:
    return [task.id for page in pages for task in page.tasks]


class CountingStore(InMemoryTaskStore):
    """The in-memory store, counting the task logs read (one per task the ledger loads)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def read(self, task_id: str, after_seq: int = 0) -> list[Commit]:
        self.reads += 1
        return await super().read(task_id, after_seq)


def always(change: Change) -> Decide:
    return lambda _: change
