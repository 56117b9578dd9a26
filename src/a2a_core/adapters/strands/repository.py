"""`StrandsSessionRepository`: Strands' `SessionRepository` on the kit's session store.

One Strands session per A2A context. In the store (`a2a_core.core.turn.session_store`), within the
space of the task's owner, the session's key holds a record ``session``, a record per agent
(``agent/<id>``: its state, conversation manager state and internal state, which carries a
pending interrupt) and per multi-agent (``multi_agent/<id>``); each agent's messages are the log
of their own key, message ``n`` at sequence number ``n + 1``, written once: a turn appends what
it says, never the conversation again.

Strands calls a repository synchronously from inside its event loop, so each call runs on the
kit's store in a loop of its own, on one background thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import JsonValue
from strands.session.session_repository import SessionRepository
from strands.types.exceptions import SessionException
from strands.types.session import Session, SessionAgent, SessionMessage

from a2a_core.core.turn.session_scope import SessionScope, current_session_scope
from a2a_core.core.turn.session_store import NO_RECORD, EntryTakenError, RecordConflictError, SessionStore

if TYPE_CHECKING:
    from strands.multiagent.base import MultiAgentBase

T = TypeVar("T")

_FRAMEWORK = "strands"
_SESSION = "session"
_AGENT = "agent/"
_MULTI_AGENT = "multi_agent/"


class StrandsSessionRepository(SessionRepository):
    """Strands sessions in the kit's session store: they outlive the worker that ran a turn."""

    def __init__(self, store: SessionStore | None = None) -> None:
        """Built during a turn (in the executor's agent factory), it keeps that turn's scope: the
        worker's store, in the space of the task's owner. ``store``: where sessions are kept
        when built outside a turn (a test's)."""
        scope = current_session_scope()
        if scope is None:
            if store is None:
                raise RuntimeError(
                    "StrandsSessionRepository is built during a turn of the kit's worker (or give it a store)"
                )
            scope = SessionScope(store)
        self._scope = scope

    # --- the session -------------------------------------------------------------------------

    def create_session(self, session: Session, **kwargs: Any) -> Session:
        """Store a new session; `SessionException` if it exists."""
        try:
            self._run(
                self._store.save_record(
                    self._key(session.session_id), _SESSION, session.to_dict(), expected_version=NO_RECORD
                )
            )
        except RecordConflictError:
            raise SessionException(f"Session {session.session_id} already exists") from None
        return session

    def read_session(self, session_id: str, **kwargs: Any) -> Session | None:
        """The session, or None."""
        record = self._run(self._store.load_record(self._key(session_id), _SESSION))
        return None if record is None else Session.from_dict(_dict(record.value))

    # --- agents ------------------------------------------------------------------------------

    def create_agent(self, session_id: str, session_agent: SessionAgent, **kwargs: Any) -> None:
        """Store a new agent of the session; `SessionException` if it exists."""
        name = _AGENT + session_agent.agent_id
        try:
            self._run(
                self._store.save_record(
                    self._key(session_id), name, session_agent.to_dict(), expected_version=NO_RECORD
                )
            )
        except RecordConflictError:
            raise SessionException(
                f"Agent {session_agent.agent_id} in session {session_id} already exists"
            ) from None

    def read_agent(self, session_id: str, agent_id: str, **kwargs: Any) -> SessionAgent | None:
        """The agent (its state and interrupt state), or None."""
        record = self._run(self._store.load_record(self._key(session_id), _AGENT + agent_id))
        return None if record is None else SessionAgent.from_dict(_dict(record.value))

    def update_agent(self, session_id: str, session_agent: SessionAgent, **kwargs: Any) -> None:
        """Replace the agent, keeping when it was created; `SessionException` if there is none."""

        def replaced(current: JsonValue | None) -> JsonValue:
            if current is None:
                raise SessionException(
                    f"Agent {session_agent.agent_id} in session {session_id} does not exist"
                )
            session_agent.created_at = str(_dict(current)["created_at"])
            return session_agent.to_dict()

        self._run(self._store.update_record(self._key(session_id), _AGENT + session_agent.agent_id, replaced))

    # --- messages ----------------------------------------------------------------------------

    def create_message(
        self, session_id: str, agent_id: str, session_message: SessionMessage, **kwargs: Any
    ) -> None:
        """Store the agent's message ``message_id``, once. `SessionException` if another worker
        stored a different message under that id (two turns of the context ran at once)."""
        log = self._key(session_id, agent_id)
        seq = _seq(session_message.message_id)
        try:
            self._run(self._store.put_entry(log, seq, session_message.to_dict()))
        except EntryTakenError:
            raise SessionException(
                f"message {session_message.message_id} of agent {agent_id} was written by another turn"
            ) from None

    def read_message(
        self, session_id: str, agent_id: str, message_id: int, **kwargs: Any
    ) -> SessionMessage | None:
        """The agent's message ``message_id``, or None."""
        seq = _seq(message_id)
        entries = self._run(self._store.read_entries(self._key(session_id, agent_id), after=seq - 1, limit=1))
        if not entries or entries[0].seq != seq:
            return None
        return SessionMessage.from_dict(_dict(entries[0].value))

    def update_message(
        self, session_id: str, agent_id: str, session_message: SessionMessage, **kwargs: Any
    ) -> None:
        """Replace a message (a redaction), keeping when it was created."""
        previous = self.read_message(session_id, agent_id, session_message.message_id)
        if previous is None:
            raise SessionException(f"Message {session_message.message_id} does not exist")
        session_message.created_at = previous.created_at
        log = self._key(session_id, agent_id)
        self._run(self._store.replace_entry(log, _seq(session_message.message_id), session_message.to_dict()))

    def list_messages(
        self, session_id: str, agent_id: str, limit: int | None = None, offset: int = 0, **kwargs: Any
    ) -> list[SessionMessage]:
        """The agent's messages from ``offset`` on (at most ``limit``), in order."""
        entries = self._run(
            self._store.read_entries(self._key(session_id, agent_id), after=offset, limit=limit)
        )
        return [SessionMessage.from_dict(_dict(entry.value)) for entry in entries]

    # --- multi-agents ------------------------------------------------------------------------

    def create_multi_agent(self, session_id: str, multi_agent: MultiAgentBase, **kwargs: Any) -> None:
        """Store a new multi-agent's state; `SessionException` if it exists."""
        name = _MULTI_AGENT + multi_agent.id
        try:
            self._run(
                self._store.save_record(
                    self._key(session_id), name, multi_agent.serialize_state(), expected_version=NO_RECORD
                )
            )
        except RecordConflictError:
            raise SessionException(
                f"MultiAgent state {multi_agent.id} in session {session_id} already exists"
            ) from None

    def read_multi_agent(self, session_id: str, multi_agent_id: str, **kwargs: Any) -> dict[str, Any] | None:
        """The multi-agent's state, or None."""
        record = self._run(self._store.load_record(self._key(session_id), _MULTI_AGENT + multi_agent_id))
        return None if record is None else _dict(record.value)

    def update_multi_agent(self, session_id: str, multi_agent: MultiAgentBase, **kwargs: Any) -> None:
        """Replace the multi-agent's state; `SessionException` if there is none."""
        state = multi_agent.serialize_state()

        def replaced(current: JsonValue | None) -> JsonValue:
            if current is None:
                raise SessionException(
                    f"MultiAgent state {multi_agent.id} in session {session_id} does not exist"
                )
            return state

        self._run(self._store.update_record(self._key(session_id), _MULTI_AGENT + multi_agent.id, replaced))

    # --- the store ---------------------------------------------------------------------------

    @property
    def _store(self) -> SessionStore:
        return self._scope.store

    def _key(self, session_id: str, agent_id: str | None = None) -> str:
        parts = (
            (_FRAMEWORK, session_id) if agent_id is None else (_FRAMEWORK, session_id, "messages", agent_id)
        )
        return self._scope.key(*parts)

    @staticmethod
    def _run(call: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(call, _background_loop()).result()


def _seq(message_id: int) -> int:
    if not isinstance(message_id, int) or message_id < 0:
        raise ValueError(f"message_id=<{message_id}> | message id must be an integer of 0 or more")
    return message_id + 1


def _dict(value: JsonValue) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise SessionException(f"a stored session value is not an object: {type(value).__name__}")
    return value


_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def _background_loop() -> asyncio.AbstractEventLoop:
    """The loop the repository's calls run in: Strands' own loop is blocked while it waits."""
    global _loop
    with _loop_lock:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="strands session store", daemon=True).start()
        return _loop
