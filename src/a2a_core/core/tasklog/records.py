"""What the task log stores: commits of events, and the task they fold into.

A task is an append-only log. Each write is one `Commit`: one or more events with consecutive
per-task sequence numbers, plus the task's state *after* the commit. Appending a commit is the
only way anything about a task changes, and store adapters accept a commit only at the next free
sequence number, so the log doubles as the optimistic-concurrency version: two writers that read
the same head race for the same key and exactly one wins. One commit is one storage item (one
DynamoDB write, no transaction), and no item grows with the task's history. Every few commits a
commit also carries a snapshot of the task folded up to it (`a2a_core.snapshots`): derived data,
stored beside the commit, never a part of it.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from a2a_core.core.tasklog.lifecycle import RETURN_STATES
from a2a_core.domain import (
    Artifact,
    Message,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)


class _Record(BaseModel):
    # Stored records are read by whichever version of the code runs next to the writer's (a deploy
    # updates functions one by one): fields a newer version added are ignored, not refused.
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)


class TurnRequest(_Record):
    """What the call that started a turn said besides its message, for the agent to read
    (`TaskContext.metadata`, `.extensions`; a hosted a2a-sdk executor's `RequestContext`): the
    request's ``metadata`` (on a task's first turn it is the task's metadata, stored there
    once), the extensions the caller asked for (``A2A-Extensions``) and the output modes it
    accepts. Stored with the turn's message, so whichever worker runs the turn reads the same."""

    metadata: dict[str, Any] | None = None
    extensions: tuple[str, ...] | None = None
    accepted_output_modes: tuple[str, ...] | None = None


class MessageAdded(_Record):
    """A user message entered the task (the first one, or a reply to input-required)."""

    kind: Literal["message"] = "message"
    seq: int
    message: Message
    # The call's other fields (None: it had none worth keeping).
    request: TurnRequest | None = None


class StatusChanged(_Record):
    kind: Literal["status"] = "status"
    seq: int
    status: TaskStatus
    # True on the status that ends a turn answered with a message and no task (`status.message`,
    # `TaskContext.reply`): SendMessage returns that Message instead of the Task. None otherwise.
    reply: bool | None = None


class ArtifactUpdated(_Record):
    kind: Literal["artifact"] = "artifact"
    seq: int
    artifact: Artifact
    append: bool = False
    last_chunk: bool | None = None


LogEvent = Annotated[MessageAdded | StatusChanged | ArtifactUpdated, Field(discriminator="kind")]


# The owner of tasks created without authentication (and of tasks written before owners were).
ANONYMOUS_OWNER = "anonymous"


class RunLease(_Record):
    """Which agent run owns the task's current turn.

    ``run_id`` is set when a turn is requested (task created or continued); ``lease_until`` is
    set when a worker claims it and tells other deliveries of the same operation whether that
    worker may still be alive. ``attempt`` counts the claims of the turn: each claim (a first run
    or a takeover from a worker whose lease expired) starts a new attempt, and ``(run_id,
    attempt)`` is the token every write of that attempt is conditional on (its fence): a worker
    whose attempt was taken over finds another attempt on the head and is refused.
    ``turn`` and ``resumed_from`` describe the turn: claims and releases change a lease by
    copying it, so they stay the same in each of its attempts.
    """

    run_id: str
    lease_until: float | None = None
    attempt: int = 0
    # The turn's number in its task (1: the message that created it), counted by the engine as
    # each message continues the task; 0 on leases written before turns were counted.
    turn: int = 0
    # The state the task waited in when this turn's message came (input-required or
    # auth-required); None on a task's first turn.
    resumed_from: TaskState | None = None


class SnapshotMark(_Record):
    """Where the task's newest snapshot is, as the writer of the commit carrying this mark knew it.

    Carried on every commit (like ``owner``), so the next writer knows from the head alone whether
    its commit is due to carry a snapshot (`a2a_core.snapshots.is_due`) and a reader knows which
    commit holds the newest one. None fields are left out of the stored JSON.
    """

    # The first_seq of the commit stored with the newest snapshot (None: no snapshot yet).
    at: int | None = None
    # Commits since that one (this one included), and their size in bytes.
    commits: int = 0
    bytes: int = 0
    # The size of that snapshot in bytes.
    size: int | None = None


class Commit(_Record):
    task_id: str
    context_id: str
    first_seq: int = Field(ge=1)
    events: tuple[LogEvent, ...] = Field(min_length=1)
    state: TaskState
    run: RunLease | None = None
    created_at: float
    metadata: dict[str, object] | None = None
    # The principal that created the task (`Caller.principal`); set by `TaskLedger.create` and
    # carried onto every later commit, so the head alone says whose task it is. None: a task
    # written before owners were recorded, treated as the anonymous caller's.
    owner: str | None = None
    # When the task was created (its first commit's created_at), carried onto every later commit
    # so a store can expire all of a task's items at the same moment (`started_at`). None on the
    # first commit, which is created_at itself, and on commits written before it was recorded.
    task_created_at: float | None = None
    # None on commits written before snapshots were (their successor takes one at once).
    snapshot_mark: SnapshotMark | None = None
    # Random per commit (`new_write_id`): tells a store that the commit already stored at this
    # sequence number is this very commit, appended by an earlier call whose answer was lost
    # (`TaskStore.append` is idempotent on it). None on commits written before it was recorded.
    write_id: str | None = None
    # The first_seq of the commit that carries the task's entry in the store's listing index
    # (`a2a_core.core.tasklog.list_keys`): this commit's own when it entered the class of its state,
    # else its predecessor's. None on commits written before tasks were listed by class.
    listing: int | None = None

    @property
    def started_at(self) -> float | None:
        """When the task was created, if this commit knows."""
        return self.created_at if self.first_seq == 1 else self.task_created_at

    @property
    def last_seq(self) -> int:
        return self.first_seq + len(self.events) - 1

    @property
    def next_seq(self) -> int:
        return self.last_seq + 1


def new_write_id() -> str:
    return secrets.token_urlsafe(12)


def superseded(commits: Sequence[Commit]) -> set[int]:
    """The first_seq of each of ``commits`` (consecutive, in log order) that an attempt of its turn
    wrote which a later one of ``commits`` took over: what a retried turn replaced (see
    `a2a_core.core.tasklog.snapshots.Folding`), for a reader catching up on the log to skip."""
    gone: set[int] = set()
    turn, highest = None, 0
    for commit in reversed(commits):  # a turn's commits are consecutive: no other turn's between
        run = commit.run
        if run is None:
            continue
        if run.run_id != turn:
            turn, highest = run.run_id, run.attempt
        elif 1 <= run.attempt < highest:
            gone.add(commit.first_seq)
    return gone


def generation_of(commit: Commit) -> int:
    """The task's generation once ``commit`` is applied (A2A 1.1): how many status and artifact
    updates the log holds up to it, its creation's submitted status being the first; 0 (the
    draft's "not implemented") for a task whose turns were not counted when it was written.

    Derived from what every commit already stores, so nothing is written for it and every reader
    of a commit (any instance, any path) finds the same number: each event takes the next
    sequence number, and every message the log holds started a turn, which `RunLease.turn`
    counts (1: the message that created the task). What is neither a message nor an update
    takes no sequence number (a commit renewing a lease with no event), so it does not count.
    A superseded attempt's updates still count: the generation only grows, and a reader that
    skips them sees the gap they left.
    """
    run = commit.run
    if run is None or run.turn < 1:
        return 0
    return commit.last_seq - run.turn


def is_update(event: LogEvent) -> bool:
    """Whether ``event`` is a mutation that A2A 1.1's generation counts."""
    return not isinstance(event, MessageAdded)


def event_generations(commit: Commit) -> list[int]:
    """The generation after each of ``commit``'s events (a message's: that of the update before
    it); all 0 where `generation_of` is."""
    generation = generation_of(commit)
    if not generation:
        return [0] * len(commit.events)
    found = []
    generation -= sum(map(is_update, commit.events))
    for event in commit.events:
        generation += is_update(event)
        found.append(generation)
    return found


StreamEvent = TaskStatusUpdateEvent | TaskArtifactUpdateEvent


def to_stream_event(
    event: LogEvent, *, task_id: str, context_id: str, generation: int = 0
) -> StreamEvent | None:
    """The protocol event a client sees for a log event (user messages are not streamed), with
    the generation after it (0: unknown)."""
    if isinstance(event, StatusChanged):
        return TaskStatusUpdateEvent(
            task_id=task_id,
            context_id=context_id,
            status=event.status,
            final=event.status.state in RETURN_STATES,
            generation=generation or None,
        )
    if isinstance(event, ArtifactUpdated):
        return TaskArtifactUpdateEvent(
            task_id=task_id,
            context_id=context_id,
            artifact=event.artifact,
            append=event.append or None,
            last_chunk=event.last_chunk,
            generation=generation or None,
        )
    return None


def reply_of(head: Commit, run_id: str) -> Message | None:
    """The message the turn ``run_id`` answered with instead of a task (`StatusChanged.reply`),
    if that turn ended so: it is then the head's last event, for nothing follows an ending."""
    last = head.events[-1]
    if isinstance(last, StatusChanged) and last.reply and head.run is not None and head.run.run_id == run_id:
        return last.status.message
    return None


def trim_history(task: Task, history_length: int | None) -> Task:
    """The task with only its last ``history_length`` messages (all when None); a copy."""
    if history_length is None or task.history is None:
        return task
    kept = task.history[-history_length:] if history_length else []
    return task.model_copy(update={"history": kept})
