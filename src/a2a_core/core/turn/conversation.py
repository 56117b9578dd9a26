"""The agent's own state for a conversation (a context), as one turn of one of its tasks reads
and writes it: `TaskContext.load_context`, `update_context` and `change_context`."""

from __future__ import annotations

import hashlib

from pydantic import JsonValue

from a2a_core.core.tasklog.records import ANONYMOUS_OWNER
from a2a_core.core.turn.attempt import Attempt
from a2a_core.core.turn.context_store import NO_CONTEXT, ContextStore, ContextUpdate


class Conversation:
    def __init__(
        self, store: ContextStore | None, context_id: str, owner: str | None, attempt: Attempt
    ) -> None:
        """``owner``: whose task it is (its conversations are its own); ``attempt``: the turn's
        attempt, told when the store is unavailable."""
        self._store = store
        self._attempt = attempt
        self._version: int | None = None  # what `update` builds on
        # Stored per owner, since a contextId is client-chosen and another caller naming the same
        # one must not read or change this caller's state; without authentication, one tenant.
        if not owner or owner == ANONYMOUS_OWNER:
            self.key = context_id
        else:
            self.key = f"{hashlib.sha256(owner.encode()).hexdigest()[:32]}:{context_id}"

    @property
    def store(self) -> ContextStore:
        """The store of per-context agent state; `RuntimeError` if the worker was given none."""
        if self._store is None:
            raise RuntimeError("this worker has no context store: pass context_store= to build_server/Worker")
        return self._store

    async def load(self) -> JsonValue | None:
        """The value stored for this context, or None; `update` builds on it."""
        stored = await self._attempt.call(self.store.load_context(self.key))
        self._version = NO_CONTEXT if stored is None else stored.version
        return None if stored is None else stored.value

    async def update(self, value: JsonValue) -> None:
        """Store ``value``, unless it changed since this turn's `load`.

        Raises `ContextConflictError` when another task of the context stored a value in between
        (its update is kept; load again and decide). Without a `load` first, ``value`` replaces
        whatever is stored. To merge with concurrent writers, use `change`.
        """
        if self._version is None:
            await self.load()
        assert self._version is not None
        self._version = await self._attempt.call(
            self.store.update_context(self.key, value, expected_version=self._version)
        )

    async def change(self, fn: ContextUpdate) -> JsonValue:
        """Store ``fn(current value or None)``, retried on the fresh value after a concurrent write
        (so ``fn`` must only compute); returns what was stored."""
        stored = await self._attempt.call(self.store.update(self.key, fn))
        self._version = stored.version
        return stored.value
