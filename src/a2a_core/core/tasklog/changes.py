"""What a writer asks the ledger to append (`Change`), and the commit it becomes on a head."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from a2a_core.core.tasklog.lifecycle import check_transition, is_terminal
from a2a_core.core.tasklog.list_keys import next_listing
from a2a_core.core.tasklog.records import (
    ArtifactUpdated,
    Commit,
    LogEvent,
    MessageAdded,
    RunLease,
    StatusChanged,
    new_write_id,
)
from a2a_core.domain import Message, TaskState, TaskStatus

_KEEP = RunLease(run_id="")  # sentinel: leave the head's run lease as it is


@dataclass(frozen=True)
class Change:
    """What a writer wants appended; sequence numbers are assigned by the ledger."""

    events: list[MessageAdded | StatusChanged | ArtifactUpdated]
    run: RunLease | None = field(default=_KEEP)


Decide = Callable[[Commit], Change | None]

# A new task's first commit holds its first message (seq 1) and the submitted status (seq 2).
CREATED_SEQ = 2
# The highest sequence number a log holds (10 digits in DynamoDB's sort key).
LAST_SEQ = 9_999_999_999


def status(state: TaskState, message: Message | None = None) -> StatusChanged:
    return StatusChanged(seq=0, status=TaskStatus(state=state, message=message))


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def next_commit(head: Commit, change: Change, now: float) -> Commit:
    """The commit ``change`` makes on ``head``: sequence numbers assigned, every status change
    checked against the state machine (raises `InvalidTransitionError`), timestamps filled in."""
    state = head.state
    events: list[LogEvent] = []
    for offset, event in enumerate(change.events):
        seq = head.next_seq + offset
        if isinstance(event, StatusChanged):
            check_transition(state, event.status.state)
            state = event.status.state
            if event.status.timestamp is None:
                event = event.model_copy(
                    update={"status": event.status.model_copy(update={"timestamp": now_iso()})}
                )
        elif is_terminal(state):
            check_transition(state, TaskState.working)  # raises: nothing is added after the end
        events.append(event.model_copy(update={"seq": seq}))
    return Commit(
        task_id=head.task_id,
        context_id=head.context_id,
        first_seq=head.next_seq,
        events=tuple(events),
        state=state,
        run=head.run if change.run is _KEEP else change.run,
        created_at=now,
        owner=head.owner,
        task_created_at=head.started_at,
        write_id=new_write_id(),
        listing=next_listing(
            head, state, head.next_seq, status_changed=any(isinstance(e, StatusChanged) for e in events)
        ),
    )
