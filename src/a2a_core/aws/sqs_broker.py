"""The broker on Amazon SQS: one message per run operation, consumed by the worker Lambda.

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
from typing import TYPE_CHECKING

from botocore.exceptions import BotoCoreError, ClientError

from a2a_core.core.broker import Broker, RunOperation
from a2a_core.core.errors import BrokerUnavailableError

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

logger = logging.getLogger(__name__)


class SqsBroker(Broker):
    def __init__(self, client: SQSClient, queue_url: str) -> None:
        self._client = client
        self._queue_url = queue_url

    async def enqueue(self, operation: RunOperation) -> None:
        try:
            # boto3 blocks; a thread keeps the event loop serving other requests meanwhile.
            await asyncio.to_thread(
                self._client.send_message, QueueUrl=self._queue_url, MessageBody=operation.model_dump_json()
            )
        # BotoCoreError covers what never got an answer (endpoint unreachable, read timeout).
        except (ClientError, BotoCoreError) as error:
            logger.error("enqueue of task %s failed: %s", operation.task_id, error)
            raise BrokerUnavailableError() from None
