"""A2A 0.2.5 protocol types: one pydantic model (or union alias) per schema definition.

Submodules load on first use (PEP 562), so a Lambda cold start pays only for the types its
request path touches; the JSON-RPC envelope models in `rpc` are for clients and tests.
"""

from typing import TYPE_CHECKING

from a2a_core._lazy import lazy_attributes

if TYPE_CHECKING:
    from a2a_core.types._base import (
        A2ABaseModel as A2ABaseModel,
    )
    from a2a_core.types._base import (
        to_wire as to_wire,
    )
    from a2a_core.types.card import (
        AgentCapabilities as AgentCapabilities,
    )
    from a2a_core.types.card import (
        AgentCard as AgentCard,
    )
    from a2a_core.types.card import (
        AgentExtension as AgentExtension,
    )
    from a2a_core.types.card import (
        AgentInterface as AgentInterface,
    )
    from a2a_core.types.card import (
        AgentProvider as AgentProvider,
    )
    from a2a_core.types.card import (
        AgentSkill as AgentSkill,
    )
    from a2a_core.types.card import (
        APIKeySecurityScheme as APIKeySecurityScheme,
    )
    from a2a_core.types.card import (
        AuthorizationCodeOAuthFlow as AuthorizationCodeOAuthFlow,
    )
    from a2a_core.types.card import (
        ClientCredentialsOAuthFlow as ClientCredentialsOAuthFlow,
    )
    from a2a_core.types.card import (
        HTTPAuthSecurityScheme as HTTPAuthSecurityScheme,
    )
    from a2a_core.types.card import (
        ImplicitOAuthFlow as ImplicitOAuthFlow,
    )
    from a2a_core.types.card import (
        OAuth2SecurityScheme as OAuth2SecurityScheme,
    )
    from a2a_core.types.card import (
        OAuthFlows as OAuthFlows,
    )
    from a2a_core.types.card import (
        OpenIdConnectSecurityScheme as OpenIdConnectSecurityScheme,
    )
    from a2a_core.types.card import (
        PasswordOAuthFlow as PasswordOAuthFlow,
    )
    from a2a_core.types.card import (
        SecurityScheme as SecurityScheme,
    )
    from a2a_core.types.card import (
        SecuritySchemeBase as SecuritySchemeBase,
    )
    from a2a_core.types.card import (
        security_scheme_adapter as security_scheme_adapter,
    )
    from a2a_core.types.params import (
        MessageSendConfiguration as MessageSendConfiguration,
    )
    from a2a_core.types.params import (
        MessageSendParams as MessageSendParams,
    )
    from a2a_core.types.params import (
        TaskIdParams as TaskIdParams,
    )
    from a2a_core.types.params import (
        TaskQueryParams as TaskQueryParams,
    )
    from a2a_core.types.parts import (
        DataPart as DataPart,
    )
    from a2a_core.types.parts import (
        FileBase as FileBase,
    )
    from a2a_core.types.parts import (
        FilePart as FilePart,
    )
    from a2a_core.types.parts import (
        FileWithBytes as FileWithBytes,
    )
    from a2a_core.types.parts import (
        FileWithUri as FileWithUri,
    )
    from a2a_core.types.parts import (
        Part as Part,
    )
    from a2a_core.types.parts import (
        PartBase as PartBase,
    )
    from a2a_core.types.parts import (
        TextPart as TextPart,
    )
    from a2a_core.types.parts import (
        part_adapter as part_adapter,
    )
    from a2a_core.types.push import (
        DeleteTaskPushNotificationConfigParams as DeleteTaskPushNotificationConfigParams,
    )
    from a2a_core.types.push import (
        GetTaskPushNotificationConfigParams as GetTaskPushNotificationConfigParams,
    )
    from a2a_core.types.push import (
        ListTaskPushNotificationConfigParams as ListTaskPushNotificationConfigParams,
    )
    from a2a_core.types.push import (
        PushNotificationAuthenticationInfo as PushNotificationAuthenticationInfo,
    )
    from a2a_core.types.push import (
        PushNotificationConfig as PushNotificationConfig,
    )
    from a2a_core.types.push import (
        TaskPushNotificationConfig as TaskPushNotificationConfig,
    )
    from a2a_core.types.rpc import (
        A2AError as A2AError,
    )
    from a2a_core.types.rpc import (
        A2ARequest as A2ARequest,
    )
    from a2a_core.types.rpc import (
        CancelTaskRequest as CancelTaskRequest,
    )
    from a2a_core.types.rpc import (
        CancelTaskResponse as CancelTaskResponse,
    )
    from a2a_core.types.rpc import (
        CancelTaskSuccessResponse as CancelTaskSuccessResponse,
    )
    from a2a_core.types.rpc import (
        ContentTypeNotSupportedError as ContentTypeNotSupportedError,
    )
    from a2a_core.types.rpc import (
        DeleteTaskPushNotificationConfigRequest as DeleteTaskPushNotificationConfigRequest,
    )
    from a2a_core.types.rpc import (
        DeleteTaskPushNotificationConfigResponse as DeleteTaskPushNotificationConfigResponse,
    )
    from a2a_core.types.rpc import (
        DeleteTaskPushNotificationConfigSuccessResponse as DeleteTaskPushNotificationConfigSuccessResponse,
    )
    from a2a_core.types.rpc import (
        GetTaskPushNotificationConfigRequest as GetTaskPushNotificationConfigRequest,
    )
    from a2a_core.types.rpc import (
        GetTaskPushNotificationConfigResponse as GetTaskPushNotificationConfigResponse,
    )
    from a2a_core.types.rpc import (
        GetTaskPushNotificationConfigSuccessResponse as GetTaskPushNotificationConfigSuccessResponse,
    )
    from a2a_core.types.rpc import (
        GetTaskRequest as GetTaskRequest,
    )
    from a2a_core.types.rpc import (
        GetTaskResponse as GetTaskResponse,
    )
    from a2a_core.types.rpc import (
        GetTaskSuccessResponse as GetTaskSuccessResponse,
    )
    from a2a_core.types.rpc import (
        InternalError as InternalError,
    )
    from a2a_core.types.rpc import (
        InvalidAgentResponseError as InvalidAgentResponseError,
    )
    from a2a_core.types.rpc import (
        InvalidParamsError as InvalidParamsError,
    )
    from a2a_core.types.rpc import (
        InvalidRequestError as InvalidRequestError,
    )
    from a2a_core.types.rpc import (
        JSONParseError as JSONParseError,
    )
    from a2a_core.types.rpc import (
        JSONRPCError as JSONRPCError,
    )
    from a2a_core.types.rpc import (
        JSONRPCErrorResponse as JSONRPCErrorResponse,
    )
    from a2a_core.types.rpc import (
        JSONRPCMessage as JSONRPCMessage,
    )
    from a2a_core.types.rpc import (
        JSONRPCRequest as JSONRPCRequest,
    )
    from a2a_core.types.rpc import (
        JSONRPCResponse as JSONRPCResponse,
    )
    from a2a_core.types.rpc import (
        JSONRPCSuccessResponse as JSONRPCSuccessResponse,
    )
    from a2a_core.types.rpc import (
        ListTaskPushNotificationConfigRequest as ListTaskPushNotificationConfigRequest,
    )
    from a2a_core.types.rpc import (
        ListTaskPushNotificationConfigResponse as ListTaskPushNotificationConfigResponse,
    )
    from a2a_core.types.rpc import (
        ListTaskPushNotificationConfigSuccessResponse as ListTaskPushNotificationConfigSuccessResponse,
    )
    from a2a_core.types.rpc import (
        MethodNotFoundError as MethodNotFoundError,
    )
    from a2a_core.types.rpc import (
        PushNotificationNotSupportedError as PushNotificationNotSupportedError,
    )
    from a2a_core.types.rpc import (
        RequestId as RequestId,
    )
    from a2a_core.types.rpc import (
        SendMessageRequest as SendMessageRequest,
    )
    from a2a_core.types.rpc import (
        SendMessageResponse as SendMessageResponse,
    )
    from a2a_core.types.rpc import (
        SendMessageSuccessResponse as SendMessageSuccessResponse,
    )
    from a2a_core.types.rpc import (
        SendStreamingMessageRequest as SendStreamingMessageRequest,
    )
    from a2a_core.types.rpc import (
        SendStreamingMessageResponse as SendStreamingMessageResponse,
    )
    from a2a_core.types.rpc import (
        SendStreamingMessageSuccessResponse as SendStreamingMessageSuccessResponse,
    )
    from a2a_core.types.rpc import (
        SetTaskPushNotificationConfigRequest as SetTaskPushNotificationConfigRequest,
    )
    from a2a_core.types.rpc import (
        SetTaskPushNotificationConfigResponse as SetTaskPushNotificationConfigResponse,
    )
    from a2a_core.types.rpc import (
        SetTaskPushNotificationConfigSuccessResponse as SetTaskPushNotificationConfigSuccessResponse,
    )
    from a2a_core.types.rpc import (
        TaskNotCancelableError as TaskNotCancelableError,
    )
    from a2a_core.types.rpc import (
        TaskNotFoundError as TaskNotFoundError,
    )
    from a2a_core.types.rpc import (
        TaskResubscriptionRequest as TaskResubscriptionRequest,
    )
    from a2a_core.types.rpc import (
        UnsupportedOperationError as UnsupportedOperationError,
    )
    from a2a_core.types.rpc import (
        a2a_error_adapter as a2a_error_adapter,
    )
    from a2a_core.types.rpc import (
        a2a_request_adapter as a2a_request_adapter,
    )
    from a2a_core.types.tasks import (
        Artifact as Artifact,
    )
    from a2a_core.types.tasks import (
        Message as Message,
    )
    from a2a_core.types.tasks import (
        Role as Role,
    )
    from a2a_core.types.tasks import (
        StreamEvent as StreamEvent,
    )
    from a2a_core.types.tasks import (
        Task as Task,
    )
    from a2a_core.types.tasks import (
        TaskArtifactUpdateEvent as TaskArtifactUpdateEvent,
    )
    from a2a_core.types.tasks import (
        TaskState as TaskState,
    )
    from a2a_core.types.tasks import (
        TaskStatus as TaskStatus,
    )
    from a2a_core.types.tasks import (
        TaskStatusUpdateEvent as TaskStatusUpdateEvent,
    )
    from a2a_core.types.tasks import (
        stream_event_adapter as stream_event_adapter,
    )

_MODULES: dict[str, str] = {
    "A2ABaseModel": "a2a_core.types._base",
    "to_wire": "a2a_core.types._base",
    "AgentCapabilities": "a2a_core.types.card",
    "AgentCard": "a2a_core.types.card",
    "AgentExtension": "a2a_core.types.card",
    "AgentInterface": "a2a_core.types.card",
    "AgentProvider": "a2a_core.types.card",
    "AgentSkill": "a2a_core.types.card",
    "APIKeySecurityScheme": "a2a_core.types.card",
    "AuthorizationCodeOAuthFlow": "a2a_core.types.card",
    "ClientCredentialsOAuthFlow": "a2a_core.types.card",
    "HTTPAuthSecurityScheme": "a2a_core.types.card",
    "ImplicitOAuthFlow": "a2a_core.types.card",
    "OAuth2SecurityScheme": "a2a_core.types.card",
    "OAuthFlows": "a2a_core.types.card",
    "OpenIdConnectSecurityScheme": "a2a_core.types.card",
    "PasswordOAuthFlow": "a2a_core.types.card",
    "security_scheme_adapter": "a2a_core.types.card",
    "SecurityScheme": "a2a_core.types.card",
    "SecuritySchemeBase": "a2a_core.types.card",
    "MessageSendConfiguration": "a2a_core.types.params",
    "MessageSendParams": "a2a_core.types.params",
    "TaskIdParams": "a2a_core.types.params",
    "TaskQueryParams": "a2a_core.types.params",
    "DataPart": "a2a_core.types.parts",
    "FileBase": "a2a_core.types.parts",
    "FilePart": "a2a_core.types.parts",
    "FileWithBytes": "a2a_core.types.parts",
    "FileWithUri": "a2a_core.types.parts",
    "Part": "a2a_core.types.parts",
    "part_adapter": "a2a_core.types.parts",
    "PartBase": "a2a_core.types.parts",
    "TextPart": "a2a_core.types.parts",
    "DeleteTaskPushNotificationConfigParams": "a2a_core.types.push",
    "GetTaskPushNotificationConfigParams": "a2a_core.types.push",
    "ListTaskPushNotificationConfigParams": "a2a_core.types.push",
    "PushNotificationAuthenticationInfo": "a2a_core.types.push",
    "PushNotificationConfig": "a2a_core.types.push",
    "TaskPushNotificationConfig": "a2a_core.types.push",
    "a2a_error_adapter": "a2a_core.types.rpc",
    "a2a_request_adapter": "a2a_core.types.rpc",
    "A2AError": "a2a_core.types.rpc",
    "A2ARequest": "a2a_core.types.rpc",
    "CancelTaskRequest": "a2a_core.types.rpc",
    "CancelTaskResponse": "a2a_core.types.rpc",
    "CancelTaskSuccessResponse": "a2a_core.types.rpc",
    "ContentTypeNotSupportedError": "a2a_core.types.rpc",
    "DeleteTaskPushNotificationConfigRequest": "a2a_core.types.rpc",
    "DeleteTaskPushNotificationConfigResponse": "a2a_core.types.rpc",
    "DeleteTaskPushNotificationConfigSuccessResponse": "a2a_core.types.rpc",
    "GetTaskPushNotificationConfigRequest": "a2a_core.types.rpc",
    "GetTaskPushNotificationConfigResponse": "a2a_core.types.rpc",
    "GetTaskPushNotificationConfigSuccessResponse": "a2a_core.types.rpc",
    "GetTaskRequest": "a2a_core.types.rpc",
    "GetTaskResponse": "a2a_core.types.rpc",
    "GetTaskSuccessResponse": "a2a_core.types.rpc",
    "InternalError": "a2a_core.types.rpc",
    "InvalidAgentResponseError": "a2a_core.types.rpc",
    "InvalidParamsError": "a2a_core.types.rpc",
    "InvalidRequestError": "a2a_core.types.rpc",
    "JSONParseError": "a2a_core.types.rpc",
    "JSONRPCError": "a2a_core.types.rpc",
    "JSONRPCErrorResponse": "a2a_core.types.rpc",
    "JSONRPCMessage": "a2a_core.types.rpc",
    "JSONRPCRequest": "a2a_core.types.rpc",
    "JSONRPCResponse": "a2a_core.types.rpc",
    "JSONRPCSuccessResponse": "a2a_core.types.rpc",
    "ListTaskPushNotificationConfigRequest": "a2a_core.types.rpc",
    "ListTaskPushNotificationConfigResponse": "a2a_core.types.rpc",
    "ListTaskPushNotificationConfigSuccessResponse": "a2a_core.types.rpc",
    "MethodNotFoundError": "a2a_core.types.rpc",
    "PushNotificationNotSupportedError": "a2a_core.types.rpc",
    "RequestId": "a2a_core.types.rpc",
    "SendMessageRequest": "a2a_core.types.rpc",
    "SendMessageResponse": "a2a_core.types.rpc",
    "SendMessageSuccessResponse": "a2a_core.types.rpc",
    "SendStreamingMessageRequest": "a2a_core.types.rpc",
    "SendStreamingMessageResponse": "a2a_core.types.rpc",
    "SendStreamingMessageSuccessResponse": "a2a_core.types.rpc",
    "SetTaskPushNotificationConfigRequest": "a2a_core.types.rpc",
    "SetTaskPushNotificationConfigResponse": "a2a_core.types.rpc",
    "SetTaskPushNotificationConfigSuccessResponse": "a2a_core.types.rpc",
    "TaskNotCancelableError": "a2a_core.types.rpc",
    "TaskNotFoundError": "a2a_core.types.rpc",
    "TaskResubscriptionRequest": "a2a_core.types.rpc",
    "UnsupportedOperationError": "a2a_core.types.rpc",
    "Artifact": "a2a_core.types.tasks",
    "Message": "a2a_core.types.tasks",
    "Role": "a2a_core.types.tasks",
    "stream_event_adapter": "a2a_core.types.tasks",
    "StreamEvent": "a2a_core.types.tasks",
    "Task": "a2a_core.types.tasks",
    "TaskArtifactUpdateEvent": "a2a_core.types.tasks",
    "TaskState": "a2a_core.types.tasks",
    "TaskStatus": "a2a_core.types.tasks",
    "TaskStatusUpdateEvent": "a2a_core.types.tasks",
}
__all__ = sorted(_MODULES)

__getattr__ = lazy_attributes(__name__, _MODULES)
