"""How a call travels: a binding (JSON-RPC, HTTP+JSON) over the client's HTTP connection.

A binding turns an operation's encoded params into an HTTP request and its answer back into the
operation's result (or the error the answer carries). Streams are Server-Sent Events whose data
the binding reads the same way; an answer that is not an event stream is an error the server
gave before streaming (or, from some servers, a single result).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Mapping
from typing import Any

import httpx

from a2a_core.client.errors import A2AClientConnectionError
from a2a_core.client.operations import Operation
from a2a_core.client.sse import ServerSentEvent, parse_events
from a2a_core.client.wire import describe

SSE = "text/event-stream"


class StreamBrokenError(Exception):
    """The connection ended a stream the server had not finished (it may be resumed)."""


class Transport(ABC):
    def __init__(
        self,
        http: httpx.AsyncClient,
        url: str,
        headers: Mapping[str, str],
        *,
        tenant: str | None = None,
    ) -> None:
        """Calls to the interface at ``url``; ``headers`` go with every request."""
        self.http = http
        self.url = url
        self.headers = dict(headers)
        self.tenant = tenant

    async def call(self, operation: Operation, request: Any) -> Any:
        """The result of one operation; raises the error the server answered."""
        outgoing = self.build(operation, operation.encode(request), self.headers)
        try:
            response = await self.http.send(outgoing)
        except httpx.TransportError as error:
            raise A2AClientConnectionError(f"cannot reach {outgoing.url}: {describe(error)}") from error
        return self.result(operation, response)

    async def stream(
        self, operation: Operation, request: Any, *, last_event_id: str | None, resuming: bool
    ) -> AsyncGenerator[tuple[str | None, Any]]:
        """``(event id, result)`` per event. A broken connection raises StreamBrokenError, except
        when a first call cannot connect at all (A2AClientConnectionError: nothing was sent)."""
        headers = {**self.headers, "Accept": SSE}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        outgoing = self.build(operation, operation.encode(request), headers)
        try:
            response = await self.http.send(outgoing, stream=True)
        except httpx.TransportError as error:
            if resuming:
                raise StreamBrokenError(describe(error)) from error
            raise A2AClientConnectionError(f"cannot reach {outgoing.url}: {describe(error)}") from error
        try:
            try:
                if not response.headers.get("content-type", "").startswith(SSE):
                    await response.aread()
                    yield None, self.result(operation, response)
                    return
                async for event in parse_events(response.aiter_lines()):
                    yield event.id, self.event(operation, event, response)
            except httpx.TransportError as error:
                raise StreamBrokenError(describe(error)) from error
        finally:
            await response.aclose()

    @abstractmethod
    def build(self, operation: Operation, params: dict[str, Any], headers: dict[str, str]) -> httpx.Request:
        """The HTTP request for an operation with these (encoded) params."""

    @abstractmethod
    def result(self, operation: Operation, response: httpx.Response) -> Any:
        """The decoded result of a whole (read) answer; raises the error it carries."""

    @abstractmethod
    def event(self, operation: Operation, event: ServerSentEvent, response: httpx.Response) -> Any:
        """The decoded result in one streamed event; raises the error it carries."""
