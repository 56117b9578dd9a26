"""What a client call raises: the server's errors as domain errors, and everything else.

Whatever the generation or binding, an error the agent answers becomes the `a2a_core.core.errors`
class the server raised (the same classes on both sides), with its message and ``data``:

- JSON-RPC (0.x and 1.0): the class for ``error.code``; a code the protocol does not define
  becomes a subclass of `A2AError` carrying that code;
- HTTP+JSON: a ``google.rpc.Status`` body, the class for its ``ErrorInfo.reason`` (with its
  ``status`` telling apart reasons two classes share, as the server's table maps them).

1.0 error details (``google.rpc.ErrorInfo``/``BadRequest``) come back as 0.x-style ``data``: the
field violations as ``[{"field", "message"}]``, else the ErrorInfo's ``metadata``. Anything that is
not an A2A answer at all (an HTTP error without an A2A body, non-JSON, an unreachable server) is an
`A2AClientError`.
"""

from __future__ import annotations

import functools
from typing import Any

from a2a_core.core import errors
from a2a_core.core.errors import PROTOCOL_ERRORS, A2AError

ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


class A2AClientError(Exception):
    """The server could not be used: unreachable, or its answer is not an A2A answer."""


class A2AClientConnectionError(A2AClientError):
    """The server could not be reached, or a stream broke and could not be resumed."""


class A2AClientHTTPError(A2AClientError):
    """An HTTP error status, or a body that is not the answer the protocol prescribes."""

    def __init__(self, message: str, *, status_code: int, url: str, body: str = "") -> None:
        self.status_code = status_code
        self.url = url
        self.body = body
        super().__init__(message)


class A2AClientCardError(A2AClientError):
    """The card offers nothing this client can use, or its signature does not verify."""


class A2AClientUnsupportedError(A2AClientError):
    """The operation does not exist in the protocol version the agent speaks (ListTasks over 0.x),
    or the agent's card does not offer it (an extended card)."""


@functools.cache
def _class_for_unknown(code: int) -> type[A2AError]:
    return type(f"JSONRPCError{code}", (A2AError,), {"code": code, "default_message": "JSON-RPC error"})


def error_from_wire(payload: Any) -> A2AError:
    """The exception for a JSON-RPC error object (``{"code", "message", "data"}``), 0.x or 1.0."""
    if not isinstance(payload, dict) or not isinstance(payload.get("code"), int):
        return errors.InternalError(f"Malformed JSON-RPC error object: {payload!r}")
    code: int = payload["code"]
    cls = PROTOCOL_ERRORS.get(code) or _class_for_unknown(code)
    message = payload.get("message")
    return cls(message if isinstance(message, str) else None, data=_data(payload.get("data")))


def error_from_status(payload: Any) -> A2AError | None:
    """The exception for an HTTP+JSON ``google.rpc.Status`` body (``{"error": {...}}``); None when
    the body is not one or names no A2A reason (a proxy's or an authenticator's refusal)."""
    error = payload.get("error") if isinstance(payload, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    if not isinstance(error, dict) or not isinstance(details, list):
        return None
    info = _info(details)
    reason = info.get("reason") if info else None
    cls = _class_for_reason(reason, error.get("status")) if isinstance(reason, str) else None
    if cls is None:
        return None
    message = error.get("message")
    return cls(message if isinstance(message, str) else None, data=_data(details))


def _class_for_reason(reason: str, status: object) -> type[A2AError] | None:
    from a2a_core.protocol.v1.errors import ERROR_TABLE

    by_reason = [(cls, mapping) for cls, mapping in ERROR_TABLE.items() if mapping.reason == reason]
    exact = [cls for cls, mapping in by_reason if mapping.grpc_status == status]
    candidates = exact or [cls for cls, _ in by_reason]
    return candidates[0] if candidates else None


def _info(details: list[Any]) -> dict[str, Any] | None:
    return next((d for d in details if isinstance(d, dict) and d.get("@type") == ERROR_INFO), None)


def _data(data: Any) -> Any:
    """0.x ``data`` as it came; 1.0 details (a list of typed objects) as 0.x-style data."""
    if not isinstance(data, list) or not data or not all(isinstance(d, dict) and "@type" in d for d in data):
        return data
    violations = [
        {"field": v.get("field"), "message": v.get("description")}
        for detail in data
        if detail.get("@type") == BAD_REQUEST
        for v in detail.get("fieldViolations") or []
        if isinstance(v, dict)
    ]
    if violations:
        return violations
    info = _info(data)
    return (info.get("metadata") if info else None) or None
