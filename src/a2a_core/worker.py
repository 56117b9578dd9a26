"""Runs one agent turn per `RunOperation`, safely under at-least-once delivery.

The worker first *claims* the turn with a conditional write (the task must still be on this
turn, and no live worker may hold it), so a duplicate delivery never runs the agent twice. A
claim records a lease; a delivery that finds an expired lease takes over from a worker that
died. Every write the agent makes is conditional on the task still being on this turn and not
canceled, so a cancel is never overwritten by a late completion.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable

from a2a_core.broker import RunOperation
from a2a_core.errors import ERROR_CODE_KEY, InvalidAgentResponseError, TaskCanceledError
from a2a_core.executor import AgentExecutor, TaskContext
from a2a_core.ledger import Change, TaskLedger, status
from a2a_core.lifecycle import INTERRUPTED_STATES, is_terminal
from a2a_core.records import Commit, RunLease, fold
from a2a_core.types import TaskState

logger = logging.getLogger(__name__)

INVALID_RESPONSE = "The agent returned an invalid response."


class RunInProgressError(Exception):
    """Another worker holds a live lease on this turn: deliver the operation again later."""


class Worker:
    def __init__(
        self,
        ledger: TaskLedger,
        executor: AgentExecutor,
        *,
        lease_seconds: float = 900.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.ledger = ledger
        self.executor = executor
        self.lease_seconds = lease_seconds
        self._clock = clock

    async def handle(self, operation: RunOperation) -> None:
        """Run the operation's turn if it is still due. Safe to call any number of times.

        Raises `RunInProgressError` when another worker is running the turn right now.
        """
        commits = await self.ledger.store.read(operation.task_id)
        if not commits:
            logger.warning("run operation for unknown task %s dropped", operation.task_id)
            return
        claim = await self.ledger.write(operation.task_id, self._claim(operation), head=commits[-1])
        if claim is None:
            return
        if claim.first_seq == commits[-1].next_seq:
            task = fold([*commits, claim])
        else:  # the claim lost a race first: the log we read is stale
            task = await self.ledger.load(operation.task_id)
        ctx = TaskContext(self.ledger, task, operation.run_id, head=claim)
        try:
            result = await self.executor.execute(ctx)
            if not ctx.ended:
                await ctx.complete(result)
        except TaskCanceledError:
            logger.info("task %s was canceled during its run", operation.task_id)
        except InvalidAgentResponseError as error:
            logger.error("agent gave an invalid response on task %s: %s", operation.task_id, error)
            await self._fail(ctx, INVALID_RESPONSE, error_code=InvalidAgentResponseError.code)
        except Exception:
            logger.exception("agent failed on task %s", operation.task_id)
            await self._fail(ctx, "The agent failed while working on this task.")

    def _claim(self, operation: RunOperation) -> Callable[[Commit], Change | None]:
        def decide(head: Commit) -> Change | None:
            run = head.run
            if is_terminal(head.state) or head.state in INTERRUPTED_STATES:
                return None
            if run is None or run.run_id != operation.run_id:
                return None  # a stale delivery of an earlier turn
            now = self._clock()
            if run.lease_until is not None and run.lease_until > now:
                raise RunInProgressError(f"task {operation.task_id} is being run by another worker")
            lease = RunLease(run_id=run.run_id, lease_until=now + self.lease_seconds, attempt=run.attempt + 1)
            return Change([status(TaskState.working)], run=lease)

        return decide

    async def _fail(self, ctx: TaskContext, reason: str, *, error_code: int | None = None) -> None:
        if ctx.ended:
            return
        metadata = None if error_code is None else {ERROR_CODE_KEY: error_code}
        with contextlib.suppress(TaskCanceledError):
            await ctx.fail(reason, metadata=metadata)
