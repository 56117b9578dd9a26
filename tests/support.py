"""Small builders shared by the unit tests."""

from __future__ import annotations

import os
import uuid
from typing import Any, NoReturn

import pytest

from a2a_core.compose import build_server
from a2a_core.core.broker import InMemoryBroker
from a2a_core.core.caller import Caller
from a2a_core.core.requests import SendRequest
from a2a_core.core.tasklog.store import InMemoryTaskStore
from a2a_core.core.turn.context_store import InMemoryContextStore
from a2a_core.core.turn.worker import Worker
from a2a_core.domain import Message, PushNotificationConfig, Role, TextPart
from a2a_core.server import AgentServer
from a2a_core.settings import Settings

CALLER = Caller()


def missing_prerequisite(what: str) -> NoReturn:
    """A tool a test needs is missing: skipped on a developer's machine without it, failed under
    CI (``.ci/run`` sets ``CI``), where ``make test`` installs every prerequisite."""
    if os.environ.get("CI"):
        pytest.fail(f"this test cannot run: {what}")
    pytest.skip(what)


def user_message(text: str = "hello", **fields: Any) -> Message:
    fields.setdefault("message_id", str(uuid.uuid4()))
    return Message(role=Role.user, parts=[TextPart(text=text)], **fields)


def send_params(
    message: Message,
    *,
    blocking: bool = False,
    accepted_output_modes: list[str] | None = None,
    push_config: PushNotificationConfig | None = None,
) -> SendRequest:
    """A neutral send request (what every protocol's codec hands the engine)."""
    modes = tuple(accepted_output_modes) if accepted_output_modes else None
    return SendRequest(
        message=message, blocking=blocking, accepted_output_modes=modes, push_config=push_config
    )


class Stack:
    def __init__(self, agent: object, **settings: Any) -> None:
        self.store = InMemoryTaskStore()
        self.broker = InMemoryBroker()
        self.context_store = InMemoryContextStore()
        settings.setdefault("allow_unauthenticated", True)  # tests that need auth choose a mode
        self.service: AgentServer = build_server(
            Settings(**settings), store=self.store, broker=self.broker, context_store=self.context_store
        )
        self.engine = self.service.engine
        self.ledger = self.service.ledger
        self.worker: Worker = self.service.worker(agent)

    async def drain(self) -> int:
        """Run every queued operation to the end; returns how many ran."""
        count = 0
        while (operation := await self.broker.receive(timeout=0)) is not None:
            await self.worker.handle(operation)
            count += 1
        return count
