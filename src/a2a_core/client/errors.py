"""What a client call raises: the server's JSON-RPC errors as domain errors, and transport failures.

A JSON-RPC error object becomes the `a2a_core.core.errors` class for its code (the same classes the
server raises), with the server's message and data; a code the protocol does not define becomes
a subclass of `A2AError` carrying that code. Anything that is not a JSON-RPC answer at all is an
`A2AClientError`.
"""

from __future__ import annotations

import functools
from typing import Any

from a2a_core.core import errors
from a2a_core.core.errors import PROTOCOL_ERRORS, A2AError


class A2AClientError(Exception):
    """The server could not be used: unreachable, or its answer is not an A2A JSON-RPC answer."""


class A2AClientConnectionError(A2AClientError):
    """The server could not be reached, or a stream broke and could not be resumed."""


class A2AClientHTTPError(A2AClientError):
    """An HTTP error status, or a body that is not the JSON-RPC answer the protocol prescribes."""

    def __init__(self, message: str, *, status_code: int, url: str, body: str = "") -> None:
        self.status_code = status_code
        self.url = url
        self.body = body
        super().__init__(message)


@functools.cache
def _class_for_unknown(code: int) -> type[A2AError]:
    return type(f"JSONRPCError{code}", (A2AError,), {"code": code, "default_message": "JSON-RPC error"})


def error_from_wire(payload: Any) -> A2AError:
    """The exception for a JSON-RPC error object (``{"code", "message", "data"}``)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("code"), int):
        return errors.InternalError(f"Malformed JSON-RPC error object: {payload!r}")
    code: int = payload["code"]
    cls = PROTOCOL_ERRORS.get(code) or _class_for_unknown(code)
    message = payload.get("message")
    return cls(message if isinstance(message, str) else None, data=payload.get("data"))
