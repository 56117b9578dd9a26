"""Serving a streamed answer (JSON-RPC, or HTTP+JSON) as Server-Sent Events, in the two modes Lambda allows.

- Incremental (uvicorn locally; Lambda response streaming behind the Lambda Web Adapter): each
  event is written as it happens, with ``: keepalive`` comments while the agent is quiet.
- Buffered (Mangum on API Gateway, which returns one response body): events are collected until
  the final one or until the budget runs out, and returned as one valid SSE body. The first event
  (the task as it stands, read from the store) is always in it, however short the budget: a
  stream with no event would tell a client nothing. A client that did not get a final event
  resubscribes with ``Last-Event-ID`` and continues where it stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol

from starlette.responses import Response

from a2a_core.core.streams import StreamItem

if TYPE_CHECKING:
    from sse_starlette import ServerSentEvent

SSE = "text/event-stream"


class EventStream(Protocol):
    """A streamed answer of some binding: its items, and how each becomes an SSE event."""

    @property
    def items(self) -> AsyncIterator[StreamItem]: ...

    def encode(self, item: StreamItem) -> bytes:
        """The event's data (one JSON document)."""

    def event(self, item: StreamItem) -> str | None:
        """The event's name (``event:``), or None for the default."""


_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def incremental(reply: EventStream, *, keepalive: float) -> Response:
    # Imported here: sse-starlette pulls in uvicorn (~40 ms), and the Lambda (Mangum) path, whose
    # cold start that would lengthen, only ever serves buffered streams.
    from sse_starlette import EventSourceResponse, ServerSentEvent

    async def events() -> AsyncIterator[ServerSentEvent]:
        async for item in reply.items:
            yield ServerSentEvent(data=_data(reply, item), id=item.id, event=reply.event(item))

    return EventSourceResponse(
        events(),
        ping=keepalive,
        ping_message_factory=lambda: ServerSentEvent(comment="keepalive"),
        headers=_HEADERS,
    )


async def buffered(reply: EventStream, *, budget: float) -> Response:
    chunks: list[str] = []
    deadline = time.monotonic() + budget
    items = reply.items
    try:
        while not chunks or deadline > time.monotonic():
            # The first event comes whatever the budget; the others while it lasts.
            following = asyncio.wait_for(anext(items), deadline - time.monotonic()) if chunks else None
            try:
                item = await (following or anext(items))
            except (StopAsyncIteration, TimeoutError):
                break
            chunks.append(_encode(reply, item))
    finally:
        with contextlib.suppress(Exception):
            await items.aclose()  # type: ignore[attr-defined]
    return Response("".join(chunks), media_type=SSE, headers=_HEADERS)


# Legal raw in JSON strings and in SSE, but line breaks to str.splitlines, which line readers such
# as httpx's aiter_lines use: an agent's text containing one would cut its event in two.
_LINE_BREAKS_ESCAPED = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _data(reply: EventStream, item: StreamItem) -> str:
    """The event's data: one JSON document on one line (JSON never holds a raw newline)."""
    return reply.encode(item).decode().translate(_LINE_BREAKS_ESCAPED)


def _encode(reply: EventStream, item: StreamItem) -> str:
    event_id = "" if item.id is None else f"id: {item.id}\r\n"
    name = reply.event(item)
    event = "" if name is None else f"event: {name}\r\n"
    return f"{event}{event_id}data: {_data(reply, item)}\r\n\r\n"
