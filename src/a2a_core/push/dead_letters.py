"""Notifications that could not be delivered: the port and its in-memory adapter (the SQS one
lives with the other AWS adapters, in ``aws/``).

A dead letter holds what a replay needs: the task, the config (by id: its token and credentials
are read from the config store at replay time, never copied into a queue), the event id a
receiver deduplicates on, and the body that was sent with the protocol version it was encoded for
(the config's). A body too large for SQS is left out; `PushNotifier.replay` rebuilds it from the
task log, which yields the same bytes.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from a2a_core.generations import V0_3


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
    # The config's generation the body was encoded for (letters kept before it was: 0.3).
    protocol_version: str = V0_3.version


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
