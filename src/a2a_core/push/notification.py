"""One notification: which event of which task, and the exact body every attempt sends."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Notification:
    task_id: str
    seq: int  # the sequence number of the event in the task log (its SSE event id too)
    body: bytes
    content_type: str = "application/json"  # the body's, as its payload gives it

    @property
    def event_id(self) -> str:
        """What receivers deduplicate on: the same for every retry and replay of the event."""
        return f"{self.task_id}:{self.seq}"
