"""Builders for the ListTasks tests: an engine over any store, tasks in chosen states, all pages."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from a2a_core.core.broker import InMemoryBroker
from a2a_core.core.caller import Caller
from a2a_core.core.config import EngineConfig
from a2a_core.core.engine import TaskEngine
from a2a_core.core.listing.page_tokens import PageTokens
from a2a_core.core.requests import ListTasksQuery, TaskPage
from a2a_core.core.tasklog.changes import Change, Decide
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.list_keys import ACTIVE, listed_class, parse_time
from a2a_core.core.tasklog.records import ArtifactUpdated, StatusChanged
from a2a_core.core.tasklog.store import IndexQuery, InMemoryTaskStore, LogEntry, OwnedTasks, TaskStore
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
    TaskState.failed: (TaskState.working, TaskState.failed),
}
# The four states most tests seed.
STATES = tuple(_PATHS)[:4]


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
    # The timestamp of its last status change.
    stamp: str
    # When it was created (the test clock).
    created_at: float

    @property
    def order(self) -> tuple[int, float, str]:
        """Where ListTasks without a context lists it (larger first): tasks in progress first,
        newest created first, then the others by status timestamp (ties by task id)."""
        if listed_class(self.state) == ACTIVE:
            return (1, self.created_at, self.task_id)
        return (0, parse_time(self.stamp) or 0.0, self.task_id)


def listing_order(tasks: list[Seeded]) -> list[str]:
    """The ids of ``tasks`` in the order ListTasks lists them without a context."""
    return [task.task_id for task in sorted(tasks, key=lambda task: task.order, reverse=True)]


def iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


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
    last status change carries ``stamp`` as its timestamp (default: the time it was created)."""
    clock.now += 1
    stamp = stamp or iso(clock.now)
    task_id = str(uuid.uuid4())
    message = Message(role=Role.user, parts=[TextPart(text="hi")], message_id=str(uuid.uuid4()))
    await engine.ledger.create(
        task_id=task_id, context_id=context_id, message=message, run_id="r", owner=caller.principal
    )
    path = _PATHS[state]
    if not path:  # submitted: the status the ledger stamped at creation
        head = await engine.ledger.load(task_id)
        stamp = head.status.timestamp or stamp
    for index, step in enumerate(path):
        last = index == len(path) - 1
        status = TaskStatus(state=step, timestamp=stamp if last else None)
        change = Change([StatusChanged(seq=0, status=status)])
        if artifact and last:
            output = Artifact(artifact_id="a", parts=[TextPart(text="out")])
            change = Change([ArtifactUpdated(seq=0, artifact=output), *change.events])
        await engine.ledger.write(task_id, always(change))
    return Seeded(task_id, context_id, state, caller.principal, stamp, clock.now)


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
    """The in-memory store, counting the task reads (one `latest` per task the ledger loads)
    and the index reads."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.index_reads = 0

    async def latest(self, task_id: str, *, limit: int, through: int | None = None) -> list[LogEntry]:
        self.reads += 1
        return await super().latest(task_id, limit=limit, through=through)

    async def list_owned(
        self, owner: str, query: IndexQuery, *, after: str | None = None, limit: int
    ) -> OwnedTasks:
        self.index_reads += 1
        return await super().list_owned(owner, query, after=after, limit=limit)


def always(change: Change) -> Decide:
    return lambda _: change
