"""Who is calling: what every method of the engine and the push config service is handed."""

from __future__ import annotations

from dataclasses import dataclass

from a2a_core.core.tasklog.records import ANONYMOUS_OWNER


@dataclass(frozen=True)
class Caller:
    """Who is calling (tasks are created for, and isolated by, this principal), plus what the
    transport said about the call that methods need."""

    principal: str = ANONYMOUS_OWNER
    last_event_id: str | None = None  # SSE Last-Event-ID header, for tasks/resubscribe
    base_url: str = ""  # the agent's public URL as this request reached it (cards name it)
    # The extensions the caller asked to use (``A2A-Extensions``; 0.3's ``X-A2A-Extensions``):
    # a turn's agent reads them (`TaskContext.extensions`).
    extensions: tuple[str, ...] = ()
