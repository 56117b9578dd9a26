"""Runs one agent turn per `RunOperation`, safely under at-least-once delivery.

The worker first *claims* the turn with a conditional write (the task must still be on this
turn, and no live worker may hold it), so a duplicate delivery never runs the agent twice. A
claim records a lease and starts a new attempt of the turn; a delivery that finds an expired
lease takes over from a worker that died, as the next attempt. Every write the agent makes is
conditional on the task still being on this turn *and attempt* and not canceled, so a cancel is
never overwritten by a late completion, and a worker whose turn was taken over (its lease ran out
while it still ran) is refused and stopped: one attempt's output, never two. What an attempt that
did not finish wrote is replaced, in every read, by what the next attempt writes (`snapshots`).

Only the agent's own failures fail a task. The agent runs in a task of its own (`supervision`),
so anything it raises, `asyncio.CancelledError` included, fails that task and nothing else; a
store that stays unavailable (past the store's own retries) leaves the turn to be tried again by
a later delivery, which finds whatever of this attempt's writes landed.

A turn cannot hang a task forever: the agent runs for at most ``max_turn_seconds`` (the project's
setting) and under the invocation's deadline (minus a safety margin to record the outcome), a turn
claimed ``max_attempts`` times is failed rather than run again, and `give_up` fails the turn of an
operation that landed in the dead-letter queue. A worker that dies mid-turn has its operation
delivered again just after its lease ends (`Delivery`).
With ``lease_heartbeat`` (the long-turn worker's) the lease is short and renewed while the agent
works (`leases.renew`), so a worker that dies is taken over shortly after its last heartbeat.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import time
from collections.abc import Callable

from a2a_core.core.broker import RunOperation
from a2a_core.core.errors import (
    ERROR_CODE_KEY,
    InvalidAgentResponseError,
    StoreUnavailableError,
    TaskCanceledError,
    TaskNotFoundError,
    TurnLostError,
)
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.records import Commit
from a2a_core.core.tasklog.snapshots import messages_of
from a2a_core.core.tasklog.task_reads import TaskView
from a2a_core.core.turn.context import HISTORY_WINDOW, TaskContext
from a2a_core.core.turn.context_store import ContextStore
from a2a_core.core.turn.delivery import NO_DELIVERY, Delivery, hold
from a2a_core.core.turn.executor import Agent
from a2a_core.core.turn.leases import RunInProgressError, claim, give_up, pending_run, release, renew
from a2a_core.core.turn.session_scope import entered
from a2a_core.core.turn.session_store import SessionStore
from a2a_core.core.turn.supervision import CANCEL_POLL_SECONDS, GRACE_SECONDS, AgentOutcome, run_agent
from a2a_core.domain import TaskState

logger = logging.getLogger(__name__)

# RunInProgressError and give_up live with the other lease decisions; they are the worker's API too.
__all__ = [
    "AGENT_FAILED",
    "INVALID_RESPONSE",
    "MAX_ATTEMPTS",
    "RunInProgressError",
    "Worker",
    "give_up",
    "out_of_time",
]

INVALID_RESPONSE = "The agent returned an invalid response."
AGENT_FAILED = "The agent failed while working on this task."
SETTING = "max_turn_seconds"


def out_of_time(limit: float, max_turn_seconds: float | None) -> str:
    """Why a turn that ran out of time failed, naming the setting that gives turns longer:
    ``limit`` is the time the turn had, ``max_turn_seconds`` the project's setting (None: unset)."""
    if max_turn_seconds is None:
        return (
            f"The agent did not finish within {SETTING} = {limit:g} s (the default: the Lambda "
            f"worker's time limit); set {SETTING} in [tool.a2a-serverless] to give turns longer."
        )
    if max_turn_seconds <= limit:
        return (
            f"The agent did not finish within {SETTING} = {max_turn_seconds:g} s "
            "([tool.a2a-serverless]); raise it to give turns longer."
        )
    return (
        f"The agent did not finish within the Lambda worker's {limit:g} s: {SETTING} = "
        f"{max_turn_seconds:g} s ([tool.a2a-serverless]) needs the long-turn worker, which runs "
        "no turn here."
    )


# How many times a turn is claimed before it is failed. A deployment's run queue moves an operation
# to its dead-letter queue after as many receives (its maxReceiveCount follows this).
MAX_ATTEMPTS = 3


class Worker:
    def __init__(
        self,
        ledger: TaskLedger,
        agent: Agent,
        *,
        lease_seconds: float = 900.0,
        safety_margin: float = 10.0,
        max_attempts: int = MAX_ATTEMPTS,
        clock: Callable[[], float] = time.time,
        context_store: ContextStore | None = None,
        session_store: SessionStore | None = None,
        redelivery_margin: float = 5.0,
        heartbeat_seconds: float = 60.0,
        store_retry_seconds: float = 10.0,
        stop_grace: float = GRACE_SECONDS,
        cancel_poll_seconds: float = CANCEL_POLL_SECONDS,
        hold_after_seconds: float = 0.0,
        max_turn_seconds: float | None = None,
        lease_heartbeat: bool = False,
    ) -> None:
        """``redelivery_margin``: how long after a lease ends its operation comes back, if its
        worker died; ``heartbeat_seconds``: how often a run outliving its lease pushes that back;
        ``store_retry_seconds``: when a turn the store failed is tried again; ``stop_grace``: how
        long an agent whose run was interrupted may take to return before it is cancelled;
        ``cancel_poll_seconds``: the longest the agent of a canceled task runs on unnoticed;
        ``hold_after_seconds``: how long a turn runs before its message is timed to its lease
        (`a2a_core.core.turn.delivery.hold`'s ``after``); ``max_turn_seconds``: the longest a
        turn may run (None: as long as the invocation lasts); ``lease_heartbeat``: renew the
        lease every third of ``lease_seconds`` while the agent works (the long-turn worker, whose
        lease is short so that a dead worker's turn is taken over soon)."""
        self.ledger = ledger
        self.agent = agent
        self.context_store = context_store
        self.session_store = session_store
        self.lease_seconds = lease_seconds
        self.safety_margin = safety_margin
        self.max_attempts = max_attempts
        self.redelivery_margin = redelivery_margin
        self.heartbeat_seconds = heartbeat_seconds
        self.store_retry_seconds = store_retry_seconds
        self.stop_grace = stop_grace
        self.cancel_poll_seconds = cancel_poll_seconds
        self.hold_after_seconds = hold_after_seconds
        self.max_turn_seconds = max_turn_seconds
        self.lease_heartbeat = lease_heartbeat
        self._clock = clock

    async def handle(
        self, operation: RunOperation, *, deadline: float | None = None, delivery: Delivery = NO_DELIVERY
    ) -> None:
        """Run the operation's turn if it is still due. Safe to call any number of times.

        ``deadline`` is the `time.monotonic()` value at which this process stops (a Lambda
        invocation's end); the agent is stopped `safety_margin` seconds before it and the task
        failed, so the outcome is recorded while the process can still write. ``delivery`` is the
        queue message that brought the operation: it is timed to come back when the turn needs
        another try (see `Delivery`).

        Raises `RunInProgressError` when another worker is running the turn right now, and
        `StoreUnavailableError` when the store failed: the turn is left for a later delivery.
        """
        try:
            ctx = await self._claim_turn(operation)
        except RunInProgressError as busy:
            if busy.lease_until is not None:
                await delivery.redeliver_after(busy.lease_until - self._clock() + self.redelivery_margin)
            raise
        except StoreUnavailableError:
            await delivery.redeliver_after(self.store_retry_seconds)
            raise
        if ctx is None:
            return
        done = asyncio.Event()
        # With a heartbeat lease the heartbeat holds the message too, to the lease it renewed.
        holding = (
            self._heartbeat(ctx, delivery, done) if self.lease_heartbeat else self._hold(delivery, ctx, done)
        )
        keeper = asyncio.create_task(holding)
        try:
            await self._run(ctx, deadline)
        except StoreUnavailableError:
            await _stop(keeper, done)  # before: a change the keeper has in flight must not win
            await delivery.redeliver_after(self.store_retry_seconds)
            raise
        except RunInProgressError as busy:
            await _stop(keeper, done)
            if busy.lease_until is not None:
                await delivery.redeliver_after(busy.lease_until - self._clock() + self.redelivery_margin)
            raise
        except asyncio.CancelledError:
            if self.lease_heartbeat:  # stopped from outside (SIGTERM: a Spot interruption, a scale-in)
                await _stop(keeper, done)
                await self._give_back(ctx)  # the next delivery takes over at once, not a lease later
                await delivery.redeliver_after(0)
            raise
        finally:
            await _stop(keeper, done)

    def with_heartbeat_lease(self, lease_seconds: float) -> Worker:
        """This worker as the long-turn worker runs it: a lease of ``lease_seconds`` renewed by a
        heartbeat, which also times its message to come back just after that lease."""
        long = copy.copy(self)
        long.lease_seconds = lease_seconds
        long.lease_heartbeat = True
        return long

    def runs_here(self, deadline: float) -> bool:
        """Whether a turn with ``max_turn_seconds`` fits in an invocation ending at ``deadline``
        (the Lambda worker's; above it a project's turns go to the long-turn worker)."""
        if self.max_turn_seconds is None:
            return True
        total = deadline - time.monotonic()
        return self.max_turn_seconds <= total - min(self.safety_margin, total / 4)

    async def _heartbeat(self, ctx: TaskContext, delivery: Delivery, done: asyncio.Event) -> None:
        """Renew this attempt's lease every third of it until ``done``, and have the message come
        back just after the lease as renewed (so a takeover starts about a lease after this
        worker's death); interrupt the run once the turn is no longer this attempt's (another
        took it over, or it was canceled)."""
        lease = ctx.lease
        if lease is None or lease.lease_until is None:
            return
        await delivery.redeliver_after(lease.lease_until - self._clock() + self.redelivery_margin)
        while not ctx.ended and ctx.interruption is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), timeout=self.lease_seconds / 3)
                return
            until = self._clock() + self.lease_seconds
            try:
                renewed = await renew(self.ledger, lease, ctx.task_id, lease_until=until)
            except StoreUnavailableError:
                continue  # the lease outlasts two more beats: the next one may get through
            if renewed is not None:
                ctx.attempt.renewed(until)
                await delivery.redeliver_after(until - self._clock() + self.redelivery_margin)
                continue
            if ctx.ended:
                return
            try:
                head = await self.ledger.head(ctx.task_id)
            except StoreUnavailableError:
                continue
            lost = TaskCanceledError if head.state == TaskState.canceled else TurnLostError
            ctx.attempt.interrupt(lost(f"Task {ctx.task_id}'s turn is no longer this run's"))

    async def _claim_turn(self, operation: RunOperation) -> TaskContext | None:
        """Claim the operation's turn; the turn's context, or None when there is nothing to run."""
        try:
            view = await self.ledger.view(operation.task_id, history_length=HISTORY_WINDOW)
        except TaskNotFoundError:
            logger.warning("run operation for unknown task %s dropped", operation.task_id)
            return None
        decide = claim(
            operation, clock=self._clock, lease_seconds=self.lease_seconds, max_attempts=self.max_attempts
        )
        claimed = await self.ledger.write(operation.task_id, decide, head=view.head, folding=view.folding)
        if claimed is None:
            return None
        if claimed.state == TaskState.failed:
            logger.error("task %s failed: its %d attempts were used up", operation.task_id, self.max_attempts)
            return None
        return await self._context(operation, view, claimed)

    async def _hold(self, delivery: Delivery, ctx: TaskContext, done: asyncio.Event) -> None:
        lease_until = None if ctx.lease is None else ctx.lease.lease_until
        if lease_until is not None:
            await hold(
                delivery,
                lease_until,
                clock=self._clock,
                margin=self.redelivery_margin,
                beat=self.heartbeat_seconds,
                done=done,
                after=self.hold_after_seconds,
            )

    async def _context(self, operation: RunOperation, view: TaskView, claim: Commit) -> TaskContext:
        """The turn's context: the task as the claim left it, its recent messages (with the
        message that started the turn among them) in ``history``."""
        assert claim.run is not None
        if claim.first_seq == view.head.next_seq and claim.run.attempt == 1:
            folding = view.folding
            folding.apply(claim)
            history = [*(view.task.history or []), *messages_of(claim)][-HISTORY_WINDOW:]
        else:
            # The claim lost a race first (what we read is stale), or took over from an attempt
            # whose messages the claim superseded: read the task as the claim left it.
            view = await self.ledger.view(
                operation.task_id, history_length=HISTORY_WINDOW, through=claim.first_seq
            )
            folding, history = view.folding, view.task.history or []
        known = folding if folding.upto == claim.last_seq else None
        return TaskContext(
            self.ledger,
            folding.task(history),
            operation.run_id,
            head=claim,
            context_store=self.context_store,
            session_store=self.session_store,
            folding=known,
            turn_key=f"{operation.task_id}:{operation.run_id}:{folding.turn_messages}",
            request=folding.turn_request,
        )

    async def give_up(self, operation: RunOperation, reason: str) -> bool:
        """Fail the operation's turn with ``reason`` if it is still pending; see `give_up`."""
        return await give_up(self.ledger, operation, reason, clock=self._clock)

    async def _run(self, ctx: TaskContext, deadline: float | None) -> None:
        """Run the agent and record how it ended; raises `StoreUnavailableError` if the store
        failed meanwhile (the turn is given back for the next delivery)."""
        limit = None if deadline is None else deadline - time.monotonic()
        budget = None if limit is None else limit - self.safety_margin
        if self.max_turn_seconds is not None and (budget is None or self.max_turn_seconds < budget):
            budget = self.max_turn_seconds
        # The time the message of a turn out of time names: the whole invocation's, when it binds.
        whole = limit is not None and budget != self.max_turn_seconds
        allowed = None if budget is None else round(limit if whole and limit else budget, 1)
        with entered(ctx.sessions):  # a framework's session service finds the turn's sessions
            outcome = await run_agent(
                self.agent, ctx, budget=budget, grace=self.stop_grace, cancel_poll=self.cancel_poll_seconds
            )
        if ctx.interruption is None:
            with contextlib.suppress(TaskCanceledError, StoreUnavailableError):  # noted on ctx
                await self._record(ctx, outcome, allowed)
        interruption = ctx.interruption
        if isinstance(interruption, StoreUnavailableError):
            logger.warning(
                "task %s: the store failed during the run; the turn will be run again", ctx.task_id
            )
            await self._give_back(ctx)
            raise interruption
        if isinstance(interruption, TurnLostError):
            await self._check_turn_over(ctx)
        if interruption is not None:
            logger.info("task %s: the run stopped: %s", ctx.task_id, interruption)

    async def _check_turn_over(self, ctx: TaskContext) -> None:
        """After this run lost its turn to another attempt: raise `RunInProgressError` while
        that turn is still unfinished. The operation's message must then stay on the queue: it may
        be the very message the other attempt's worker holds, which needs it if it fails too."""
        head = await self.ledger.head(ctx.task_id)
        run = None if ctx.lease is None else pending_run(head, ctx.lease.run_id)
        if run is not None:
            lease_until = run.lease_until if run.lease_until is not None else self._clock()
            raise RunInProgressError(f"task {ctx.task_id}'s turn was taken over", lease_until=lease_until)

    async def _record(self, ctx: TaskContext, outcome: AgentOutcome, allowed: float | None) -> None:
        """Write how the agent's run ended (unless it ended the turn itself)."""
        error = outcome.error
        if outcome.timed_out:
            logger.error("agent ran out of time on task %s", ctx.task_id)
            await self._fail(ctx, out_of_time(allowed or 0.0, self.max_turn_seconds))
        elif error is None:
            if ctx.ended:
                return
            try:
                await ctx.complete(outcome.result)
            except InvalidAgentResponseError as invalid:
                error = invalid
            except (TaskCanceledError, StoreUnavailableError):
                raise
            except Exception as failed:
                logger.exception("could not complete task %s", ctx.task_id)
                error = failed
        if isinstance(error, InvalidAgentResponseError):
            logger.error("agent gave an invalid response on task %s: %s", ctx.task_id, error)
            await self._fail(ctx, INVALID_RESPONSE, error_code=InvalidAgentResponseError.code)
        elif error is not None:
            logger.error("agent failed on task %s", ctx.task_id, exc_info=error)
            await self._fail(ctx, AGENT_FAILED)

    async def _give_back(self, ctx: TaskContext) -> None:
        """Release this attempt's lease after a store failure, so the next delivery takes the
        turn over at once instead of after the lease; nothing if the turn is no longer ours (our
        ending write landed after all, or another attempt took over). Best effort."""
        if ctx.lease is None:
            return
        try:
            await self.ledger.write(ctx.task_id, release(ctx.lease))
        except StoreUnavailableError:
            logger.warning("task %s: could not release the turn; it resumes when its lease ends", ctx.task_id)

    async def _fail(self, ctx: TaskContext, reason: str, *, error_code: int | None = None) -> None:
        if ctx.ended:
            return
        metadata = None if error_code is None else {ERROR_CODE_KEY: error_code}
        with contextlib.suppress(TaskCanceledError):
            await ctx.fail(reason, metadata=metadata)


async def _stop(keeper: asyncio.Task[None], done: asyncio.Event) -> None:
    """Stop ``keeper`` once its change in flight, if any, is made; cancelled only if this task is."""
    done.set()
    try:
        await asyncio.shield(keeper)
    except asyncio.CancelledError:
        keeper.cancel()
        raise
    except Exception:  # the turn's outcome does not depend on it: the queue redelivers anyway
        logger.exception("timing the redelivery of a run operation failed")
