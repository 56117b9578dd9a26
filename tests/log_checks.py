"""Checks of reads against the log: a reference fold written independently of the code under test,
a store wrapper that counts what the code reads, and random interleavings of a task's writers
and readers whose every read must be the reference fold of the log up to where it read."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Collection, Sequence

from hypothesis import strategies as st

from a2a_core.core.tasklog.changes import Change, Decide
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.records import (
    ArtifactUpdated,
    Commit,
    LogEvent,
    MessageAdded,
    RunLease,
    StatusChanged,
)
from a2a_core.core.tasklog.snapshots import RECENT_MESSAGES
from a2a_core.core.tasklog.store import IndexQuery, LogEntry, OwnedTasks, TaskStore
from a2a_core.core.tasklog.task_reads import TaskView
from a2a_core.domain import Artifact, Message, Role, Task, TaskState, TaskStatus, TextPart


def reference_task(commits: Sequence[Commit], history_length: int | None = None) -> Task:
    """The Task a client must see after ``commits`` (the whole log from its first commit): every
    commit folded but those of an attempt that a later attempt of the same turn took over."""
    last_attempt: dict[str, int] = {}
    for commit in commits:
        if commit.run is not None:
            last_attempt[commit.run.run_id] = max(last_attempt.get(commit.run.run_id, 0), commit.run.attempt)
    history: list[Message] = []
    artifacts: dict[str, Artifact] = {}
    status = TaskStatus(state=TaskState.submitted)
    for commit in commits:
        run = commit.run
        if run is not None and 1 <= run.attempt < last_attempt[run.run_id]:
            continue  # replaced by the turn's later attempt
        for event in commit.events:
            if isinstance(event, MessageAdded):
                history.append(event.message)
            elif isinstance(event, StatusChanged):
                status = event.status
                if event.status.message is not None:
                    history.append(event.status.message)
            elif isinstance(event, ArtifactUpdated):
                known = artifacts.get(event.artifact.artifact_id)
                if event.append and known is not None:
                    artifacts[known.artifact_id] = known.model_copy(
                        update={"parts": [*known.parts, *event.artifact.parts]}
                    )
                else:
                    artifacts[event.artifact.artifact_id] = event.artifact
    if history_length is not None:
        history = history[len(history) - min(history_length, len(history)) :]
    first = commits[0]
    return Task(
        id=first.task_id,
        context_id=first.context_id,
        status=status,
        history=history,
        artifacts=list(artifacts.values()) or None,
        metadata=first.metadata,
        generation=reference_generation(commits),
    )


def reference_generation(commits: Sequence[Commit]) -> int | None:
    """A2A 1.1's generation after ``commits`` (the whole log), counted event by event: every
    status and artifact update, superseded attempts' included (the generation never goes back);
    None for a log written before turns were counted (the server does not know it)."""
    head = commits[-1].run
    if head is None or head.turn < 1:
        return None
    return sum(not isinstance(event, MessageAdded) for commit in commits for event in commit.events)


class CountingStore(TaskStore):
    """Forwards to ``inner``; counts calls (``calls``) and the commits they return (``commits``)."""

    def __init__(self, inner: TaskStore) -> None:
        self.inner = inner
        self.calls: Counter[str] = Counter()
        self.commits = 0
        self.waiting = asyncio.Event()  # set once a follower waits for an append

    def reset(self) -> None:
        self.calls.clear()
        self.commits = 0

    def _count(self, name: str, returned: int) -> None:
        self.calls[name] += 1
        self.commits += returned

    async def append(self, commit: Commit, snapshot: bytes | None = None) -> None:
        await self.inner.append(commit, snapshot)

    async def head(self, task_id: str) -> Commit | None:
        head = await self.inner.head(task_id)
        self._count("head", 1)
        return head

    async def read(self, task_id: str, after_seq: int = 0) -> list[Commit]:
        commits = await self.inner.read(task_id, after_seq)
        self._count("read", len(commits))
        return commits

    async def latest(self, task_id: str, *, limit: int, through: int | None = None) -> list[LogEntry]:
        entries = await self.inner.latest(task_id, limit=limit, through=through)
        self._count("latest", len(entries))
        return entries

    async def entries(self, task_id: str, first: int, last: int, *, snapshots: bool = True) -> list[LogEntry]:
        entries = await self.inner.entries(task_id, first, last, snapshots=snapshots)
        self._count("entries", len(entries))
        return entries

    async def commits_at(self, task_id: str, first_seqs: Collection[int]) -> list[Commit]:
        commits = await self.inner.commits_at(task_id, first_seqs)
        self._count("commits_at", len(commits))
        return commits

    async def attach_snapshot(self, commit: Commit, snapshot: bytes) -> bool:
        self.calls["attach_snapshot"] += 1
        return await self.inner.attach_snapshot(commit, snapshot)

    async def list_owned(
        self, owner: str, query: IndexQuery, *, after: str | None = None, limit: int
    ) -> OwnedTasks:
        return await self.inner.list_owned(owner, query, after=after, limit=limit)

    async def unlist(self, task_id: str, seq: int) -> None:
        await self.inner.unlist(task_id, seq)

    async def owned(self, task_id: str, owner: str) -> bool:
        self.calls["owned"] += 1
        return await self.inner.owned(task_id, owner)

    async def wait_for_append(self, task_id: str, after_seq: int, timeout: float) -> None:
        self.calls["wait_for_append"] += 1
        self.waiting.set()
        await self.inner.wait_for_append(task_id, after_seq, timeout)


# --- random interleavings of writers and readers -------------------------------------------------

# One write: the events of one commit, after yielding to the event loop a few times; "" keeps the
# head's run, "takeover" starts the turn's next attempt, "turn" starts a new turn (a user message).
Step = tuple[int, list[LogEvent], str]


def _text(draw: st.DrawFn) -> str:
    return draw(st.text(alphabet="abcxyz ", min_size=1, max_size=12))


@st.composite
def steps(draw: st.DrawFn) -> Step:
    """The events of one commit of a task that stays ``working``: messages, status messages,
    artifact chunks (new, appended, replaced), alone or together; a takeover of the turn by its
    next attempt, or a new turn."""
    kind = draw(st.sampled_from(["message", "status", "chunk", "chunk+status", "takeover", "turn"]))
    yields = draw(st.integers(0, 3))
    if kind in ("message", "turn"):
        user = Message(role=Role.user, parts=[TextPart(text=_text(draw))], message_id=str(uuid.uuid4()))
        answer = _agent(_text(draw)) if draw(st.booleans()) else None  # two messages in one commit
        return yields, [MessageAdded(seq=0, message=user), _working(answer)], "turn" if kind == "turn" else ""
    if kind in ("status", "takeover"):
        status = _working(_agent(_text(draw)) if draw(st.booleans()) else None)
        return yields, [status], "takeover" if kind == "takeover" else ""
    update = ArtifactUpdated(
        seq=0,
        artifact=Artifact(artifact_id=draw(st.sampled_from("abc")), parts=[TextPart(text=_text(draw))]),
        append=draw(st.booleans()),
    )
    if kind == "chunk":
        return yields, [update], ""
    return yields, [update, _working(_agent(_text(draw)))], ""


@st.composite
def interleavings(draw: st.DrawFn) -> tuple[list[list[Step]], list[tuple[int, int | None]]]:
    """Writers (each a list of steps) and readers (yields before reading, historyLength)."""
    writers = draw(st.lists(st.lists(steps(), min_size=1, max_size=10), min_size=1, max_size=4))
    readers = draw(st.lists(st.tuples(st.integers(0, 40), st.none() | st.integers(0, 40)), max_size=8))
    return writers, readers


async def run_interleaving(
    ledger: TaskLedger, writers: list[list[Step]], readers: list[tuple[int, int | None]]
) -> None:
    """Run the writers and readers of one task concurrently; check that every read is the log's
    fold up to the head it was read at, and that the end state is the whole log's fold."""
    task_id = str(uuid.uuid4())
    first = Message(role=Role.user, parts=[TextPart(text="start")], message_id=str(uuid.uuid4()))
    await ledger.create(task_id=task_id, context_id="ctx", message=first, run_id="r")
    claim = RunLease(run_id="r", attempt=1, turn=1)
    await ledger.write(task_id, lambda _head: Change([_working(None)], run=claim))

    async def write(steps: list[Step]) -> None:
        for yields, events, run in steps:
            for _ in range(yields):
                await asyncio.sleep(0)
            await ledger.write(task_id, _with_run(list(events), run))

    async def read(yields: int, history_length: int | None) -> tuple[int | None, TaskView]:
        for _ in range(yields):
            await asyncio.sleep(0)
        return history_length, await ledger.view(task_id, history_length=history_length)

    jobs = [*(write(steps) for steps in writers), *(read(*reader) for reader in readers)]
    reads = [result for result in await asyncio.gather(*jobs) if result is not None]
    log = await ledger.store.read(task_id)
    for history_length, view in reads:
        prefix = [commit for commit in log if commit.first_seq <= view.head.first_seq]
        assert view.head == prefix[-1]
        assert view.task == reference_task(prefix, _clamped(ledger, history_length))
    for history_length in (None, 0, 1, RECENT_MESSAGES, RECENT_MESSAGES + 1, 2 * ledger.history_cap):
        task = await ledger.load(task_id, history_length=history_length)
        assert task == reference_task(log, _clamped(ledger, history_length))


def _clamped(ledger: TaskLedger, history_length: int | None) -> int:
    return ledger.history_cap if history_length is None else min(history_length, ledger.history_cap)


def _with_run(events: list[LogEvent], run: str) -> Decide:
    def decide(head: Commit) -> Change:
        assert head.run is not None
        # Every message the kit logs starts a turn, which the lease counts (as the engine does).
        turn = head.run.turn + any(isinstance(event, MessageAdded) for event in events)
        if not run:
            return Change(events, run=head.run.model_copy(update={"turn": turn}))
        if run == "takeover":
            return Change(
                events, run=head.run.model_copy(update={"attempt": head.run.attempt + 1, "turn": turn})
            )
        return Change(events, run=RunLease(run_id=str(uuid.uuid4()), turn=turn))

    return decide


def _agent(text: str) -> Message:
    return Message(role=Role.agent, parts=[TextPart(text=text)], message_id=str(uuid.uuid4()))


def _working(message: Message | None) -> StatusChanged:
    return StatusChanged(seq=0, status=TaskStatus(state=TaskState.working, message=message))
