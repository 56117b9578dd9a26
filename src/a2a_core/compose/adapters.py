"""`Adapters`: the adapters one backend serves the ports with, and the in-memory backend's.

Each composition root asks `a2a_core.compose.backends.build_adapters` for its backend's and takes
the ports it uses; each adapter is built on first use, so a function that uses only the table
(the worker, the dead-letter consumer) never needs the queue's settings.
"""

from __future__ import annotations

import secrets
from abc import ABC, abstractmethod
from functools import cached_property
from typing import TYPE_CHECKING

from a2a_core.core.broker import Broker, InMemoryBroker
from a2a_core.core.push_store import InMemoryPushConfigStore, PushConfigStore
from a2a_core.core.tasklog.store import InMemoryTaskStore, TaskStore
from a2a_core.core.turn.context_store import ContextStore, InMemoryContextStore
from a2a_core.core.turn.session_store import InMemorySessionStore, SessionStore
from a2a_core.settings import Settings

if TYPE_CHECKING:
    from a2a_core.auth import Authenticator
    from a2a_core.aws.sqs_broker import SqsMessages
    from a2a_core.core.turn.long_turns import TurnLauncher
    from a2a_core.push.dead_letters import PushDeadLetters


class Adapters(ABC):
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @property
    @abstractmethod
    def store(self) -> TaskStore: ...

    @property
    @abstractmethod
    def broker(self) -> Broker: ...

    @property
    @abstractmethod
    def push_store(self) -> PushConfigStore: ...

    @property
    @abstractmethod
    def context_store(self) -> ContextStore: ...

    @property
    @abstractmethod
    def session_store(self) -> SessionStore:
        """Where frameworks keep their conversations (`a2a_core.core.turn.session_store`)."""

    @property
    @abstractmethod
    def push_dead_letters(self) -> PushDeadLetters:
        """Where notifications no webhook took go (the push function's)."""

    @property
    def run_queue_messages(self) -> SqsMessages | None:
        """The run queue's messages as a worker gets them (it times their redelivery to its
        lease); None where operations do not come through a queue with visibility timeouts."""
        return None

    @property
    def turn_launcher(self) -> TurnLauncher | None:
        """What starts a long-turn worker for a turn longer than the Lambda worker allows (ECS
        in AWS); None where no long-turn worker is deployed (turns then stay on the worker)."""
        return None

    def reconnect(self) -> None:
        """Drop what a SnapStart snapshot cannot carry over (open connections, credentials)."""
        return None

    def app_authenticator(self) -> Authenticator | None:
        """The authenticator the app cannot build from the settings alone (API keys kept in this
        backend's storage); None: `a2a_core.compose.app.compose_app` builds it from the settings."""
        return None

    def page_token_key(self) -> bytes:
        """What ListTasks page tokens are signed with when ``A2A_PAGE_TOKEN_SECRET`` is not set:
        a key of this process, which is right where tasks live only as long as it does."""
        return secrets.token_bytes(32)


class InMemoryAdapters(Adapters):
    """The ``memory`` backend: every port in this process's memory, for as long as it runs."""

    @cached_property
    def store(self) -> InMemoryTaskStore:
        return InMemoryTaskStore()

    @cached_property
    def broker(self) -> InMemoryBroker:
        return InMemoryBroker()

    @cached_property
    def push_store(self) -> InMemoryPushConfigStore:
        return InMemoryPushConfigStore()

    @cached_property
    def context_store(self) -> InMemoryContextStore:
        return InMemoryContextStore()

    @cached_property
    def session_store(self) -> InMemorySessionStore:
        return InMemorySessionStore()

    @cached_property
    def push_dead_letters(self) -> PushDeadLetters:
        from a2a_core.push.dead_letters import InMemoryPushDeadLetters

        return InMemoryPushDeadLetters()
