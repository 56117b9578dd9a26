"""The A2A 1.0 method table, for both bindings: each row of `operations.OPERATIONS` as a
`jsonrpc.Method` (decode params, handler, encode result).

JSON-RPC 1.0 dispatches on this table directly; HTTP+JSON (`rest`) resolves a route to the same
operation name and params, so the two bindings cannot drift apart (spec 5.1).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from a2a_core.core.caller import Caller
from a2a_core.core.engine import TaskEngine
from a2a_core.core.errors import A2AError, UnsupportedOperationError
from a2a_core.protocol.jsonrpc import Binding, Method, RequestId, push_disabled, streaming_disabled
from a2a_core.protocol.v1.drafts import as_1_1
from a2a_core.protocol.v1.errors import jsonrpc_error_body
from a2a_core.protocol.v1.operations import (
    GET_PUSH_CONFIG,
    LIST_PUSH_CONFIGS,
    OPERATIONS,
    Operation,
    PushOff,
    Services,
    StreamsOff,
)
from a2a_core.protocol.v1.request_codec import check_tenant
from a2a_core.protocol.v1.result_codec import (
    event_json,
    redacted_push_config_json,
    redacted_push_config_page_json,
)
from a2a_core.protocol.versions import Version

if TYPE_CHECKING:
    from a2a_core.core.streams import TaskStreams
    from a2a_core.push.service import PushConfigService

ExtendedCard = Callable[[Caller], Awaitable[bytes]]

_STREAMS_OFF = StreamsOff(*[streaming_disabled("SendMessage and GetTask")] * 2)
_PUSH_OFF = PushOff(*[push_disabled] * 4)


def _extended_card(card: ExtendedCard | None) -> Callable[[Any, Caller], Awaitable[bytes]]:
    async def handler(request: Any, caller: Caller) -> bytes:
        if card is None:
            raise UnsupportedOperationError(
                "This agent has no extended agent card (capabilities.extendedAgentCard is false)"
            )
        return await card(caller)

    return handler


def v1_methods(
    engine: TaskEngine,
    *,
    streams: TaskStreams | None,
    push: PushConfigService | None = None,
    extended_card: ExtendedCard | None = None,
    tenant: str | None = None,
    operations: Mapping[str, Operation] = OPERATIONS,
) -> dict[str, Method]:
    """The 1.0 operations; ``streams`` None turns streaming off, ``push`` None push notifications;
    ``tenant`` is the one tenant served (None: a request naming any tenant is refused)."""
    services = Services(engine, streams or _STREAMS_OFF, push or _PUSH_OFF, _extended_card(extended_card))
    return {
        name: Method(
            _decoder(operation, tenant),
            operation.serve(services),
            operation.encode_result,
            streaming=operation.streaming and streams is not None,
        )
        for name, operation in operations.items()
    }


# The 1.1 draft's own answers (PR #1750): push configs read back without their credentials.
_DRAFT_RESULTS: Mapping[str, Callable[[Any], bytes]] = {
    GET_PUSH_CONFIG.name: redacted_push_config_json,
    LIST_PUSH_CONFIGS.name: redacted_push_config_page_json,
}


def draft_methods(methods: Mapping[str, Method]) -> dict[str, Method]:
    """The 1.1 draft's methods: the 1.0 ones, their params read and results written as 1.1."""
    return {
        name: replace(
            method,
            decode=as_1_1(method.decode),
            encode=as_1_1(_DRAFT_RESULTS.get(name, method.encode)),
            encode_event=as_1_1(method.encode_event or event_json),
        )
        for name, method in methods.items()
    }


def _decoder(operation: Operation, tenant: str | None) -> Callable[[dict[str, Any]], Any]:
    def decode(params: dict[str, Any]) -> Any:
        request = operation.decode(params)
        check_tenant(getattr(request, "tenant", None), tenant)
        return request

    return decode


def v1_binding(
    methods: dict[str, Method], foreign: Callable[[str], str | None], version: Version = Version.V1_0
) -> Binding:
    """The JSON-RPC binding of ``methods`` (1.0's, or `draft_methods` with ``version`` 1.1)."""
    encode_event = as_1_1(event_json) if version is Version.V1_1 else event_json
    return Binding(version, methods, error_body=_error_body, encode_event=encode_event, foreign=foreign)


def _error_body(request_id: RequestId, error: A2AError) -> bytes:
    return jsonrpc_error_body(request_id, error)
