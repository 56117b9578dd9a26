"""Where a framework's session service finds the turn's sessions: the store, and the owner's space.

A contextId is chosen by the client, so a session keyed by it alone would let a second caller
naming the same contextId read the first one's conversation. Every session key is therefore
prefixed by a space derived from the task's owner (as `Conversation` keys contexts), and the
space comes from the task the worker claimed, never from the request. The worker's host sets the
scope for the turn (`entered`); a framework adapter reads it with `current_session_scope`.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from urllib.parse import quote

from a2a_core.core.tasklog.records import ANONYMOUS_OWNER
from a2a_core.core.turn.session_store import SessionStore

_current: ContextVar[SessionScope | None] = ContextVar("a2a_session_scope", default=None)


def owner_space(owner: str | None) -> str:
    """The key prefix of an owner's sessions: one shared space without authentication."""
    if not owner or owner == ANONYMOUS_OWNER:
        return "-"
    return hashlib.sha256(owner.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class SessionScope:
    """A session store seen from one owner's tasks: every key it makes is in the owner's space."""

    store: SessionStore
    space: str = "-"

    def key(self, *parts: str) -> str:
        """The session key of ``parts`` (e.g. a framework, an app, a session id) in this space;
        each part quoted, so no part can reach into another's keys."""
        return "/".join([self.space, *(quote(part, safe="") for part in parts)])


def current_session_scope() -> SessionScope | None:
    """The scope of the turn running in this task (asyncio task or thread), or None outside one."""
    return _current.get()


@contextlib.contextmanager
def entered(scope: SessionScope | None) -> Iterator[None]:
    """Run the block (and the tasks it starts) with ``scope`` as the current one."""
    token = _current.set(scope)
    try:
        yield
    finally:
        _current.reset(token)
