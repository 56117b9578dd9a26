"""A Server-Sent Events parser over a stream of lines (the WHATWG event-stream format)."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass


@dataclass(frozen=True)
class ServerSentEvent:
    data: str
    id: str | None = None
    event: str = "message"


async def parse_events(lines: AsyncIterable[str]) -> AsyncIterator[ServerSentEvent]:
    """Events from lines without their line endings; comments (``: keepalive``) are skipped.

    ``id`` is the event's own id field (None when it had none). An event cut off by the end of
    the stream, without its blank line, is dropped, as the format requires.
    """
    data: list[str] = []
    event_id: str | None = None
    event = ""
    async for line in lines:
        if not line:
            if data:
                yield ServerSentEvent("\n".join(data), event_id, event or "message")
            data, event_id, event = [], None, ""
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "id" and "\0" not in value:
            event_id = value or None
        elif name == "event":
            event = value
