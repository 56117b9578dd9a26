"""Who holds a task's turn: the run lease decisions the worker and the dead-letter consumer write.

A turn's `RunLease` names its run (the message that started it) and its attempt. A claim starts
the next attempt with a lease (while no live lease holds the turn, and only ``max_attempts``
times); a worker that cannot finish for a passing reason releases its lease, attempt kept, so the
next delivery takes over at once; `give_up` fails a turn nobody will run again; `renew` is the
heartbeat of a worker whose lease is short (the long-turn worker's), which pushes its lease back
in place, no commit written. Each is a
decision on the task's head (`a2a_core.core.tasklog.changes.Decide`) that the ledger appends, or retakes
on a fresher head after a lost race.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable

from a2a_core.core.broker import RunOperation
from a2a_core.core.errors import TaskNotFoundError
from a2a_core.core.tasklog.changes import Change, Decide, status
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.lifecycle import INTERRUPTED_STATES, is_terminal
from a2a_core.core.tasklog.records import Commit, RunLease
from a2a_core.core.tasklog.store import renewed
from a2a_core.domain import Message, Role, TaskState, TextPart

logger = logging.getLogger(__name__)


class RunInProgressError(Exception):
    """Another worker holds a live lease on this turn: deliver the operation again later, when
    the lease ends (``lease_until``, when known)."""

    def __init__(self, message: str, *, lease_until: float | None = None) -> None:
        super().__init__(message)
        self.lease_until = lease_until


def claim(
    operation: RunOperation, *, clock: Callable[[], float], lease_seconds: float, max_attempts: int
) -> Decide:
    """Claim ``operation``'s turn as its next attempt (or fail it, its attempts used up)."""

    def decide(head: Commit) -> Change | None:
        run = pending_run(head, operation.run_id)
        if run is None:
            return None
        now = clock()
        _check_no_live_lease(head, run, now)
        attempt = run.attempt + 1
        if attempt > max_attempts:
            # Every earlier claim ended with its worker dying mid-run; one more would too.
            reason = f"The agent could not finish this task after {run.attempt} attempts."
            return Change([status(TaskState.failed, _agent_message(head, reason))])
        lease = run.model_copy(update={"lease_until": now + lease_seconds, "attempt": attempt})
        return Change([status(TaskState.working)], run=lease)

    return decide


def release(lease: RunLease) -> Decide:
    """Give ``lease``'s attempt up (a store failure): its turn keeps its attempt count, without a
    lease. Nothing if the head is no longer that attempt's, or its turn ended (its ending landed)."""

    def decide(head: Commit) -> Change | None:
        run = head.run
        # The attempt, not the whole lease: a heartbeat may have pushed its end back since.
        ours = run is not None and (run.run_id, run.attempt) == (lease.run_id, lease.attempt)
        if not ours or is_terminal(head.state) or head.state in INTERRUPTED_STATES:
            return None
        return Change([status(TaskState.working)], run=lease.model_copy(update={"lease_until": None}))

    return decide


async def give_up(
    ledger: TaskLedger, operation: RunOperation, reason: str, *, clock: Callable[[], float] = time.time
) -> bool:
    """Fail the operation's turn with ``reason`` if it is still pending; True if this call wrote.

    Used when no worker will ever run the operation again (it reached the dead-letter queue).
    Does nothing for a terminal task, a task waiting for the client, a later turn or an unknown
    task, so it is idempotent. Raises `RunInProgressError` while a worker holds a live lease on
    the turn: that worker may still finish it.
    """

    def decide(head: Commit) -> Change | None:
        run = pending_run(head, operation.run_id)
        if run is None:
            return None
        _check_no_live_lease(head, run, clock())
        return Change([status(TaskState.failed, _agent_message(head, reason))])

    try:
        return await ledger.write(operation.task_id, decide) is not None
    except TaskNotFoundError:
        logger.warning("cannot give up on unknown task %s", operation.task_id)
        return False


async def renew(ledger: TaskLedger, lease: RunLease, task_id: str, *, lease_until: float) -> Commit | None:
    """Push ``lease``'s end back to ``lease_until`` (a heartbeat): the head, renewed; None when the
    turn is no longer this attempt's (taken over, ended, canceled), changing nothing.

    Fenced like every write of the attempt: it renews only a head whose run is ``lease``'s run and
    attempt, on a turn that has not ended, so a heartbeat never brings a canceled or finished turn
    back, nor extends another attempt's lease. It writes no commit (`TaskStore.renew_lease`): the
    task's log, its version and its followers see nothing. A commit appended between the head's
    read and the renewal (a cancel) is the new head, which the renewal does not touch.
    """
    head = await ledger.head(task_id)
    run = pending_run(head, lease.run_id)
    if run is None or run.attempt != lease.attempt:
        return None
    if not await ledger.store.renew_lease(head, lease_until):
        return None
    return renewed(head, lease_until)


def pending_run(head: Commit, run_id: str) -> RunLease | None:
    """The head's run if ``run_id`` names the task's current, unfinished turn."""
    if is_terminal(head.state) or head.state in INTERRUPTED_STATES:
        return None
    if head.run is None or head.run.run_id != run_id:
        return None  # a stale delivery of an earlier turn
    return head.run


def _check_no_live_lease(head: Commit, run: RunLease, now: float) -> None:
    if run.lease_until is not None and run.lease_until > now:
        raise RunInProgressError(
            f"task {head.task_id} is being run by another worker", lease_until=run.lease_until
        )


def _agent_message(head: Commit, text: str) -> Message:
    return Message(
        role=Role.agent,
        parts=[TextPart(text=text)],
        message_id=str(uuid.uuid4()),
        task_id=head.task_id,
        context_id=head.context_id,
    )
