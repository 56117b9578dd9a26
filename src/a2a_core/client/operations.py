"""The operations a client calls, named as A2A 1.0 names them (the rows of
`a2a_core.protocol.v1.operations`), and how a generation encodes each.

Requests are the core's neutral ones (`a2a_core.core.requests`), results the domain model's
objects, so a codec per generation (`codec_v0`, `codec_v1`) is a table from operation to its wire
name, request encoder and result decoder, and the client above never sees a wire type.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Operation:
    """``name``: the 1.0 operation (the key of the HTTP+JSON routes); ``method``: the JSON-RPC
    method it is sent as. ``decode`` raises ValueError (pydantic's ValidationError among them)
    for an answer that is not the operation's result."""

    name: str
    method: str
    encode: Callable[[Any], dict[str, Any]]
    decode: Callable[[Any], Any]


Codec = Mapping[str, Operation]


def table(*operations: Operation) -> Codec:
    return {operation.name: operation for operation in operations}
