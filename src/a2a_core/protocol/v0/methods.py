"""The A2A 0.2.5 / 0.3 method table: method name -> (decode params, handler, encode result).

0.x params are validated with this generation's models and turned into the core's neutral
requests; results are the domain model's own JSON (0.x tasks, messages and events have its shape).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from a2a_core.core.caller import Caller
from a2a_core.core.engine import TaskEngine
from a2a_core.core.errors import (
    A2AError,
    ExtendedAgentCardNotConfiguredError,
)
from a2a_core.core.requests import (
    PushConfigPage,
    PushConfigQuery,
    PushConfigRef,
    SendRequest,
    TaskPushConfig,
    TaskQuery,
    TaskRef,
)
from a2a_core.domain.scalars import WIRE_INPUT
from a2a_core.protocol.jsonrpc import (
    Binding,
    Method,
    RequestId,
    error_body,
    push_disabled,
    streaming_disabled,
)
from a2a_core.protocol.v0 import fasta2a
from a2a_core.protocol.v0.method_names import MethodName
from a2a_core.protocol.v0.wire import (
    DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams,
    MessageSendParams,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
)
from a2a_core.protocol.versions import Version

if TYPE_CHECKING:
    from a2a_core.core.streams import TaskStreams
    from a2a_core.push.service import PushConfigService

M = TypeVar("M", bound=BaseModel)


def _send(params: MessageSendParams) -> SendRequest:
    config = params.configuration
    return SendRequest(
        message=params.message,
        blocking=config.blocking if config else None,
        history_length=config.history_length if config else None,
        accepted_output_modes=tuple(config.accepted_output_modes)
        if config and config.accepted_output_modes
        else None,
        push_config=config.push_notification_config if config else None,
        metadata=params.metadata,
    )


def _query(params: TaskQueryParams) -> TaskQuery:
    return TaskQuery(task_id=params.id, history_length=params.history_length)


def _ref(params: TaskIdParams) -> TaskRef:
    return TaskRef(task_id=params.id, metadata=params.metadata)


def _set_push(params: TaskPushNotificationConfig) -> TaskPushConfig:
    return TaskPushConfig(task_id=params.task_id, config=params.push_notification_config)


def _get_push(params: GetTaskPushNotificationConfigParams) -> PushConfigRef:
    return PushConfigRef(task_id=params.id, config_id=params.push_notification_config_id)


def _list_push(params: ListTaskPushNotificationConfigParams) -> PushConfigQuery:
    return PushConfigQuery(task_id=params.id)


def _delete_push(params: DeleteTaskPushNotificationConfigParams) -> PushConfigRef:
    return PushConfigRef(task_id=params.id, config_id=params.push_notification_config_id)


def encode_model(result: BaseModel | None) -> bytes:
    """A domain object (or a 0.x wire object) as its camelCase JSON; None as ``null``."""
    if result is None:
        return b"null"
    return result.model_dump_json(by_alias=True, exclude_none=True).encode()


def _decoder(model: type[M], to_request: Callable[[M], Any]) -> Callable[[dict[str, Any]], Any]:
    return lambda params: to_request(model.model_validate(params, context=WIRE_INPUT))


def _method(
    decode: Callable[[dict[str, Any]], Any],
    handler: Callable[[Any, Caller], Any],
    encode: Callable[[Any], bytes] = encode_model,
    *,
    streaming: bool = False,
) -> Method:
    return Method(decode, handler, encode, streaming=streaming, params_required=True)


def _push_config(config: TaskPushConfig) -> TaskPushNotificationConfig:
    return TaskPushNotificationConfig(task_id=config.task_id, push_notification_config=config.config)


def _encode_push(config: TaskPushConfig) -> bytes:
    return encode_model(_push_config(config))


def _encode_push_page(page: PushConfigPage) -> bytes:
    return b"[" + b",".join(_encode_push(config) for config in page.configs) + b"]"


_streaming_disabled = streaming_disabled("message/send and tasks/get")


def v0_methods(
    engine: TaskEngine,
    *,
    streams: TaskStreams | None,
    push: PushConfigService | None = None,
    extended_card: Callable[[Caller], Awaitable[bytes]] | None = None,
    fasta2a_compat: bool = False,
    tenant: str | None = None,
) -> dict[str, Method]:
    """The method table; ``streams`` None turns streaming off, ``push`` None push notifications
    (the card says so too); ``extended_card`` serves 0.3's ``agent/getAuthenticatedExtendedCard``.
    ``fasta2a_compat``: message/send and message/stream also read (and answer) fasta2a's dialect, naming
    ``tenant`` (the one served) or none, as 1.0 requests do (`a2a_core.protocol.v0.fasta2a`)."""
    send = _decoder(MessageSendParams, _send)
    ref = _decoder(TaskIdParams, _ref)
    return {
        MethodName.message_send: _with_fasta2a(_method(send, engine.answer_message), fasta2a_compat, tenant),
        MethodName.message_stream: _with_fasta2a(
            _method(send, streams.message_stream, streaming=True)
            if streams
            else _method(send, _streaming_disabled),
            fasta2a_compat,
            tenant,
        ),
        MethodName.tasks_get: _method(_decoder(TaskQueryParams, _query), engine.get_task),
        MethodName.tasks_cancel: _method(ref, engine.cancel_task),
        MethodName.tasks_resubscribe: _method(ref, streams.resubscribe, streaming=True)
        if streams
        else _method(ref, _streaming_disabled),
        MethodName.push_config_set: _method(
            _decoder(TaskPushNotificationConfig, _set_push),
            push.set if push else push_disabled,
            _encode_push,
        ),
        MethodName.push_config_get: _method(
            _decoder(GetTaskPushNotificationConfigParams, _get_push),
            push.get if push else push_disabled,
            _encode_push,
        ),
        MethodName.push_config_list: _method(
            _decoder(ListTaskPushNotificationConfigParams, _list_push),
            push.list if push else push_disabled,
            _encode_push_page,
        ),
        MethodName.push_config_delete: _method(
            _decoder(DeleteTaskPushNotificationConfigParams, _delete_push),
            push.delete if push else push_disabled,
        ),
        # 0.3; it takes no params.
        MethodName.extended_card: Method(lambda params: None, _extended_card(extended_card), bytes),
    }


def _with_fasta2a(method: Method, accepted: bool, tenant: str | None) -> Method:
    # Accepted or not, fasta2a's message is told apart: refused, it is told how to call instead.
    dialect = fasta2a.dialect(method, tenant=tenant) if accepted else fasta2a.refusal(method)
    return dataclasses.replace(method, dialect=dialect)


def _extended_card(card: Callable[[Caller], Awaitable[bytes]] | None) -> Callable[[Any, Caller], Any]:
    async def handler(request: Any, caller: Caller) -> bytes:
        if card is None:
            raise ExtendedAgentCardNotConfiguredError(
                "This agent has no authenticated extended card (supportsAuthenticatedExtendedCard is false)"
            )
        return await card(caller)

    return handler


def v0_binding(methods: dict[str, Method], foreign: Callable[[str], str | None]) -> Binding:
    return Binding(Version.V0_3, methods, error_body=_error_body, encode_event=encode_model, foreign=foreign)


def _error_body(request_id: RequestId, error: A2AError) -> bytes:
    return error_body(request_id, error)
