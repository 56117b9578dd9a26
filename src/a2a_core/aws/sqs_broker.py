"""The broker on Amazon SQS: one message per run operation, consumed by the worker Lambda, which
times each message's redelivery through its `SqsDelivery` (the message's visibility timeout). A
long turn's message is left on the queue by the consumer and held, then deleted, by the long-turn
worker, through the same `SqsDelivery` built from the queue's ARN and the message's receipt.

The run queue is a STANDARD queue, not FIFO. FIFO would buy nothing here: the worker's
conditional claim (a turn runs only while it is the task's current turn and no live lease holds
it) already makes duplicate deliveries harmless, and the state machine never gives a task two
runnable turns at once, so neither per-group ordering nor the 5-minute deduplication window
has anything left to do. FIFO would cost $0.50 instead of $0.40 per million requests, cap
throughput, and let one stuck message block every later message of its group.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
from typing import TYPE_CHECKING

from a2a_core.aws.calls import error_response
from a2a_core.core.broker import Broker, RunOperation
from a2a_core.core.errors import BrokerUnavailableError
from a2a_core.core.turn.delivery import Delivery

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

logger = logging.getLogger(__name__)


class SqsBroker(Broker):
    def __init__(self, client: SQSClient, queue_url: str) -> None:
        self._client = client
        self._queue_url = queue_url

    async def enqueue(self, operation: RunOperation) -> None:
        try:
            # The call blocks; a thread keeps the event loop serving other requests meanwhile.
            await asyncio.to_thread(
                self._client.send_message, QueueUrl=self._queue_url, MessageBody=operation.model_dump_json()
            )
        except Exception as error:  # an AWS error, answered or not (endpoint unreachable, timeout)
            if error_response(error) is None:
                raise
            logger.error("enqueue of task %s failed: %s", operation.task_id, error)
            raise BrokerUnavailableError() from None


# SQS refuses a visibility timeout over 12 hours.
MAX_VISIBILITY_SECONDS = 12 * 3600


class SqsMessages:
    """The worker's side of the run queue: a `Delivery` for each message Lambda handed it.

    ``known_url`` is the run queue's URL when the function knows it (its settings); a message from
    another queue has its queue's URL looked up once (``sqs:GetQueueUrl``, which the permission
    to consume the queue includes).
    """

    def __init__(self, client: SQSClient, known_url: str | None = None) -> None:
        self._client = client
        self._known_url = known_url
        self._urls: dict[str, str] = {}
        self._lock = threading.Lock()

    def delivery(self, queue_arn: str, receipt_handle: str) -> SqsDelivery:
        return SqsDelivery(self, queue_arn, receipt_handle)

    def change_visibility(self, queue_arn: str, receipt_handle: str, seconds: int) -> None:
        self._client.change_message_visibility(
            QueueUrl=self._url(queue_arn), ReceiptHandle=receipt_handle, VisibilityTimeout=seconds
        )

    def delete(self, queue_arn: str, receipt_handle: str) -> None:
        self._client.delete_message(QueueUrl=self._url(queue_arn), ReceiptHandle=receipt_handle)

    def _url(self, queue_arn: str) -> str:
        *_, account, name = queue_arn.split(":")
        if self._known_url is not None and self._known_url.rstrip("/").endswith(f"/{account}/{name}"):
            return self._known_url
        with self._lock:
            url = self._urls.get(queue_arn)
        if url is None:
            url = self._client.get_queue_url(QueueName=name, QueueOwnerAWSAccountId=account)["QueueUrl"]
            with self._lock:
                self._urls[queue_arn] = url
        return url


class SqsDelivery(Delivery):
    """One received message; its visibility timeout is when SQS delivers it again."""

    def __init__(self, messages: SqsMessages, queue_arn: str, receipt_handle: str) -> None:
        self._messages = messages
        self._queue_arn = queue_arn
        self._receipt_handle = receipt_handle
        # Calls run in threads and may overtake each other (a cancelled caller does not stop its
        # thread): the last call made is the one that counts, whichever thread gets there last.
        self._lock = threading.Lock()
        self._made = 0
        self._applied = 0

    async def redeliver_after(self, seconds: float) -> None:
        timeout = min(max(math.ceil(seconds), 0), MAX_VISIBILITY_SECONDS)
        self._made += 1
        try:
            await asyncio.to_thread(self._change, self._made, timeout)
        except Exception as error:
            if error_response(error) is None:
                raise
            # The message then comes back when the queue's visibility timeout says: later, not never.
            logger.warning("could not set the visibility of a run message to %d s: %s", timeout, error)

    async def acknowledge(self) -> None:
        with self._lock:
            self._applied = self._made = 1 << 62  # a change still in flight must not follow it
        await asyncio.to_thread(self._messages.delete, self._queue_arn, self._receipt_handle)

    def _change(self, call: int, timeout: int) -> None:
        with self._lock:
            if call < self._applied:
                return  # a later call already set it
            self._messages.change_visibility(self._queue_arn, self._receipt_handle, timeout)
            self._applied = call
