"""The long-turn port: how a turn longer than the Lambda worker allows reaches a worker that can
run it (a Fargate task in AWS, a process started for the turn in `dev`).

The run queue's consumer does not run such a turn itself: it hands the operation, with the
receipt of the queue message that brought it, to a `TurnLauncher`. The long-turn worker started
for it runs the same `Worker.handle` as the Lambda worker, holds the message away while it works
(`a2a_core.core.turn.delivery.hold`, through the receipt) and deletes it when the turn is done; if
it dies, the message comes back and the consumer launches the next attempt.
"""

from __future__ import annotations

import json
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from a2a_core.core.broker import RunOperation
from a2a_core.core.errors import StoreUnavailableError, TaskNotFoundError
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.turn.delivery import Delivery
from a2a_core.core.turn.leases import RunInProgressError, give_up, pending_run

if TYPE_CHECKING:
    from a2a_core.core.turn.worker import Worker

logger = logging.getLogger(__name__)

# The long-turn worker's one input, in its environment (a container override in AWS).
LAUNCH_ENV = "A2A_LONG_TURN"


@dataclass(frozen=True)
class LongTurnLaunch:
    """One turn for the long-turn worker: the operation and, when it came through a queue, the
    queue (``source``: its ARN) and receipt handle of its message."""

    operation: RunOperation
    source: str | None = None
    receipt: str | None = None

    def to_env(self) -> dict[str, str]:
        body = {"operation": self.operation.model_dump(), "source": self.source, "receipt": self.receipt}
        return {LAUNCH_ENV: json.dumps(body, separators=(",", ":"))}

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> LongTurnLaunch:
        """The launch in ``env``; raises `ValueError` naming the variable when it is missing or bad."""
        raw = env.get(LAUNCH_ENV)
        if not raw:
            raise ValueError(f"{LAUNCH_ENV} is not set: the long-turn worker runs the turn it names")
        try:
            body = json.loads(raw)
            operation = RunOperation.model_validate(body["operation"])
            return cls(operation, body.get("source"), body.get("receipt"))
        except (ValueError, KeyError, TypeError) as bad:
            raise ValueError(f"{LAUNCH_ENV} is not a long-turn launch: {bad}") from bad


class TurnLauncher(ABC):
    """Starts a long-turn worker (`a2a_core.functions.long_worker`) for one turn."""

    @abstractmethod
    async def launch(self, launch: LongTurnLaunch) -> None:
        """Start a long-turn worker for ``launch``. Raises on failure to start (the consumer then
        leaves the message on the queue, to be launched again on its next delivery)."""


class TurnHandedOffError(Exception):
    """The turn went to the long-turn worker: its message stays on the queue, held by that worker
    (a record failure to the consumer's event source, which then neither deletes it nor counts it
    as done)."""


class LaunchFailedError(Exception):
    """The launcher could not start a long-turn worker; the message comes back shortly."""


@dataclass(frozen=True)
class HandOff:
    """The run queue consumer's side of a long turn: launch a worker for it, or do nothing.

    ``start_grace`` is how long a launched worker may take to start and claim the turn: the
    message comes back after it, so a worker that never started is launched again, and one that
    did holds the message meanwhile (`a2a_core.core.turn.delivery.hold`). ``retry_seconds``:
    when a launch that failed is tried again.
    """

    ledger: TaskLedger
    launcher: TurnLauncher
    start_grace: float = 120.0
    retry_seconds: float = 10.0
    redelivery_margin: float = 5.0
    max_attempts: int = 3
    clock: Callable[[], float] = time.time

    async def __call__(self, launch: LongTurnLaunch, delivery: Delivery) -> None:
        """Hand ``launch``'s turn to a long-turn worker if it is due; returns when there is
        nothing to run (the message can go). Raises `TurnHandedOffError` once a worker was
        launched, `RunInProgressError` while a live worker holds the turn (the message comes back
        as its lease ends), `LaunchFailedError` when the launch failed and `StoreUnavailableError`
        when the task could not be read (both: the message comes back after ``retry_seconds``)."""
        operation = launch.operation
        try:
            head = await self.ledger.head(operation.task_id)
        except TaskNotFoundError:
            logger.warning("run operation for unknown task %s dropped", operation.task_id)
            return
        except StoreUnavailableError:
            await delivery.redeliver_after(self.retry_seconds)  # not the queue's 90 minutes
            raise
        run = pending_run(head, operation.run_id)
        if run is None:
            return  # the turn ended, or this is a stale delivery of an earlier one
        now = self.clock()
        if run.lease_until is not None and run.lease_until > now:
            await delivery.redeliver_after(run.lease_until - now + self.redelivery_margin)
            raise RunInProgressError(
                f"task {operation.task_id} is being run by another worker", lease_until=run.lease_until
            )
        if run.attempt >= self.max_attempts:
            # Its claim would only fail the turn (as `claim` does): no worker is started for that.
            reason = f"The agent could not finish this task after {run.attempt} attempts."
            await give_up(self.ledger, operation, reason, clock=self.clock)
            return
        # Timed before the launch: a consumer that dies right after it still has the message back.
        await delivery.redeliver_after(self.start_grace)
        try:
            await self.launcher.launch(launch)
        except Exception as failed:
            logger.exception("could not launch a long-turn worker for task %s", operation.task_id)
            await delivery.redeliver_after(self.retry_seconds)
            raise LaunchFailedError(f"no long-turn worker for task {operation.task_id}: {failed}") from failed
        raise TurnHandedOffError(f"task {operation.task_id}'s turn went to a long-turn worker")


async def run_long_turn(worker: Worker, launch: LongTurnLaunch, delivery: Delivery) -> None:
    """The long-turn worker's one turn: run it (no invocation deadline: the worker's
    ``max_turn_seconds`` is its budget), then delete its message. A turn that is not due (ended,
    stale) has its message deleted too; one another live attempt holds keeps it (that attempt's
    worker holds it). Raises `StoreUnavailableError` when the store failed: the message comes back
    and the turn is tried again."""
    try:
        await worker.handle(launch.operation, delivery=delivery)
    except RunInProgressError:
        logger.info("task %s: another worker holds the turn", launch.operation.task_id)
        return
    await delivery.acknowledge()
