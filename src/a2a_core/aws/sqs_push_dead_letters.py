"""`PushDeadLetters` on SQS: the push dead-letter queue, one message per undelivered notification."""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a_core.aws.calls import aws_call
from a2a_core.push.dead_letters import PushDeadLetter, PushDeadLetters

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

# SQS takes 256 KiB per message (the body is escaped inside it, so measure the whole message).
MAX_MESSAGE_BYTES = 250_000


class SqsPushDeadLetters(PushDeadLetters):
    def __init__(self, client: SQSClient, queue_url: str) -> None:
        self._client = client
        self._queue_url = queue_url

    async def put(self, letter: PushDeadLetter) -> None:
        message = letter.model_dump_json()
        if len(message.encode()) > MAX_MESSAGE_BYTES:
            message = letter.model_copy(update={"body": None}).model_dump_json()
        await aws_call(self._client.send_message, QueueUrl=self._queue_url, MessageBody=message)
