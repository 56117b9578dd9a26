"""JSON-RPC 2.0 over HTTP POST, for every generation: 0.x methods, or 1.0 operations with
``A2A-Version: 1.0`` (the headers the client gives the transport)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from a2a_core.client.errors import error_from_wire
from a2a_core.client.operations import Operation
from a2a_core.client.sse import ServerSentEvent
from a2a_core.client.transport import Transport
from a2a_core.client.wire import decoded, http_error, json_body, loads


class JsonRpcTransport(Transport):
    def build(self, operation: Operation, params: dict[str, Any], headers: dict[str, str]) -> httpx.Request:
        if self.tenant:
            params = {**params, "tenant": self.tenant}
        body = {"jsonrpc": "2.0", "id": uuid.uuid4().hex, "method": operation.method, "params": params}
        return self.http.build_request("POST", self.url, json=body, headers=headers)

    def result(self, operation: Operation, response: httpx.Response) -> Any:
        return decoded(operation.decode, result(json_body(response), response), response)

    def event(self, operation: Operation, event: ServerSentEvent, response: httpx.Response) -> Any:
        return decoded(operation.decode, result(loads(event.data, response), response), response)


def result(payload: Any, response: httpx.Response) -> Any:
    """The ``result`` of a JSON-RPC response; its ``error`` raised as the matching A2AError."""
    if not isinstance(payload, dict) or payload.get("jsonrpc") != "2.0":
        raise http_error(response, f"{response.request.url} did not answer with a JSON-RPC 2.0 response")
    if payload.get("error") is not None:
        raise error_from_wire(payload["error"])
    return payload.get("result")
