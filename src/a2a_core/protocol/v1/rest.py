"""The A2A 1.0 HTTP+JSON binding: a route resolves to one of the 1.0 operations (`methods`), which
runs exactly as over JSON-RPC; results are the operation's JSON, errors are ``google.rpc.Status``
bodies with their HTTP status (spec 11.6), streams are SSE of StreamResponse objects (11.7).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel

from a2a_core.core.caller import Caller
from a2a_core.core.errors import A2AError, InternalError, VersionNotSupportedError
from a2a_core.core.streams import StreamItem
from a2a_core.generations import UNNAMED, V1_0
from a2a_core.protocol.jsonrpc import Method, guarded
from a2a_core.protocol.v1.errors import MethodNotAllowedError, rest_error
from a2a_core.protocol.v1.rest_routes import parse_body, resolve
from a2a_core.protocol.v1.result_codec import event_json
from a2a_core.protocol.versions import Version

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RestResponse:
    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RestStream:
    """A streamed answer: each item's data is a StreamResponse, or an error payload (``event: error``)."""

    items: AsyncIterator[StreamItem]
    # Each event's StreamResponse JSON (1.0's, or as 1.1 writes it).
    encode_event: Callable[[BaseModel], bytes] = event_json

    def encode(self, item: StreamItem) -> bytes:
        if item.error is not None:
            return json.dumps(rest_error(item.error)[1]).encode()
        assert item.result is not None
        return self.encode_event(item.result)

    def event(self, item: StreamItem) -> str | None:
        return "error" if item.error is not None else None


class RestBinding:
    def __init__(self, methods: Mapping[Version, Mapping[str, Method]]) -> None:
        """``methods``: each version's operations (1.0's, and the 1.1 draft's)."""
        self.methods = methods

    async def handle(
        self,
        method: str,
        path: str,
        query: Iterable[tuple[str, str]],
        body: bytes,
        caller: Caller,
        version: Version | VersionNotSupportedError,
    ) -> RestResponse | RestStream:
        """Answer one HTTP request (its ``path`` still percent-encoded)."""
        try:
            call = resolve(method, path, query, parse_body(body))
            served = _check_version(version, self.methods)
            operation = served[call.operation]
            request = operation.decode(call.params)
            result = await operation.handler(request, caller)
        except A2AError as error:
            return error_response(error)
        except Exception:
            logger.exception("internal error in %s %s", method, path)
            return error_response(InternalError())
        if operation.streaming:
            return RestStream(guarded(result, call.operation), operation.encode_event or event_json)
        return RestResponse(200, operation.encode(result))


def error_response(error: A2AError) -> RestResponse:
    status, payload = rest_error(error)
    headers = {}
    if isinstance(error, MethodNotAllowedError) and isinstance(error.data, dict):
        headers["Allow"] = str(error.data.get("allow", ""))
    return RestResponse(status, json.dumps(payload).encode(), headers)


def _check_version(
    version: Version | VersionNotSupportedError, methods: Mapping[Version, Mapping[str, Method]]
) -> Mapping[str, Method]:
    if isinstance(version, VersionNotSupportedError):
        raise version
    served = methods.get(version)
    if served is None:
        # An absent A2A-Version means 0.3 (spec 3.6.2), and these routes are A2A 1.0 only.
        raise VersionNotSupportedError(
            "The HTTP+JSON binding here serves A2A 1.0: send the header A2A-Version: 1.0 "
            "(a request without it is A2A 0.3, which this agent serves over JSON-RPC at its base URL)",
            data={"requestedVersion": UNNAMED.version, "supportedVersions": [V1_0.version]},
        )
    return served
