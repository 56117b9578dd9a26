"""The Lambda handlers for SQS and DynamoDB-stream batches, as factories over already-built parts.

`functions/worker`, `functions/dlq` and `functions/push` are thin composition roots around these,
and `a2a-serverless dev` drives the very same handlers from its local pollers. `batch_handler` is
the one Powertools wrapper they share (the push handler is in `a2a_core.aws.push_stream`).

Worker: the records of a batch run concurrently, each agent in an asyncio task of its own. A
record that fails (a malformed body, a turn another worker holds a live lease on, the store
unavailable past its retries) is reported alone in ``batchItemFailures``: SQS delivers only it
again, when the worker set its visibility to (as the lease ends, or shortly for a store error),
and moves it to the dead-letter queue after ``maxReceiveCount`` receives. Agent failures are not
record failures, whatever the agent raised (`asyncio.CancelledError` included): the worker
records them on the task, and the batch's other records run on. With ``queue`` the worker also
keeps its message invisible while the agent runs, and has it come back just after the turn's
lease if the function dies (`a2a_core.core.turn.delivery`). A project whose ``max_turn_seconds`` is
more than the invocation allows, with a ``hand_off``, has its turns run by the long-turn worker
instead (`a2a_core.core.turn.long_turns`): the record's message is left on the queue for it (a
record failure), timed to come back should that worker never start.

Dead letters: an operation no worker could finish ends its task as failed, so no client waits
forever. A handled dead letter is deleted; there is nothing to replay (a failed task is final, a
client that wants another try sends a new message).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import (
    AsyncBatchProcessor,
    EventType,
    async_process_partial_response,
)
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import ValidationError

from a2a_core.core.broker import RunOperation
from a2a_core.core.errors import StoreUnavailableError
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.turn.delivery import NO_DELIVERY, Delivery
from a2a_core.core.turn.long_turns import HandOff, LaunchFailedError, LongTurnLaunch, TurnHandedOffError
from a2a_core.core.turn.worker import RunInProgressError, Worker, give_up

if TYPE_CHECKING:
    from a2a_core.aws.sqs_broker import SqsMessages

DEAD_LETTER_REASON = "The agent could not finish this task; its run was moved to the dead-letter queue."

BatchHandler = Callable[[dict[str, Any], Any], PartialItemFailureResponse]
RecordHandler = Callable[[Any], Awaitable[None]]
logger = Logger()  # service name from POWERTOOLS_SERVICE_NAME


def batch_handler(
    event_type: EventType,
    record_handler: Callable[[LambdaContext], RecordHandler],
    *,
    after: Callable[[], None] | None = None,
) -> BatchHandler:
    """A Lambda handler that hands each record of a batch, concurrently, to what
    ``record_handler(context)`` returns for the invocation; the records it raised for are reported
    in ``batchItemFailures``. ``after`` runs when an invocation ends, however it ends."""
    # A batch whose every record failed is still a partial response: raising instead would make
    # the event source deliver the records that succeeded again too.
    processor = AsyncBatchProcessor(event_type=event_type, raise_on_entire_batch_failure=False)

    @logger.inject_lambda_context
    def handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
        try:
            return async_process_partial_response(
                event=event, record_handler=record_handler(context), processor=processor, context=context
            )
        finally:
            if after is not None:
                after()

    return handler


def worker_handler(
    worker: Worker, queue: SqsMessages | None = None, hand_off: HandOff | None = None
) -> BatchHandler:
    """The worker function's handler; ``queue`` (the run queue's messages) times redeliveries,
    ``hand_off`` sends turns longer than an invocation to the long-turn worker."""
    return batch_handler(
        EventType.SQS, lambda context: functools.partial(_run_record, worker, queue, hand_off, context)
    )


async def _run_record(
    worker: Worker,
    queue: SqsMessages | None,
    hand_off: HandOff | None,
    lambda_context: LambdaContext,
    record: SQSRecord,
) -> None:
    # Taken per record; all records of a batch start at once, so they share the invocation's end.
    deadline = time.monotonic() + lambda_context.get_remaining_time_in_millis() / 1000
    try:
        operation = RunOperation.model_validate_json(record.body)
    except ValidationError:
        logger.error("message body is not a run operation", message_id=record.message_id)
        raise
    delivery = (
        NO_DELIVERY if queue is None else queue.delivery(record.event_source_arn, record.receipt_handle)
    )
    try:
        if hand_off is not None and not worker.runs_here(deadline):
            await _hand_off(hand_off, operation, record, delivery)
        else:
            await worker.handle(operation, deadline=deadline, delivery=delivery)
    except (TurnHandedOffError, LaunchFailedError):
        raise  # logged where it happened
    except RunInProgressError:
        logger.info(
            "turn held by a live worker; SQS delivers it again later",
            task_id=operation.task_id,
            message_id=record.message_id,
        )
        raise
    except StoreUnavailableError:
        logger.warning(
            "the task store failed; SQS delivers the turn again shortly",
            task_id=operation.task_id,
            message_id=record.message_id,
        )
        raise
    except Exception:
        logger.exception("run operation failed", task_id=operation.task_id, message_id=record.message_id)
        raise


async def _hand_off(
    hand_off: HandOff, operation: RunOperation, record: SQSRecord, delivery: Delivery
) -> None:
    launch = LongTurnLaunch(operation, source=record.event_source_arn, receipt=record.receipt_handle)
    try:
        await hand_off(launch, delivery)
    except TurnHandedOffError:
        logger.info(
            "turn handed to the long-turn worker; its message stays on the queue for it",
            task_id=operation.task_id,
            message_id=record.message_id,
        )
        raise


def dead_letter_handler(ledger: TaskLedger) -> BatchHandler:
    return batch_handler(EventType.SQS, lambda context: functools.partial(_give_up_record, ledger))


async def _give_up_record(ledger: TaskLedger, record: SQSRecord) -> None:
    try:
        operation = RunOperation.model_validate_json(record.body)
    except ValidationError:
        # No task to fail, and retrying cannot fix the body: acknowledge it.
        logger.error("dropped a dead letter that is not a run operation", message_id=record.message_id)
        return
    try:
        if await give_up(ledger, operation, DEAD_LETTER_REASON):
            logger.warning("task failed: its run was dead-lettered", task_id=operation.task_id)
    except RunInProgressError:
        logger.info("a live worker holds the turn; checking again later", task_id=operation.task_id)
        raise
    except Exception:
        logger.exception("could not fail the task of a dead letter", task_id=operation.task_id)
        raise
