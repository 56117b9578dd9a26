"""Task snapshots: the task folded up to a commit, stored with that commit so reads skip the log.

A snapshot holds what a client's Task needs: status, artifacts so far, the last
`RECENT_MESSAGES` messages, how many messages there are in all, and for each of the last
``history cap`` messages the commit it is in (its ``first_seq``, packed). A reader needs the newest
snapshot plus the commits after it; ``historyLength`` beyond the recent messages reads exactly the
commits holding the older ones.

When: a commit carries a snapshot when at least `SNAPSHOT_EVERY` commits were appended since the
last snapshot, and as many bytes as that snapshot's own size less `SMALL_SNAPSHOT` (`is_due`).
The second condition makes the rule geometric: a task streaming a large artifact rewrites it into
a snapshot only each time it has doubled, so all snapshots together weigh about twice the bytes
appended (O(1) per byte), never O(artifact) per chunk; a small snapshot is taken every few
commits. Each commit's `SnapshotMark`
carries the counts, so the writer decides from the head it already has, and a reader finds the
newest snapshot within the last few commits.

Snapshots are derived data: the log is the truth. A snapshot that cannot be read (corrupt,
missing, or of an unknown newer `format`) is ignored and the task is folded from the log, and the
reader stores a fresh one (`a2a_core.task_reads`). Stored snapshots are read by whichever version
runs next (rolling deploys): fields are only ever added, with defaults, and unknown fields are
ignored; an incompatible change bumps `SNAPSHOT_FORMAT`, which older readers skip.
"""

from __future__ import annotations

import base64
import binascii
import zlib
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from a2a_core.core.tasklog.records import (
    ArtifactUpdated,
    Commit,
    MessageAdded,
    SnapshotMark,
    StatusChanged,
    TurnRequest,
    generation_of,
)
from a2a_core.domain import Artifact, Message, Part, Task, TaskState, TaskStatus

SNAPSHOT_FORMAT = 1
# Messages a snapshot carries whole: enough for historyLength <= 10 in the read that finds it.
RECENT_MESSAGES = 10
# The fewest commits between two snapshots.
SNAPSHOT_EVERY = 4
# A snapshot up to this size is taken every `SNAPSHOT_EVERY` commits (it costs one read unit).
SMALL_SNAPSHOT = 4096


class TaskSnapshot(BaseModel):
    # As `records._Record`: written and read by different versions of the code.
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)

    format: int = SNAPSHOT_FORMAT
    task_id: str
    context_id: str
    upto: int  # the last sequence number folded in: the last_seq of the commit it is stored with
    status: TaskStatus
    artifacts: tuple[Artifact, ...] = ()
    metadata: dict[str, object] | None = None
    messages: tuple[Message, ...] = ()  # the most recent ones, oldest first
    message_count: int = 0
    # `pack_positions` of the first_seq of the commit holding each of the last messages.
    positions: str = ""
    # The turn folded last (`Folding`'s turn fields): what a takeover of its attempt discards.
    # Absent from snapshots written before retried turns replaced their earlier attempts' output.
    turn_run: str | None = None
    turn_attempt: int = 0
    turn_messages: int = 0
    turn_new: tuple[str, ...] = ()
    turn_changed: tuple[Artifact, ...] = ()
    # What the call that started the current turn said besides its message (`Folding.turn_request`).
    turn_request: TurnRequest | None = None


class Folding:
    """A task being folded from its log, commit by commit: the one fold every reader uses.

    ``messages`` are the latest messages in hand (all of them when folded from the first commit;
    a snapshot's recent ones plus those of later commits otherwise) and ``positions`` the commit
    of each of the latest ``len(positions) >= len(messages)`` messages, so older ones can be read.

    A retried turn replaces what its interrupted attempts wrote. Every commit names the turn and
    attempt it was written in (`Commit.run`); a commit of a later attempt of the turn folded last
    (a worker's takeover claim) first takes the task back to where the turn began: the artifacts
    that turn's attempts created are dropped, those they changed restored, and the messages they
    added (an attempt's progress messages; the turn's user message came before) removed. The
    log keeps everything; only the folded task, and every read built on it, leaves them out.
    """

    def __init__(self, task_id: str, context_id: str, metadata: dict[str, object] | None) -> None:
        self.task_id = task_id
        self.context_id = context_id
        self.metadata = metadata
        self.upto = 0
        # The task's generation as of the commit folded last (`records.generation_of`); set by
        # the reader for a snapshot, which is stored with that commit.
        self.generation = 0
        self.status = TaskStatus(state=TaskState.submitted)
        self.messages: list[Message] = []
        self.message_count = 0
        # Positions are decoded only when a read pages older messages or a snapshot is written:
        # a snapshot's stay packed (checked, not decoded) until then; later ones are appended.
        self._packed = b""
        self._positions: list[int] = []
        # Per artifact: the event that created (or last replaced) it, and every part since.
        self._artifacts: dict[str, tuple[Artifact, list[Part]]] = {}
        # The turn (run id) and attempt of the last commit folded; the message count when that
        # turn began; the artifacts its current attempt created, and those it changed as they
        # were before: what a takeover by a later attempt undoes.
        self.turn_run: str | None = None
        self.turn_attempt = 0
        self.turn_messages = 0
        self._turn_new: set[str] = set()
        self._turn_changed: dict[str, tuple[Artifact, list[Part]]] = {}
        # The request of the last message that started a turn (see `TurnRequest`).
        self.turn_request: TurnRequest | None = None

    @classmethod
    def begin(cls, first: Commit) -> Folding:
        """An empty fold of the task whose first commit is ``first`` (not applied yet)."""
        return cls(first.task_id, first.context_id, first.metadata)

    @classmethod
    def resume(cls, snapshot: TaskSnapshot) -> Folding:
        folding = cls(snapshot.task_id, snapshot.context_id, snapshot.metadata)
        folding.upto = snapshot.upto
        folding.status = snapshot.status
        folding.messages = list(snapshot.messages)
        folding.message_count = snapshot.message_count
        folding._packed = _inflate(snapshot.positions)
        folding._artifacts = {a.artifact_id: (a, list(a.parts)) for a in snapshot.artifacts}
        folding.turn_run, folding.turn_attempt = snapshot.turn_run, snapshot.turn_attempt
        folding.turn_messages = snapshot.turn_messages
        folding._turn_new = set(snapshot.turn_new)
        folding._turn_changed = {a.artifact_id: (a, list(a.parts)) for a in snapshot.turn_changed}
        folding.turn_request = snapshot.turn_request
        return folding

    def copy(self) -> Folding:
        folding = Folding(self.task_id, self.context_id, self.metadata)
        folding.upto, folding.status, folding.message_count = self.upto, self.status, self.message_count
        folding.generation = self.generation
        folding.messages, folding._packed, folding._positions = (
            list(self.messages),
            self._packed,
            list(self._positions),
        )
        folding._artifacts = {key: (first, list(parts)) for key, (first, parts) in self._artifacts.items()}
        folding.turn_run, folding.turn_attempt = self.turn_run, self.turn_attempt
        folding.turn_messages = self.turn_messages
        folding._turn_new = set(self._turn_new)
        folding._turn_changed = {
            key: (first, list(parts)) for key, (first, parts) in self._turn_changed.items()
        }
        folding.turn_request = self.turn_request
        return folding

    @property
    def positions(self) -> list[int]:
        if self._packed:
            self._positions = [*_varints(self._packed), *self._positions]
            self._packed = b""
        return self._positions

    def apply(self, commit: Commit) -> None:
        run = commit.run
        if run is not None and run.run_id == self.turn_run and run.attempt > self.turn_attempt >= 1:
            self._supersede()
        for event in commit.events:
            if isinstance(event, MessageAdded):
                self._message(event.message, commit.first_seq)
                self.turn_request = _request(commit, event)
            elif isinstance(event, StatusChanged):
                self.status = event.status
                if event.status.message is not None:
                    self._message(event.status.message, commit.first_seq)
            else:
                self._artifact(event)
        self.upto = commit.last_seq
        self.generation = generation_of(commit)
        if run is not None:
            if run.run_id != self.turn_run or run.attempt == 0:
                # A turn begins (or waits for its first claim): what its attempts write starts here.
                self.turn_messages = self.message_count
                self._turn_new, self._turn_changed = set(), {}
            self.turn_run, self.turn_attempt = run.run_id, run.attempt

    def snapshot(self, history_cap: int) -> TaskSnapshot:
        return TaskSnapshot(
            task_id=self.task_id,
            context_id=self.context_id,
            upto=self.upto,
            status=self.status,
            artifacts=tuple(self.artifacts()),
            metadata=self.metadata,
            messages=tuple(self.messages[-RECENT_MESSAGES:]),
            message_count=self.message_count,
            positions=pack_positions(self.positions[-history_cap:]),
            turn_run=self.turn_run,
            turn_attempt=self.turn_attempt,
            turn_messages=self.turn_messages,
            turn_new=tuple(self._turn_new),
            turn_changed=tuple(_whole(first, parts) for first, parts in self._turn_changed.values()),
            turn_request=self.turn_request,
        )

    def artifacts(self) -> list[Artifact]:
        return [_whole(first, parts) for first, parts in self._artifacts.values()]

    def task(self, history: list[Message]) -> Task:
        return Task(
            id=self.task_id,
            context_id=self.context_id,
            status=self.status,
            history=history,
            artifacts=self.artifacts() or None,
            metadata=self.metadata,
            generation=self.generation or None,
        )

    def _message(self, message: Message, first_seq: int) -> None:
        self.messages.append(message)
        self._positions.append(first_seq)
        self.message_count += 1

    def _artifact(self, event: ArtifactUpdated) -> None:
        artifact_id = event.artifact.artifact_id
        current = self._artifacts.get(artifact_id)
        if artifact_id not in self._turn_new and artifact_id not in self._turn_changed:
            if current is None:
                self._turn_new.add(artifact_id)
            else:
                self._turn_changed[artifact_id] = (current[0], list(current[1]))
        if current is None or not event.append:
            self._artifacts[event.artifact.artifact_id] = (event.artifact, list(event.artifact.parts))
        else:
            current[1].extend(event.artifact.parts)

    def _supersede(self) -> None:
        """Undo what the turn's attempts wrote so far: a later attempt of it takes over."""
        for artifact_id in self._turn_new:
            self._artifacts.pop(artifact_id, None)
        for artifact_id, (first, parts) in self._turn_changed.items():
            self._artifacts[artifact_id] = (first, parts)
        self._turn_new, self._turn_changed = set(), {}
        dropped = self.message_count - self.turn_messages
        if dropped > 0:
            # The turn's messages are the newest; the commits holding them hold no older one.
            positions = self.positions
            del positions[max(0, len(positions) - dropped) :]
            del self.messages[max(0, len(self.messages) - dropped) :]
            self.message_count = self.turn_messages


def _request(commit: Commit, event: MessageAdded) -> TurnRequest | None:
    """The request of the turn ``event`` starts; a task's first request's metadata is the task's."""
    request = event.request
    if commit.first_seq != 1 or commit.metadata is None:
        return request
    return (request or TurnRequest()).model_copy(update={"metadata": commit.metadata})


def _whole(first: Artifact, parts: list[Part]) -> Artifact:
    # Parts are only ever appended: an artifact with as many parts as it began with is unchanged.
    return first if len(parts) == len(first.parts) else first.model_copy(update={"parts": list(parts)})


def fold(commits: Sequence[Commit]) -> Folding:
    """The whole log (commits in order, from the first) folded."""
    folding = Folding.begin(commits[0])
    for commit in commits:
        folding.apply(commit)
    return folding


def messages_of(commit: Commit) -> list[Message]:
    """The messages a commit adds to its task's history, in order."""
    found: list[Message] = []
    for event in commit.events:
        if isinstance(event, MessageAdded):
            found.append(event.message)
        elif isinstance(event, StatusChanged) and event.status.message is not None:
            found.append(event.status.message)
    return found


def next_mark(head: Commit | None, size: int) -> SnapshotMark:
    """The mark of a commit of ``size`` bytes appended after ``head`` (None: it creates the task),
    before deciding whether it carries a snapshot."""
    if head is None:
        return SnapshotMark(commits=1, bytes=size)
    previous = head.snapshot_mark
    if previous is None:  # a head written before snapshots: take one now (if the log is long)
        return SnapshotMark(commits=head.last_seq + 1, bytes=size)
    return previous.model_copy(update={"commits": previous.commits + 1, "bytes": previous.bytes + size})


def is_due(mark: SnapshotMark, every: int = SNAPSHOT_EVERY) -> bool:
    return mark.commits >= every and mark.bytes + SMALL_SNAPSHOT >= (mark.size or 0)


def taken_mark(commit: Commit, snapshot_size: int) -> SnapshotMark:
    """The mark of ``commit`` once it carries a snapshot of ``snapshot_size`` bytes."""
    return SnapshotMark(at=commit.first_seq, commits=0, bytes=0, size=snapshot_size)


def pack_positions(positions: Sequence[int]) -> str:
    """Non-decreasing sequence numbers, compactly: varint deltas, deflated, base64 (about a byte
    per message for irregular logs, almost nothing for regular ones)."""
    if not positions:
        return ""
    packed = bytearray()
    previous = 0
    for position in positions:
        delta = position - previous
        if delta < 0:
            raise ValueError("positions must not decrease")
        previous = position
        while delta >= 0x80:
            packed.append(delta & 0x7F | 0x80)
            delta >>= 7
        packed.append(delta)
    return base64.b64encode(zlib.compress(bytes(packed), 9)).decode()


def unpack_positions(text: str) -> list[int]:
    """The inverse of `pack_positions`; raises `ValueError` on a damaged value."""
    return _varints(_inflate(text))


def _inflate(text: str) -> bytes:
    """The varints of a packed value, checked whole (at C speed) but not decoded."""
    if not text:
        return b""
    try:
        packed = zlib.decompress(base64.b64decode(text, validate=True))
    except (binascii.Error, zlib.error) as error:
        raise ValueError(f"damaged positions: {error}") from None
    if packed and packed[-1] & 0x80:
        raise ValueError("damaged positions: a truncated number")
    return packed


def _varints(packed: bytes) -> list[int]:
    positions: list[int] = []
    previous = delta = shift = 0
    for byte in packed:
        delta |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            previous += delta
            positions.append(previous)
            delta = shift = 0
    return positions
