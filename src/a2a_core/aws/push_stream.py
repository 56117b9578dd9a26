"""The push function: DynamoDB stream records of the task table -> `PushNotifier`.

`functions/push` wraps this in a thin composition root, and `a2a-serverless dev` drives the very
same handler from its local stream poller.

Only inserted commit items matter (`a2a_core.aws.dynamodb.stream.commit_ref`); config items, TTL
deletions and anything else are acknowledged untouched. Records of different tasks are handled concurrently,
records of one task in stream order (a receiver sees input-required before completed). A record
fails, and is reported in ``batchItemFailures`` for the event source to retry (bounded, then
its on-failure destination), only if the task or its configs cannot be read or a dead letter
cannot be kept; an earlier failed record of the same task fails the later ones too, keeping the
order. Failing webhooks never fail a record: they are dead-lettered.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import EventType
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from a2a_core.aws.dynamodb.stream import commit_ref
from a2a_core.aws.lambdas import BatchHandler, RecordHandler, batch_handler
from a2a_core.push.notifier import PushNotifier

logger = Logger()  # service name from POWERTOOLS_SERVICE_NAME

# Stop starting retries this long before the function times out, so every record is answered.
TIME_MARGIN_SECONDS = 5.0


class EarlierRecordFailedError(Exception):
    """An earlier record of the same task failed in this batch; this one waits for its retry."""


def push_stream_handler(notifier: PushNotifier) -> BatchHandler:
    def for_invocation(context: LambdaContext) -> RecordHandler:
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

        return record_handler

    return batch_handler(EventType.DynamoDBStreams, for_invocation, after=notifier.metrics.flush)


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
