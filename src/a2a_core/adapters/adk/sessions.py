"""`AdkSessionService`: ADK's `BaseSessionService` on the kit's session store.

ADK keeps a conversation as a session: events, plus state in three scopes that
``InMemorySessionService`` defines and this service keeps as it does: ``app:`` keys are shared by
every session of the app, ``user:`` keys by every session of one user, ``temp:`` keys live only
in the session object of the running invocation (never stored), and the rest belong to the
session. In the store (`a2a_core.core.turn.session_store`), within the space of the task's owner:

- the app's key holds a record ``app_state`` and a log of the sessions created (for listing);
- a user's key holds a record ``user_state`` and a record ``session/<id>`` per session: its own
  state, its creation and last change times, and the id of its event log;
- the event log's key holds one entry per event, appended once (an event re-delivered, equal
  and with the same id, is not stored again), so a turn costs what its events weigh.

A deleted session leaves a tombstone record (the worker may not delete items; TTL removes them):
a session created again under its id starts a new, empty event log.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from google.adk.errors.already_exists_error import AlreadyExistsError
from google.adk.errors.session_not_found_error import SessionNotFoundError
from google.adk.events.event import Event
from google.adk.sessions import _session_util
from google.adk.sessions.base_session_service import (
    BaseSessionService,
    GetSessionConfig,
    ListSessionsResponse,
)
from google.adk.sessions.session import Session
from google.adk.sessions.state import State
from pydantic import JsonValue

from a2a_core.core.turn.session_scope import SessionScope, current_session_scope
from a2a_core.core.turn.session_store import NO_RECORD, EntryTakenError, RecordConflictError, SessionStore

_FRAMEWORK = "adk"
_APP_STATE = "app_state"
_USER_STATE = "user_state"
_SESSION = "session/"
# The most events `get_session` returns when not told otherwise: a read stays bounded however
# long the conversation (ADK's own A2A runs ask for fewer still).
MAX_EVENTS = 1000


class AdkSessionService(BaseSessionService):
    """ADK sessions in the kit's session store: they outlive the worker that ran a turn."""

    def __init__(self, store: SessionStore | None = None, *, max_events: int = MAX_EVENTS) -> None:
        """``store``: where sessions are kept outside a turn (a test's); during a turn, the
        worker's store in the space of the task's owner is used. ``max_events``: the most
        events a session is read with, its newest."""
        self._store = store
        self._max_events = max_events

    # --- sessions ----------------------------------------------------------------------------

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        """A new session (``session_id`` or a fresh one); `AlreadyExistsError` if it exists."""
        scope = self._scope()
        session_id = (session_id.strip() if session_id else None) or uuid.uuid4().hex
        deltas = _session_util.extract_state_delta(_json_state(state or {}))
        now = time.time()
        meta: dict[str, JsonValue] = {
            "state": deltas["session"],
            "created": now,
            "log": uuid.uuid4().hex,
        }
        users = scope.key(_FRAMEWORK, app_name, user_id)
        existing = await scope.store.load_record(users, _SESSION + session_id)
        if existing is not None and not _deleted(existing.value):
            raise AlreadyExistsError(f"Session with id {session_id} already exists.")
        expected = NO_RECORD if existing is None else existing.version
        try:
            await scope.store.save_record(users, _SESSION + session_id, meta, expected_version=expected)
        except RecordConflictError:
            raise AlreadyExistsError(f"Session with id {session_id} already exists.") from None
        await scope.store.append(
            scope.key(_FRAMEWORK, app_name), {"user_id": user_id, "session_id": session_id}
        )
        await self._merge_scoped(scope, app_name, user_id, deltas)
        session = Session(
            app_name=app_name,
            user_id=user_id,
            id=session_id,
            state=dict(deltas["session"]),
            last_update_time=now,
        )
        return await self._with_scoped_state(scope, session)

    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: GetSessionConfig | None = None,
    ) -> Session | None:
        """The session with its newest events (at most ``config.num_recent_events``, and only
        those at or after ``config.after_timestamp``), or None."""
        scope = self._scope()
        session_id = session_id.strip() if session_id else session_id
        meta = await self._meta(scope, app_name, user_id, session_id)
        if meta is None:
            return None
        limit = self._max_events
        if config is not None and config.num_recent_events is not None:
            limit = min(limit, config.num_recent_events)
        log = scope.key(_FRAMEWORK, app_name, user_id, session_id, str(meta["log"]))
        entries = await scope.store.read_entries(log, limit=limit, newest=True) if limit else []
        events = [_event(entry.value) for entry in entries]
        if config is not None and config.after_timestamp is not None:
            # As InMemorySessionService: the events after the last one older than the bound.
            older = [i for i, event in enumerate(events) if event.timestamp < config.after_timestamp]
            events = events[older[-1] + 1 :] if older else events
        # As InMemorySessionService: the time of the newest event, or of the creation.
        newest = events[-1].timestamp if events else await self._newest_time(scope, log)
        session = Session(
            app_name=app_name,
            user_id=user_id,
            id=session_id,
            state=dict(meta["state"]),
            events=events,
            last_update_time=float(meta["created"]) if newest is None else newest,
        )
        return await self._with_scoped_state(scope, session)

    async def list_sessions(self, *, app_name: str, user_id: str | None = None) -> ListSessionsResponse:
        """The sessions (without events) of ``user_id``, or of every user, oldest change first."""
        scope = self._scope()
        if user_id is None:
            created = await scope.store.read_entries(scope.key(_FRAMEWORK, app_name), limit=self._max_events)
            user_ids = sorted(
                {str(entry.value["user_id"]) for entry in created if isinstance(entry.value, dict)}
            )
        else:
            user_ids = [user_id]
        sessions: list[Session] = []
        for user in user_ids:
            users = scope.key(_FRAMEWORK, app_name, user)
            for record in await scope.store.list_records(users, _SESSION):
                if _deleted(record.value):
                    continue
                session_id = record.name.removeprefix(_SESSION)
                found = await self.get_session(
                    app_name=app_name,
                    user_id=user,
                    session_id=session_id,
                    config=GetSessionConfig(num_recent_events=0),
                )
                if found is not None:
                    sessions.append(found)
        sessions.sort(key=lambda s: (s.last_update_time, s.user_id, s.id))
        return ListSessionsResponse(sessions=sessions)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """Forget the session (a tombstone; nothing happens if there is none)."""
        scope = self._scope()
        session_id = session_id.strip() if session_id else session_id
        users = scope.key(_FRAMEWORK, app_name, user_id)

        def tombstone(current: JsonValue | None) -> JsonValue:
            return current if current is None or _deleted(current) else {"deleted": True}

        if await scope.store.load_record(users, _SESSION + session_id) is not None:
            await scope.store.update_record(users, _SESSION + session_id, tombstone)

    async def get_user_state(self, *, app_name: str, user_id: str) -> dict[str, Any]:
        """The user's ``user:`` state, with the keys unprefixed ({} when there is none)."""
        scope = self._scope()
        record = await scope.store.load_record(scope.key(_FRAMEWORK, app_name, user_id), _USER_STATE)
        return dict(record.value) if record is not None and isinstance(record.value, dict) else {}

    # --- events ------------------------------------------------------------------------------

    async def append_event(self, session: Session, event: Event) -> Event:
        """Store ``event`` once and apply its state delta to ``session`` and to the stored scopes."""
        if event.partial:
            return event
        scope = self._scope()
        meta = await self._meta(scope, session.app_name, session.user_id, session.id)
        if meta is None:
            raise SessionNotFoundError(f"Session {session.id} not found.")
        log = scope.key(_FRAMEWORK, session.app_name, session.user_id, session.id, str(meta["log"]))
        newest = await scope.store.read_entries(log, limit=1, newest=True)
        if newest and _event(newest[0].value) == event:
            return event  # re-delivered: stored already, its delta applied
        event = await super().append_event(session=session, event=event)
        session.last_update_time = event.timestamp
        value = json.loads(event.model_dump_json(exclude_none=True))
        seq = (newest[0].seq if newest else 0) + 1
        write_id = f"{event.id}:{uuid.uuid4().hex[:8]}"
        for _ in range(scope.store.max_attempts):
            try:
                await scope.store.put_entry(log, seq, value, write_id=write_id)
                break
            except EntryTakenError:
                seq += 1  # another worker appended meanwhile: after its event
        else:
            raise EntryTakenError(f"session {session.id} is too busy: its event was not stored")
        if event.actions and event.actions.state_delta:
            deltas = _session_util.extract_state_delta(_json_state(event.actions.state_delta))
            await self._merge_scoped(scope, session.app_name, session.user_id, deltas)
            if deltas["session"]:
                await self._merge_session_state(scope, session, deltas["session"])
        return event

    # --- the store ---------------------------------------------------------------------------

    def _scope(self) -> SessionScope:
        scope = current_session_scope()
        if scope is not None:
            return scope
        if self._store is None:
            raise RuntimeError(
                "AdkSessionService runs in the kit's worker (or give it a store): no turn is running"
            )
        return SessionScope(self._store)

    async def _meta(
        self, scope: SessionScope, app_name: str, user_id: str, session_id: str
    ) -> dict[str, Any] | None:
        record = await scope.store.load_record(
            scope.key(_FRAMEWORK, app_name, user_id), _SESSION + session_id
        )
        if record is None or _deleted(record.value) or not isinstance(record.value, dict):
            return None
        return record.value

    async def _newest_time(self, scope: SessionScope, log: str) -> float | None:
        newest = await scope.store.read_entries(log, limit=1, newest=True)
        return _event(newest[0].value).timestamp if newest else None

    async def _merge_scoped(
        self, scope: SessionScope, app_name: str, user_id: str, deltas: dict[str, Any]
    ) -> None:
        if deltas["app"]:
            await scope.store.update_record(
                scope.key(_FRAMEWORK, app_name), _APP_STATE, _merged(deltas["app"])
            )
        if deltas["user"]:
            users = scope.key(_FRAMEWORK, app_name, user_id)
            await scope.store.update_record(users, _USER_STATE, _merged(deltas["user"]))

    async def _merge_session_state(
        self, scope: SessionScope, session: Session, delta: dict[str, Any]
    ) -> None:
        def merge(current: JsonValue | None) -> JsonValue:
            if not isinstance(current, dict) or _deleted(current):
                raise SessionNotFoundError(f"Session {session.id} not found.")
            state = current["state"]
            assert isinstance(state, dict)
            return {**current, "state": {**state, **delta}}

        users = scope.key(_FRAMEWORK, session.app_name, session.user_id)
        await scope.store.update_record(users, _SESSION + session.id, merge)

    async def _with_scoped_state(self, scope: SessionScope, session: Session) -> Session:
        app = await scope.store.load_record(scope.key(_FRAMEWORK, session.app_name), _APP_STATE)
        user = await scope.store.load_record(
            scope.key(_FRAMEWORK, session.app_name, session.user_id), _USER_STATE
        )
        for prefix, record in ((State.APP_PREFIX, app), (State.USER_PREFIX, user)):
            if record is not None and isinstance(record.value, dict):
                session.state.update({prefix + key: value for key, value in record.value.items()})
        return session


def _merged(delta: dict[str, Any]) -> Any:
    def merge(current: JsonValue | None) -> JsonValue:
        return {**(current if isinstance(current, dict) else {}), **delta}

    return merge


def _deleted(value: JsonValue) -> bool:
    return isinstance(value, dict) and value.get("deleted") is True


def _json_state(state: dict[str, Any]) -> dict[str, Any]:
    """State as JSON (datetimes, models as ADK's own stores write them)."""
    return _session_util.make_json_safe_state(state)


def _event(value: JsonValue) -> Event:
    return Event.model_validate_json(json.dumps(value))
