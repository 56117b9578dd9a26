"""The turn a hosted executor is running, for the framework adapters it calls back into.

A framework's extension point (Agent Framework's ``HistoryProvider``, ...) is called by the
framework with the framework's own arguments, never the kit's `TaskContext`; `ExecutorAgent`
enters the turn around ``execute`` (and the tasks it starts), and an adapter reads it here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from a2a_core.core.turn.context import TaskContext

_current: ContextVar[TaskContext | None] = ContextVar("a2a_hosted_turn", default=None)


def current_turn() -> TaskContext | None:
    """The turn whose executor runs in this asyncio task (or one it started), None outside one."""
    return _current.get()


@contextlib.contextmanager
def entered_turn(ctx: TaskContext) -> Iterator[None]:
    """Run the block, and the tasks it starts, as ``ctx``'s turn."""
    token = _current.set(ctx)
    try:
        yield
    finally:
        _current.reset(token)
