"""Who made the call, as a2a-sdk's `ServerCallContext` says it (the same in 1.x and 0.3)."""

from __future__ import annotations

from a2a.auth.user import User
from a2a.server.context import ServerCallContext

from a2a_core.core.tasklog.records import ANONYMOUS_OWNER
from a2a_core.core.turn.context import TaskContext


class Caller(User):
    """The principal the task belongs to, as `ServerCallContext.user`."""

    def __init__(self, principal: str) -> None:
        self._principal = principal

    @property
    def is_authenticated(self) -> bool:
        return self._principal != ANONYMOUS_OWNER

    @property
    def user_name(self) -> str:
        return "" if self._principal == ANONYMOUS_OWNER else self._principal


def call_context(ctx: TaskContext) -> ServerCallContext:
    """The turn's caller and the extensions it asked for."""
    return ServerCallContext(user=Caller(ctx.principal), requested_extensions=set(ctx.extensions))
