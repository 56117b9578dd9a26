"""Notifications that could not be delivered: the port, its in-memory and SQS adapters.

A dead letter holds what a replay needs: the task, the config (by id: its token and credentials
are read from the config store at replay time, never copied into a queue), the event id a
receiver deduplicates on, and the body that was sent. A body too large for SQS is left out;
`PushNotifier.replay` rebuilds it from the task log, which yields the same bytes.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

# SQS takes 256 KiB per message (the body is escaped inside it, so measure the whole message).
MAX_MESSAGE_BYTES = 250_000


class PushDeadLetter(BaseModel):
    model_config = ConfigDict(
        frozen=True, alias_generator=to_camel, validate_by_name=True, serialize_by_alias=True
    )

    task_id: str
    config_id: str
    event_id: str
    seq: int
    url: str
    reason: str
    attempts: int
    failed_at: float
    body: str | None = None  # the exact body sent (UTF-8 JSON); None when too large to keep


class PushDeadLetters(ABC):
    @abstractmethod
    async def put(self, letter: PushDeadLetter) -> None:
        """Keep ``letter`` for a later replay; raises if it could not be kept (the caller retries)."""


class InMemoryPushDeadLetters(PushDeadLetters):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._letters: list[str] = []

    async def put(self, letter: PushDeadLetter) -> None:
        with self._lock:
            self._letters.append(letter.model_dump_json())

    def letters(self) -> list[PushDeadLetter]:
        with self._lock:
            return [PushDeadLetter.model_validate_json(blob) for blob in self._letters]


class SqsPushDeadLetters(PushDeadLetters):
    def __init__(self, client: SQSClient, queue_url: str) -> None:
        self._client = client
        self._queue_url = queue_url

    async def put(self, letter: PushDeadLetter) -> None:
        from a2a_core.aws.dynamodb_store import aws_call

        message = letter.model_dump_json()
        if len(message.encode()) > MAX_MESSAGE_BYTES:
            message = letter.model_copy(update={"body": None}).model_dump_json()
        await aws_call(self._client.send_message, QueueUrl=self._queue_url, MessageBody=message)
