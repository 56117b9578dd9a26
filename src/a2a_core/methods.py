"""The A2A 0.2.5 method table: method name -> (params model, handler)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from a2a_core.core.caller import Caller
from a2a_core.core.engine import TaskEngine
from a2a_core.core.errors import PushNotificationNotSupportedError, UnsupportedOperationError
from a2a_core.jsonrpc import Method
from a2a_core.streaming import TaskStreams
from a2a_core.types import (
    DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams,
    MessageSendParams,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
)
from a2a_core.types.method_names import MethodName

if TYPE_CHECKING:
    from a2a_core.push.service import PushConfigService


async def _streaming_disabled(params: Any, caller: Caller) -> NoReturn:
    raise UnsupportedOperationError(
        "Streaming is not enabled on this server (capabilities.streaming is false); "
        "use message/send and tasks/get"
    )


async def _push_disabled(params: Any, caller: Caller) -> NoReturn:
    raise PushNotificationNotSupportedError(
        "This agent does not send push notifications (capabilities.pushNotifications is false)"
    )


def a2a_methods(
    engine: TaskEngine, *, streams: TaskStreams | None, push: PushConfigService | None = None
) -> dict[str, Method]:
    """The method table; ``streams`` None turns streaming off, ``push`` None push notifications
    (the card says so too)."""
    if streams is None:
        stream = Method(MessageSendParams, _streaming_disabled)
        resubscribe = Method(TaskIdParams, _streaming_disabled)
    else:
        stream = Method(MessageSendParams, streams.message_stream, streaming=True)
        resubscribe = Method(TaskIdParams, streams.resubscribe, streaming=True)
    return {
        MethodName.message_send: Method(MessageSendParams, engine.send_message),
        MethodName.message_stream: stream,
        MethodName.tasks_get: Method(TaskQueryParams, engine.get_task),
        MethodName.tasks_cancel: Method(TaskIdParams, engine.cancel_task),
        MethodName.tasks_resubscribe: resubscribe,
        MethodName.push_config_set: Method(TaskPushNotificationConfig, push.set if push else _push_disabled),
        MethodName.push_config_get: Method(
            GetTaskPushNotificationConfigParams, push.get if push else _push_disabled
        ),
        MethodName.push_config_list: Method(
            ListTaskPushNotificationConfigParams, push.list if push else _push_disabled
        ),
        MethodName.push_config_delete: Method(
            DeleteTaskPushNotificationConfigParams, push.delete if push else _push_disabled
        ),
    }
