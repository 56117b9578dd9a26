"""The context store port and its in-memory adapter: an agent's own state, per A2A context.

A task's log says what the client saw; a context's *value* is whatever the agent wants to carry
from one task of a conversation to the next (typically its framework's message list). Values are
JSON: ``None``, booleans, numbers, strings, lists and string-keyed dicts (a pydantic-ai message
list goes in as ``ModelMessagesTypeAdapter.dump_python(messages, mode="json")``). Adapters store
the serialised JSON, so what `load_context` returns is always a fresh copy.

Every write names the version it was decided on, so two workers updating one context never
silently lose one of the updates: the second write fails with `ContextConflictError` and
`ContextStore.update` decides again on the value the first one stored. Every write carries a
``write_id``, and a store remembers the last `RECENT_WRITES` of them: a write sent again after
its answer was lost is recognised as landed even once another writer moved the version, so no
update is applied twice.
"""

from __future__ import annotations

import json
import secrets
import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import JsonValue

# Versions start here: ``expected_version=NO_CONTEXT`` creates a context that must not exist yet.
NO_CONTEXT = 0
# How many of a context's latest writes a store still recognises by their write id.
RECENT_WRITES = 8


class ContextConflictError(Exception):
    """The context changed since the version the write was decided on; load it and decide again."""


@dataclass(frozen=True)
class Context:
    context_id: str
    value: JsonValue
    version: int


ContextUpdate = Callable[[JsonValue | None], JsonValue]


class ContextStore(ABC):
    """One JSON value per context id, versioned for optimistic concurrency."""

    max_attempts: int = 50

    @abstractmethod
    async def load_context(self, context_id: str) -> Context | None:
        """The stored value and its version, or None if nothing was stored for ``context_id``.

        Strongly consistent: reflects every `update_context` that has returned.
        """

    @abstractmethod
    async def update_context(
        self, context_id: str, value: JsonValue, *, expected_version: int, write_id: str | None = None
    ) -> int:
        """Replace the value if its version is still ``expected_version``; returns the new version.

        ``expected_version`` is the version `load_context` returned, or `NO_CONTEXT` when it
        returned None. Raises `ContextConflictError` when another write got there first (nothing
        is stored), ``TypeError``/``ValueError`` when ``value`` is not JSON. Each success adds one
        to the version. ``write_id`` (a fresh one when None) names this write: the same write sent
        again, while it is among the context's last `RECENT_WRITES`, stores nothing and returns
        the version it landed at, even if other writes moved the version since. A conflict means
        "decide again on the current value".
        """

    async def update(self, context_id: str, fn: ContextUpdate) -> Context:
        """Store ``fn(current value or None)``, deciding again on the fresh value after a conflict.

        ``fn`` may run several times, so it must only compute: no side effects. Raises
        `ContextConflictError` after `max_attempts` lost races.
        """
        for _ in range(self.max_attempts):
            current = await self.load_context(context_id)
            value = fn(None if current is None else current.value)
            expected = NO_CONTEXT if current is None else current.version
            try:
                version = await self.update_context(
                    context_id, value, expected_version=expected, write_id=new_write_id()
                )
            except ContextConflictError:
                continue
            return Context(context_id, value, version)
        raise ContextConflictError(
            f"context {context_id} is too busy: gave up after {self.max_attempts} races"
        )


def new_write_id() -> str:
    """A random id naming one write (a decision), the same in each resend of it."""
    return secrets.token_urlsafe(12)


def dump_value(value: JsonValue) -> bytes:
    """Compact UTF-8 JSON; refuses NaN and infinities, which JSON cannot carry."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def load_value(data: bytes | str) -> JsonValue:
    """The JSON value of what `dump_value` wrote."""
    loaded: JsonValue = json.loads(data)
    return loaded


class InMemoryContextStore(ContextStore):
    """The context store of one process (tests, the testing harness); values kept as JSON bytes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._contexts: dict[str, tuple[int, bytes]] = {}
        self._writes: dict[str, deque[tuple[str, int]]] = {}

    async def load_context(self, context_id: str) -> Context | None:
        with self._lock:
            stored = self._contexts.get(context_id)
        if stored is None:
            return None
        version, data = stored
        return Context(context_id, load_value(data), version)

    async def update_context(
        self, context_id: str, value: JsonValue, *, expected_version: int, write_id: str | None = None
    ) -> int:
        data = dump_value(value)
        write_id = write_id or new_write_id()
        with self._lock:
            recent = self._writes.setdefault(context_id, deque(maxlen=RECENT_WRITES))
            landed = next((version for wid, version in recent if wid == write_id), None)
            if landed is not None:
                return landed
            current = self._contexts.get(context_id, (NO_CONTEXT, b""))[0]
            if current != expected_version:
                raise ContextConflictError(
                    f"context {context_id} is at version {current}, not {expected_version}"
                )
            self._contexts[context_id] = (current + 1, data)
            recent.append((write_id, current + 1))
        return current + 1
