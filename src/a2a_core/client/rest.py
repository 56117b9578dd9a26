"""A2A 1.0's HTTP+JSON binding: each operation at its route (the server's own route table,
`a2a_core.protocol.v1.rest_routes`), errors as ``google.rpc.Status`` bodies, streams as SSE of
bare StreamResponse objects (an ``error`` object in an event ends the stream with that error).

Path parameters are percent-encoded, so a task id holding ``/`` or ``:`` reaches the right route.
POST routes carry every param in the body (path ones too, as a2a-sdk's client sends them); GET
and DELETE routes carry the ones the route binds as query parameters.
"""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import quote

import httpx

from a2a_core.client.errors import A2AClientHTTPError, error_from_status
from a2a_core.client.operations import Operation
from a2a_core.client.sse import ServerSentEvent
from a2a_core.client.transport import Transport
from a2a_core.client.wire import decoded, http_error, loads, status_error
from a2a_core.protocol.v1.rest_routes import ROUTES, Route


class RestTransport(Transport):
    def build(self, operation: Operation, params: dict[str, Any], headers: dict[str, str]) -> httpx.Request:
        route = route_for(operation.name, tenant=bool(self.tenant))
        bound = {**params, "tenant": self.tenant} if self.tenant else params
        path = "/".join(_fill(segment, bound) for segment in route.template.split("/"))
        url = self.url.rstrip("/") + path
        if route.binds_body:
            return self.http.build_request(route.method, url, json=params, headers=headers)
        query = httpx.QueryParams(
            [(name, _query_value(value)) for name, value in params.items() if name in route.query]
        )
        return self.http.build_request(route.method, url, params=query, headers=headers)

    def result(self, operation: Operation, response: httpx.Response) -> Any:
        if not response.is_success:
            raise error_from_status(_json_or_none(response)) or status_error(response)
        value = loads(response.text, response) if response.text.strip() else None
        return decoded(operation.decode, value, response)

    def event(self, operation: Operation, event: ServerSentEvent, response: httpx.Response) -> Any:
        payload = loads(event.data, response)
        if isinstance(payload, dict) and "error" in payload:
            error = error_from_status(payload)
            if error is not None:
                raise error
            raise http_error(response, f"{response.request.url} streamed an error: {event.data[:200]}")
        return decoded(operation.decode, payload, response)


@functools.cache
def route_for(operation: str, *, tenant: bool) -> Route:
    """The first route of the table for the operation (the proto's own, e.g. GET for subscribe)."""
    return next(
        route
        for route in ROUTES
        if route.operation == operation and route.template.startswith("/{tenant}") == tenant
    )


def _fill(segment: str, params: dict[str, Any]) -> str:
    """One template segment (``{id}``, ``{id}:cancel``, ``tasks``) with its parameter encoded."""
    if not segment.startswith("{"):
        return segment
    name, _, verb = segment[1:].partition("}")
    return quote(str(params[name]), safe="") + verb


def _query_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _json_or_none(response: httpx.Response) -> Any:
    try:
        return loads(response.text, response)
    except A2AClientHTTPError:  # not JSON, so not a Status either
        return None
