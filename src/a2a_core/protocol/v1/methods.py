"""The A2A 1.0 operations: name -> (decode params, handler, encode result), for both bindings.

JSON-RPC 1.0 dispatches on this table directly; HTTP+JSON (`rest`) resolves a route to the same
operation name and params, so the two bindings cannot drift apart (spec 5.1). Params decode into
the core's neutral requests (`request_codec`); results encode through the 1.0 codec.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from a2a_core.core.caller import Caller
from a2a_core.core.engine import TaskEngine
from a2a_core.core.errors import (
    A2AError,
    UnsupportedOperationError,
)
from a2a_core.core.requests import PushConfigPage, TaskPage, TaskPushConfig
from a2a_core.domain import Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent
from a2a_core.protocol.jsonrpc import Binding, Method, RequestId, push_disabled, streaming_disabled
from a2a_core.protocol.v1.codec import event_to_v1, send_response_to_v1, task_to_v1
from a2a_core.protocol.v1.errors import jsonrpc_error_body
from a2a_core.protocol.v1.push_codec import push_config_to_v1
from a2a_core.protocol.v1.request_codec import (
    OPERATIONS,
    check_tenant,
    decode_params,
    push_config_page_to_v1,
    task_page_to_v1,
)
from a2a_core.protocol.v1.wire.protojson import dump_json
from a2a_core.protocol.versions import Version

if TYPE_CHECKING:
    from a2a_core.core.streams import TaskStreams
    from a2a_core.push.service import PushConfigService

ExtendedCard = Callable[[Caller], Awaitable[bytes]]


def _task(task: Task) -> bytes:
    return dump_json(task_to_v1(task))


def _sent(result: Task | Message) -> bytes:
    return dump_json(send_response_to_v1(result))


def _page(page: TaskPage) -> bytes:
    # The engine already left artifacts out unless the query asked for them.
    return dump_json(task_page_to_v1(page, include_artifacts=True))


def _push(config: TaskPushConfig) -> bytes:
    return dump_json(push_config_to_v1(config))


def _push_page(page: PushConfigPage) -> bytes:
    return dump_json(push_config_page_to_v1(page))


def _empty(result: None) -> bytes:
    return b"{}"  # google.protobuf.Empty


def _raw(document: bytes) -> bytes:
    return document


def encode_event(event: BaseModel) -> bytes:
    """A stream item (the Task, or a status or artifact update) as a 1.0 StreamResponse."""
    if not isinstance(event, Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent):
        raise TypeError(f"not a stream event: {type(event).__name__}")
    return dump_json(event_to_v1(event))


_streaming_disabled = streaming_disabled("SendMessage and GetTask")


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
) -> dict[str, Method]:
    """The 1.0 operations; ``tenant`` is the one tenant served (None: a request naming any
    tenant is refused)."""
    handlers: dict[str, tuple[Callable[[Any, Caller], Awaitable[Any]], Callable[[Any], bytes]]] = {
        "SendMessage": (engine.send_message, _sent),
        "SendStreamingMessage": (streams.message_stream if streams else _streaming_disabled, _raw),
        "GetTask": (engine.get_task, _task),
        "ListTasks": (engine.list_tasks, _page),
        "CancelTask": (engine.cancel_task, _task),
        "SubscribeToTask": (streams.subscribe if streams else _streaming_disabled, _raw),
        "CreateTaskPushNotificationConfig": (push.set if push else push_disabled, _push),
        "GetTaskPushNotificationConfig": (push.get if push else push_disabled, _push),
        "ListTaskPushNotificationConfigs": (push.list if push else push_disabled, _push_page),
        "DeleteTaskPushNotificationConfig": (push.delete if push else push_disabled, _empty),
        "GetExtendedAgentCard": (_extended_card(extended_card), _raw),
    }
    assert set(handlers) == set(OPERATIONS)
    return {
        name: Method(
            _decoder(name, tenant),
            handler,
            encode,
            streaming=streams is not None and name in ("SendStreamingMessage", "SubscribeToTask"),
        )
        for name, (handler, encode) in handlers.items()
    }


def _decoder(operation: str, tenant: str | None) -> Callable[[dict[str, Any]], Any]:
    def decode(params: dict[str, Any]) -> Any:
        request = decode_params(operation, params)
        check_tenant(getattr(request, "tenant", None), tenant)
        return request

    return decode


def v1_binding(methods: dict[str, Method], foreign: dict[str, str]) -> Binding:
    return Binding(Version.V1_0, methods, error_body=_error_body, encode_event=encode_event, foreign=foreign)


def _error_body(request_id: RequestId, error: A2AError) -> bytes:
    return jsonrpc_error_body(request_id, error)
