"""A2A 1.0 (both bindings): each operation's params and result as the server's own operation
table converts them (`a2a_core.protocol.v1.operations`), so the client reads exactly what the
server writes and knows every operation the server serves."""

from __future__ import annotations

from collections.abc import Mapping

from a2a_core.client.operations import Codec, Operation, table
from a2a_core.protocol.v1 import operations as v1


def codec(operations: Mapping[str, v1.Operation] = v1.OPERATIONS) -> Codec:
    """Each operation sent as its own JSON-RPC method (and at its HTTP+JSON routes)."""
    return table(*(Operation(o.name, o.name, o.encode_params, o.decode_result) for o in operations.values()))


CODEC = codec()
