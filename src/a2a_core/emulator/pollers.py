"""Stand-ins for Lambda event source mappings, on the emulator.

`SqsPoller` does what the SQS event source mapping does for the worker Lambda: receive a batch,
invoke the handler with an SQS event, delete what succeeded, and leave the reported failures on
the queue to be delivered again (locally after `retry_delay` seconds instead of the production
visibility timeout, so a retry is observable while you watch). A handler that times its records'
redelivery itself (the worker's: as a turn's lease ends, shortly after a store error) is left to
do so, exactly as in AWS: ``retry_delay=None``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from a2a_core.emulator.lambda_shapes import LocalLambdaContext, sqs_event

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

logger = logging.getLogger(__name__)
# When a batch whose handler raised comes back, for a poller whose handler times its retries.
_CRASH_RETRY_DELAY = 2
LambdaHandler = Callable[[dict[str, Any], Any], Mapping[str, Any] | None]


class SqsPoller:
    def __init__(
        self,
        client: SQSClient,
        queue_url: str,
        handler: LambdaHandler,
        *,
        function_name: str,
        region: str,
        batch_size: int = 10,
        retry_delay: int | None = 2,
        timeout_seconds: float = 900.0,
    ) -> None:
        self.client = client
        self.queue_url = queue_url
        self.handler = handler
        self.function_name = function_name
        self.region = region
        self.batch_size = batch_size
        self.retry_delay = retry_delay
        self.timeout_seconds = timeout_seconds
        attributes = client.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])
        self._arn = attributes["Attributes"]["QueueArn"]

    def poll_once(self, wait_seconds: int = 1) -> int:
        """One receive + invoke + delete cycle; returns how many messages were handled."""
        messages = self.client.receive_message(
            QueueUrl=self.queue_url,
            MaxNumberOfMessages=self.batch_size,
            WaitTimeSeconds=wait_seconds,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
        ).get("Messages", [])
        if not messages:
            return 0
        event = sqs_event(messages, queue_arn=self._arn, region=self.region)  # type: ignore[arg-type]
        context = LocalLambdaContext(self.function_name, timeout_seconds=self.timeout_seconds)
        try:
            response = self.handler(event, context) or {}
            failed = {f["itemIdentifier"] for f in response.get("batchItemFailures", [])}
            crashed = False
        except Exception:
            logger.exception("%s failed as a whole; the batch will be delivered again", self.function_name)
            failed, crashed = {m["MessageId"] for m in messages}, True
        delay = _CRASH_RETRY_DELAY if self.retry_delay is None else self.retry_delay
        done = [message for message in messages if message["MessageId"] not in failed]
        if done:  # one call for the batch, as the event source mapping deletes it
            self.client.delete_message_batch(
                QueueUrl=self.queue_url,
                Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)],
            )
        for message in messages:
            if message["MessageId"] in failed and (crashed or self.retry_delay is not None):
                # else the handler set when it comes back
                self.client.change_message_visibility(
                    QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=delay
                )
        return len(messages)

    async def run(self, stop: asyncio.Event) -> None:
        """Poll until ``stop`` is set; each cycle runs in a thread of this poller's own (the
        handler owns its loop), so a long poll never holds one of the threads the event loop
        lends to the API's AWS calls."""
        loop = asyncio.get_running_loop()
        with ThreadPoolExecutor(1, thread_name_prefix=self.function_name) as thread:
            while not stop.is_set():
                try:
                    await loop.run_in_executor(thread, self.poll_once)
                except Exception:
                    logger.exception("polling %s failed; retrying", self.queue_url)
                    await asyncio.sleep(1.0)
