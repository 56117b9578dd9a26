"""Runs one agent turn per `RunOperation`, safely under at-least-once delivery.

The worker first *claims* the turn with a conditional write (the task must still be on this
turn, and no live worker may hold it), so a duplicate delivery never runs the agent twice. A
claim records a lease; a delivery that finds an expired lease takes over from a worker that
died. Every write the agent makes is conditional on the task still being on this turn and not
canceled, so a cancel is never overwritten by a late completion.

A turn cannot hang a task forever: the agent runs under the invocation's deadline (minus a
safety margin to record the outcome), a turn claimed ``max_attempts`` times is failed rather than
run again, and `give_up` fails the turn of an operation that landed in the dead-letter queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable

from a2a_core.core.broker import RunOperation
from a2a_core.core.changes import Change, status
from a2a_core.core.context_store import ContextStore
from a2a_core.core.errors import (
    ERROR_CODE_KEY,
    InvalidAgentResponseError,
    TaskCanceledError,
    TaskNotFoundError,
)
from a2a_core.core.executor import HISTORY_WINDOW, AgentExecutor, TaskContext
from a2a_core.core.ledger import TaskLedger
from a2a_core.core.lifecycle import INTERRUPTED_STATES, is_terminal
from a2a_core.core.records import Commit, RunLease
from a2a_core.core.snapshots import messages_of
from a2a_core.core.task_reads import TaskView
from a2a_core.domain import Message, Role, TaskState, TextPart

logger = logging.getLogger(__name__)

INVALID_RESPONSE = "The agent returned an invalid response."
AGENT_FAILED = "The agent failed while working on this task."
OUT_OF_TIME = "The agent did not finish within the worker's time limit."
# How many times a turn is claimed before it is failed. A deployment's run queue moves an operation
# to its dead-letter queue after as many receives (its maxReceiveCount follows this).
MAX_ATTEMPTS = 3


class RunInProgressError(Exception):
    """Another worker holds a live lease on this turn: deliver the operation again later."""


class Worker:
    def __init__(
        self,
        ledger: TaskLedger,
        executor: AgentExecutor,
        *,
        lease_seconds: float = 900.0,
        safety_margin: float = 10.0,
        max_attempts: int = MAX_ATTEMPTS,
        clock: Callable[[], float] = time.time,
        context_store: ContextStore | None = None,
    ) -> None:
        self.ledger = ledger
        self.executor = executor
        self.context_store = context_store
        self.lease_seconds = lease_seconds
        self.safety_margin = safety_margin
        self.max_attempts = max_attempts
        self._clock = clock

    async def handle(self, operation: RunOperation, *, deadline: float | None = None) -> None:
        """Run the operation's turn if it is still due. Safe to call any number of times.

        ``deadline`` is the `time.monotonic()` value at which this process stops (a Lambda
        invocation's end); the agent is stopped `safety_margin` seconds before it and the task
        failed, so the outcome is recorded while the process can still write.

        Raises `RunInProgressError` when another worker is running the turn right now.
        """
        try:
            view = await self.ledger.view(operation.task_id, history_length=HISTORY_WINDOW)
        except TaskNotFoundError:
            logger.warning("run operation for unknown task %s dropped", operation.task_id)
            return
        claim = await self.ledger.write(
            operation.task_id, self._claim(operation), head=view.head, folding=view.folding
        )
        if claim is None:
            return
        if claim.state == TaskState.failed:
            logger.error("task %s failed: its %d attempts were used up", operation.task_id, self.max_attempts)
            return
        ctx = await self._context(operation, view, claim)
        await self._run(ctx, deadline)

    async def _context(self, operation: RunOperation, view: TaskView, claim: Commit) -> TaskContext:
        """The turn's context: the task as the claim left it, its recent messages (with the
        message that started the turn among them) in ``history``."""
        if claim.first_seq == view.head.next_seq:
            folding = view.folding
            folding.apply(claim)
            history = [*(view.task.history or []), *messages_of(claim)][-HISTORY_WINDOW:]
        else:  # the claim lost a race first: what we read is stale
            view = await self.ledger.view(operation.task_id, history_length=HISTORY_WINDOW)
            folding, history = view.folding, view.task.history or []
        if not any(message.role == Role.user for message in history):
            # Agent messages of an attempt that died filled the window: reach back to the user's.
            full = (await self.ledger.load(operation.task_id)).history or []
            users = [index for index, message in enumerate(full) if message.role == Role.user]
            history = full[min(users[-1], len(full) - HISTORY_WINDOW) :] if users else full
        known = folding if folding.upto == claim.last_seq else None
        return TaskContext(
            self.ledger,
            folding.task(history),
            operation.run_id,
            head=claim,
            context_store=self.context_store,
            folding=known,
        )

    async def give_up(self, operation: RunOperation, reason: str) -> bool:
        """Fail the operation's turn with ``reason`` if it is still pending; see `give_up`."""
        return await give_up(self.ledger, operation, reason, clock=self._clock)

    async def _run(self, ctx: TaskContext, deadline: float | None) -> None:
        budget = None if deadline is None else deadline - self.safety_margin - time.monotonic()
        time_limit = asyncio.timeout(budget)
        try:
            async with time_limit:
                result = await self.executor.execute(ctx)
            if not ctx.ended:
                await ctx.complete(result)
        except TaskCanceledError:
            logger.info("task %s was canceled during its run", ctx.task_id)
        except InvalidAgentResponseError as error:
            logger.error("agent gave an invalid response on task %s: %s", ctx.task_id, error)
            await self._fail(ctx, INVALID_RESPONSE, error_code=InvalidAgentResponseError.code)
        except Exception as error:
            # Only our own limit means "out of time"; a TimeoutError the agent raised is its failure.
            if isinstance(error, TimeoutError) and time_limit.expired():
                logger.error("agent ran out of time on task %s", ctx.task_id)
                await self._fail(ctx, OUT_OF_TIME)
            else:
                logger.exception("agent failed on task %s", ctx.task_id)
                await self._fail(ctx, AGENT_FAILED)

    def _claim(self, operation: RunOperation) -> Callable[[Commit], Change | None]:
        def decide(head: Commit) -> Change | None:
            run = _pending_run(head, operation)
            if run is None:
                return None
            now = self._clock()
            _check_no_live_lease(head, run, now)
            attempt = run.attempt + 1
            if attempt > self.max_attempts:
                # Every earlier claim ended with its worker dying mid-run; one more would too.
                reason = f"The agent could not finish this task after {run.attempt} attempts."
                return Change([status(TaskState.failed, _agent_message(head, reason))])
            lease = RunLease(run_id=run.run_id, lease_until=now + self.lease_seconds, attempt=attempt)
            return Change([status(TaskState.working)], run=lease)

        return decide

    async def _fail(self, ctx: TaskContext, reason: str, *, error_code: int | None = None) -> None:
        if ctx.ended:
            return
        metadata = None if error_code is None else {ERROR_CODE_KEY: error_code}
        with contextlib.suppress(TaskCanceledError):
            await ctx.fail(reason, metadata=metadata)


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
        run = _pending_run(head, operation)
        if run is None:
            return None
        _check_no_live_lease(head, run, clock())
        return Change([status(TaskState.failed, _agent_message(head, reason))])

    try:
        return await ledger.write(operation.task_id, decide) is not None
    except TaskNotFoundError:
        logger.warning("cannot give up on unknown task %s", operation.task_id)
        return False


def _pending_run(head: Commit, operation: RunOperation) -> RunLease | None:
    """The head's run if ``operation`` is the task's current, unfinished turn."""
    if is_terminal(head.state) or head.state in INTERRUPTED_STATES:
        return None
    if head.run is None or head.run.run_id != operation.run_id:
        return None  # a stale delivery of an earlier turn
    return head.run


def _check_no_live_lease(head: Commit, run: RunLease, now: float) -> None:
    if run.lease_until is not None and run.lease_until > now:
        raise RunInProgressError(f"task {head.task_id} is being run by another worker")


def _agent_message(head: Commit, text: str) -> Message:
    return Message(
        role=Role.agent,
        parts=[TextPart(text=text)],
        message_id=str(uuid.uuid4()),
        task_id=head.task_id,
        context_id=head.context_id,
    )
