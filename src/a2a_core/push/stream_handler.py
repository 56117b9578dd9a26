"""The push function: DynamoDB stream records of the task table -> `PushNotifier`.

`functions/push` wraps this in a thin composition root, and `a2a-serverless dev` drives the very
same handler from its local stream poller.

Only inserted commit items (``EVT#`` sort keys) matter; config items, TTL deletions and
anything else are acknowledged untouched. Records of different tasks are handled concurrently,
records of one task in stream order (a receiver sees input-required before completed). A record
fails, and is reported in ``batchItemFailures`` for the event source to retry (bounded, then
its on-failure destination), only if the task or its configs cannot be read or a dead letter
cannot be kept; an earlier failed record of the same task fails the later ones too, keeping the
order. Failing webhooks never fail a record: they are dead-lettered.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import (
    AsyncBatchProcessor,
    EventType,
    async_process_partial_response,
)
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

from a2a_core.aws.dynamodb_store import BODY, FIRST_SEQ, STATE, TASK_ID, is_commit_key
from a2a_core.aws.resources import TABLE
from a2a_core.push.notifier import CommitRef, PushNotifier
from a2a_core.records import Commit
from a2a_core.types import TaskState

StreamHandler = Callable[[dict[str, Any], Any], PartialItemFailureResponse]
logger = Logger()  # service name from POWERTOOLS_SERVICE_NAME

# Stop starting retries this long before the function times out, so every record is answered.
TIME_MARGIN_SECONDS = 5.0


class EarlierRecordFailedError(Exception):
    """An earlier record of the same task failed in this batch; this one waits for its retry."""


def commit_ref(record: dict[str, Any]) -> CommitRef | None:
    """The commit a stream record announces, or None for anything that is not a new commit."""
    image = (record.get("dynamodb") or {}).get("NewImage") or {}
    sort_key = image.get(TABLE.sort_key, {}).get("S", "")
    # Only an INSERT is a new commit: a snapshot stored later with a commit is a MODIFY.
    if record.get("eventName") != "INSERT" or not is_commit_key(sort_key):
        return None
    body = image.get(BODY, {}).get("S")
    return CommitRef(
        task_id=image[TASK_ID]["S"],
        first_seq=int(image[FIRST_SEQ]["N"]),
        state=TaskState(image[STATE]["S"]),
        commit=Commit.model_validate_json(body) if body is not None else None,
    )


def push_stream_handler(notifier: PushNotifier) -> StreamHandler:
    # A batch whose every record failed is still a partial response: raising would make the
    # event source retry the records that succeeded too.
    processor = AsyncBatchProcessor(event_type=EventType.DynamoDBStreams, raise_on_entire_batch_failure=False)
    metrics = notifier.sender.metrics

    @logger.inject_lambda_context
    def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
        deadline = time.monotonic() + context.get_remaining_time_in_millis() / 1000 - TIME_MARGIN_SECONDS
        order = _TaskOrder()

        async def record_handler(record: DynamoDBRecord) -> None:
            ref = commit_ref(record.raw_event)
            if ref is None:
                return
            async with order.turn(ref.task_id):
                try:
                    await notifier.on_commit(ref, deadline=deadline)
                except Exception:
                    logger.exception("push for a commit failed", task_id=ref.task_id, first_seq=ref.first_seq)
                    raise

        try:
            return async_process_partial_response(
                event=event, record_handler=record_handler, processor=processor, context=context
            )
        finally:
            metrics.flush()

    return handler


class _TaskOrder:
    """One batch's records of a task run one at a time, in the order they were started."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._failed: set[str] = set()

    @asynccontextmanager
    async def turn(self, task_id: str) -> AsyncIterator[None]:
        lock = self._locks.setdefault(task_id, asyncio.Lock())
        async with lock:
            if task_id in self._failed:
                raise EarlierRecordFailedError(f"an earlier record of task {task_id} failed")
            try:
                yield
            except BaseException:
                self._failed.add(task_id)
                raise
