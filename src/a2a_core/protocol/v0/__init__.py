"""A2A 0.2.5 and 0.3 over JSON-RPC: method params, JSON-RPC envelopes and error objects, method
names, the method table (`methods`) and fasta2a's dialect of it (`fasta2a`). Their tasks, messages
and parts are the domain model's own JSON (`a2a_core.domain`); what is only 0.x lives here.
Submodules load on first use."""

from typing import TYPE_CHECKING

from a2a_core._lazy import lazy_attributes

if TYPE_CHECKING:
    from a2a_core.protocol.v0.method_names import (
        MethodName as MethodName,
    )
    from a2a_core.protocol.v0.params import (
        DeleteTaskPushNotificationConfigParams as DeleteTaskPushNotificationConfigParams,
    )
    from a2a_core.protocol.v0.params import (
        GetTaskPushNotificationConfigParams as GetTaskPushNotificationConfigParams,
    )
    from a2a_core.protocol.v0.params import (
        ListTaskPushNotificationConfigParams as ListTaskPushNotificationConfigParams,
    )
    from a2a_core.protocol.v0.params import (
        MessageSendConfiguration as MessageSendConfiguration,
    )
    from a2a_core.protocol.v0.params import (
        MessageSendParams as MessageSendParams,
    )
    from a2a_core.protocol.v0.params import (
        TaskIdParams as TaskIdParams,
    )
    from a2a_core.protocol.v0.params import (
        TaskPushNotificationConfig as TaskPushNotificationConfig,
    )
    from a2a_core.protocol.v0.params import (
        TaskQueryParams as TaskQueryParams,
    )
    from a2a_core.protocol.v0.rpc import (
        A2AError as A2AError,
    )
    from a2a_core.protocol.v0.rpc import (
        A2ARequest as A2ARequest,
    )
    from a2a_core.protocol.v0.rpc import (
        CancelTaskRequest as CancelTaskRequest,
    )
    from a2a_core.protocol.v0.rpc import (
        CancelTaskResponse as CancelTaskResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        CancelTaskSuccessResponse as CancelTaskSuccessResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        ContentTypeNotSupportedError as ContentTypeNotSupportedError,
    )
    from a2a_core.protocol.v0.rpc import (
        DeleteTaskPushNotificationConfigRequest as DeleteTaskPushNotificationConfigRequest,
    )
    from a2a_core.protocol.v0.rpc import (
        DeleteTaskPushNotificationConfigResponse as DeleteTaskPushNotificationConfigResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        DeleteTaskPushNotificationConfigSuccessResponse as DeleteTaskPushNotificationConfigSuccessResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        GetTaskPushNotificationConfigRequest as GetTaskPushNotificationConfigRequest,
    )
    from a2a_core.protocol.v0.rpc import (
        GetTaskPushNotificationConfigResponse as GetTaskPushNotificationConfigResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        GetTaskPushNotificationConfigSuccessResponse as GetTaskPushNotificationConfigSuccessResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        GetTaskRequest as GetTaskRequest,
    )
    from a2a_core.protocol.v0.rpc import (
        GetTaskResponse as GetTaskResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        GetTaskSuccessResponse as GetTaskSuccessResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        InternalError as InternalError,
    )
    from a2a_core.protocol.v0.rpc import (
        InvalidAgentResponseError as InvalidAgentResponseError,
    )
    from a2a_core.protocol.v0.rpc import (
        InvalidParamsError as InvalidParamsError,
    )
    from a2a_core.protocol.v0.rpc import (
        InvalidRequestError as InvalidRequestError,
    )
    from a2a_core.protocol.v0.rpc import (
        JSONParseError as JSONParseError,
    )
    from a2a_core.protocol.v0.rpc import (
        JSONRPCError as JSONRPCError,
    )
    from a2a_core.protocol.v0.rpc import (
        JSONRPCErrorResponse as JSONRPCErrorResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        JSONRPCMessage as JSONRPCMessage,
    )
    from a2a_core.protocol.v0.rpc import (
        JSONRPCRequest as JSONRPCRequest,
    )
    from a2a_core.protocol.v0.rpc import (
        JSONRPCResponse as JSONRPCResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        JSONRPCSuccessResponse as JSONRPCSuccessResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        ListTaskPushNotificationConfigRequest as ListTaskPushNotificationConfigRequest,
    )
    from a2a_core.protocol.v0.rpc import (
        ListTaskPushNotificationConfigResponse as ListTaskPushNotificationConfigResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        ListTaskPushNotificationConfigSuccessResponse as ListTaskPushNotificationConfigSuccessResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        MethodNotFoundError as MethodNotFoundError,
    )
    from a2a_core.protocol.v0.rpc import (
        PushNotificationNotSupportedError as PushNotificationNotSupportedError,
    )
    from a2a_core.protocol.v0.rpc import (
        RequestId as RequestId,
    )
    from a2a_core.protocol.v0.rpc import (
        SendMessageRequest as SendMessageRequest,
    )
    from a2a_core.protocol.v0.rpc import (
        SendMessageResponse as SendMessageResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        SendMessageSuccessResponse as SendMessageSuccessResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        SendStreamingMessageRequest as SendStreamingMessageRequest,
    )
    from a2a_core.protocol.v0.rpc import (
        SendStreamingMessageResponse as SendStreamingMessageResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        SendStreamingMessageSuccessResponse as SendStreamingMessageSuccessResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        SetTaskPushNotificationConfigRequest as SetTaskPushNotificationConfigRequest,
    )
    from a2a_core.protocol.v0.rpc import (
        SetTaskPushNotificationConfigResponse as SetTaskPushNotificationConfigResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        SetTaskPushNotificationConfigSuccessResponse as SetTaskPushNotificationConfigSuccessResponse,
    )
    from a2a_core.protocol.v0.rpc import (
        TaskNotCancelableError as TaskNotCancelableError,
    )
    from a2a_core.protocol.v0.rpc import (
        TaskNotFoundError as TaskNotFoundError,
    )
    from a2a_core.protocol.v0.rpc import (
        TaskResubscriptionRequest as TaskResubscriptionRequest,
    )
    from a2a_core.protocol.v0.rpc import (
        UnsupportedOperationError as UnsupportedOperationError,
    )
    from a2a_core.protocol.v0.rpc import (
        a2a_error_adapter as a2a_error_adapter,
    )
    from a2a_core.protocol.v0.rpc import (
        a2a_request_adapter as a2a_request_adapter,
    )

_MODULES: dict[str, str] = {
    "MethodName": "a2a_core.protocol.v0.method_names",
    "DeleteTaskPushNotificationConfigParams": "a2a_core.protocol.v0.params",
    "GetTaskPushNotificationConfigParams": "a2a_core.protocol.v0.params",
    "ListTaskPushNotificationConfigParams": "a2a_core.protocol.v0.params",
    "MessageSendConfiguration": "a2a_core.protocol.v0.params",
    "MessageSendParams": "a2a_core.protocol.v0.params",
    "TaskIdParams": "a2a_core.protocol.v0.params",
    "TaskPushNotificationConfig": "a2a_core.protocol.v0.params",
    "TaskQueryParams": "a2a_core.protocol.v0.params",
    "a2a_error_adapter": "a2a_core.protocol.v0.rpc",
    "a2a_request_adapter": "a2a_core.protocol.v0.rpc",
    "A2AError": "a2a_core.protocol.v0.rpc",
    "A2ARequest": "a2a_core.protocol.v0.rpc",
    "CancelTaskRequest": "a2a_core.protocol.v0.rpc",
    "CancelTaskResponse": "a2a_core.protocol.v0.rpc",
    "CancelTaskSuccessResponse": "a2a_core.protocol.v0.rpc",
    "ContentTypeNotSupportedError": "a2a_core.protocol.v0.rpc",
    "DeleteTaskPushNotificationConfigRequest": "a2a_core.protocol.v0.rpc",
    "DeleteTaskPushNotificationConfigResponse": "a2a_core.protocol.v0.rpc",
    "DeleteTaskPushNotificationConfigSuccessResponse": "a2a_core.protocol.v0.rpc",
    "GetTaskPushNotificationConfigRequest": "a2a_core.protocol.v0.rpc",
    "GetTaskPushNotificationConfigResponse": "a2a_core.protocol.v0.rpc",
    "GetTaskPushNotificationConfigSuccessResponse": "a2a_core.protocol.v0.rpc",
    "GetTaskRequest": "a2a_core.protocol.v0.rpc",
    "GetTaskResponse": "a2a_core.protocol.v0.rpc",
    "GetTaskSuccessResponse": "a2a_core.protocol.v0.rpc",
    "InternalError": "a2a_core.protocol.v0.rpc",
    "InvalidAgentResponseError": "a2a_core.protocol.v0.rpc",
    "InvalidParamsError": "a2a_core.protocol.v0.rpc",
    "InvalidRequestError": "a2a_core.protocol.v0.rpc",
    "JSONParseError": "a2a_core.protocol.v0.rpc",
    "JSONRPCError": "a2a_core.protocol.v0.rpc",
    "JSONRPCErrorResponse": "a2a_core.protocol.v0.rpc",
    "JSONRPCMessage": "a2a_core.protocol.v0.rpc",
    "JSONRPCRequest": "a2a_core.protocol.v0.rpc",
    "JSONRPCResponse": "a2a_core.protocol.v0.rpc",
    "JSONRPCSuccessResponse": "a2a_core.protocol.v0.rpc",
    "ListTaskPushNotificationConfigRequest": "a2a_core.protocol.v0.rpc",
    "ListTaskPushNotificationConfigResponse": "a2a_core.protocol.v0.rpc",
    "ListTaskPushNotificationConfigSuccessResponse": "a2a_core.protocol.v0.rpc",
    "MethodNotFoundError": "a2a_core.protocol.v0.rpc",
    "PushNotificationNotSupportedError": "a2a_core.protocol.v0.rpc",
    "RequestId": "a2a_core.protocol.v0.rpc",
    "SendMessageRequest": "a2a_core.protocol.v0.rpc",
    "SendMessageResponse": "a2a_core.protocol.v0.rpc",
    "SendMessageSuccessResponse": "a2a_core.protocol.v0.rpc",
    "SendStreamingMessageRequest": "a2a_core.protocol.v0.rpc",
    "SendStreamingMessageResponse": "a2a_core.protocol.v0.rpc",
    "SendStreamingMessageSuccessResponse": "a2a_core.protocol.v0.rpc",
    "SetTaskPushNotificationConfigRequest": "a2a_core.protocol.v0.rpc",
    "SetTaskPushNotificationConfigResponse": "a2a_core.protocol.v0.rpc",
    "SetTaskPushNotificationConfigSuccessResponse": "a2a_core.protocol.v0.rpc",
    "TaskNotCancelableError": "a2a_core.protocol.v0.rpc",
    "TaskNotFoundError": "a2a_core.protocol.v0.rpc",
    "TaskResubscriptionRequest": "a2a_core.protocol.v0.rpc",
    "UnsupportedOperationError": "a2a_core.protocol.v0.rpc",
}
__all__ = sorted(_MODULES)

__getattr__ = lazy_attributes(__name__, _MODULES)
