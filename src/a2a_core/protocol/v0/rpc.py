"""JSON-RPC 2.0 envelopes, A2A error objects, method params, requests and responses."""

import functools
import operator
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypeAlias

from pydantic import (
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    StrictFloat,
    StrictInt,
    StrictStr,
    TypeAdapter,
    create_model,
    model_serializer,
)

from a2a_core.core import errors
from a2a_core.domain._base import DEFER, A2ABaseModel
from a2a_core.domain.tasks import Message, StreamEvent, Task
from a2a_core.protocol.v0.method_names import MethodName
from a2a_core.protocol.v0.params import (
    DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams,
    MessageSendParams,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
)

# Strict, so `true` is not read as 1 and a bad id type stays a -32600 Invalid Request.
RequestId = StrictStr | StrictInt | StrictFloat


class JSONRPCMessage(A2ABaseModel):
    """Base interface for any JSON-RPC 2.0 request or response."""

    # Keys JSON-RPC requires even when null ("id": null answers an unreadable request id, the
    # delete method answers "result": null); `exclude_none` would otherwise drop them.
    _null_keys: ClassVar[tuple[str, ...]] = ()

    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId | None = None

    @model_serializer(mode="wrap")
    def _keep_null_keys(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        if info.exclude_none and isinstance(data, dict):
            for key in self._null_keys:
                if getattr(self, key) is None:
                    data.setdefault(key, None)
        return data


class JSONRPCRequest(JSONRPCMessage):
    """Represents a JSON-RPC 2.0 Request object."""

    method: str
    params: dict[str, Any] | None = None


class JSONRPCError(A2ABaseModel):
    """Represents a JSON-RPC 2.0 Error object, carried by a JSONRPCErrorResponse."""

    code: int
    message: str
    data: Any = None


class KnownError(JSONRPCError):
    """An error object whose code the protocol defines. Each code has its subclass, made by
    `_error_object` from `a2a_core.core.errors.PROTOCOL_ERRORS`: that exception's name, its code
    (the union's discriminator) and its default message."""

    code: int = errors.InternalError.code
    message: str = errors.InternalError.default_message


def _error_object(error: type[errors.A2AError]) -> type[KnownError]:
    code: Any = Literal[error.code]  # a type made at run time, from the table
    return create_model(
        error.__name__,
        __base__=KnownError,
        __module__=__name__,
        __doc__=f"The JSON-RPC error object of `{error.__module__}.{error.__name__}` ({error.code}).",
        code=(code, error.code),
        message=(str, error.default_message),
    )


_ERROR_OBJECTS = {code: _error_object(error) for code, error in errors.PROTOCOL_ERRORS.items()}
JSONParseError = _ERROR_OBJECTS[errors.JSONParseError.code]
InvalidRequestError = _ERROR_OBJECTS[errors.InvalidRequestError.code]
MethodNotFoundError = _ERROR_OBJECTS[errors.MethodNotFoundError.code]
InvalidParamsError = _ERROR_OBJECTS[errors.InvalidParamsError.code]
InternalError = _ERROR_OBJECTS[errors.InternalError.code]
TaskNotFoundError = _ERROR_OBJECTS[errors.TaskNotFoundError.code]
TaskNotCancelableError = _ERROR_OBJECTS[errors.TaskNotCancelableError.code]
PushNotificationNotSupportedError = _ERROR_OBJECTS[errors.PushNotificationNotSupportedError.code]
UnsupportedOperationError = _ERROR_OBJECTS[errors.UnsupportedOperationError.code]
ContentTypeNotSupportedError = _ERROR_OBJECTS[errors.ContentTypeNotSupportedError.code]
InvalidAgentResponseError = _ERROR_OBJECTS[errors.InvalidAgentResponseError.code]

if TYPE_CHECKING:
    A2AError: TypeAlias = KnownError
else:  # the error objects, discriminated by code
    A2AError = Annotated[functools.reduce(operator.or_, _ERROR_OBJECTS.values()), Field(discriminator="code")]

a2a_error_adapter: TypeAdapter[KnownError] = TypeAdapter(A2AError, config=DEFER)


class _A2ARequestBase(JSONRPCMessage):
    # The schema requires `id`; JSON-RPC allows null and some clients send it, so null is kept.
    _null_keys: ClassVar[tuple[str, ...]] = ("id",)

    id: RequestId | None


class SendMessageRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'message/send' method."""

    method: Literal[MethodName.message_send] = MethodName.message_send
    params: MessageSendParams


class SendStreamingMessageRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'message/stream' method."""

    method: Literal[MethodName.message_stream] = MethodName.message_stream
    params: MessageSendParams


class GetTaskRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'tasks/get' method."""

    method: Literal[MethodName.tasks_get] = MethodName.tasks_get
    params: TaskQueryParams


class CancelTaskRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'tasks/cancel' method."""

    method: Literal[MethodName.tasks_cancel] = MethodName.tasks_cancel
    params: TaskIdParams


class SetTaskPushNotificationConfigRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'tasks/pushNotificationConfig/set' method."""

    method: Literal[MethodName.push_config_set] = MethodName.push_config_set
    params: TaskPushNotificationConfig


class GetTaskPushNotificationConfigRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'tasks/pushNotificationConfig/get' method."""

    method: Literal[MethodName.push_config_get] = MethodName.push_config_get
    # Smart union: a bare {"id"} stays TaskIdParams, one naming a config id becomes the richer model.
    params: TaskIdParams | GetTaskPushNotificationConfigParams


class TaskResubscriptionRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'tasks/resubscribe' method."""

    method: Literal[MethodName.tasks_resubscribe] = MethodName.tasks_resubscribe
    params: TaskIdParams


class ListTaskPushNotificationConfigRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'tasks/pushNotificationConfig/list' method."""

    method: Literal[MethodName.push_config_list] = MethodName.push_config_list
    params: ListTaskPushNotificationConfigParams


class DeleteTaskPushNotificationConfigRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'tasks/pushNotificationConfig/delete' method."""

    method: Literal[MethodName.push_config_delete] = MethodName.push_config_delete
    params: DeleteTaskPushNotificationConfigParams


A2ARequest = Annotated[
    SendMessageRequest
    | SendStreamingMessageRequest
    | GetTaskRequest
    | CancelTaskRequest
    | SetTaskPushNotificationConfigRequest
    | GetTaskPushNotificationConfigRequest
    | TaskResubscriptionRequest
    | ListTaskPushNotificationConfigRequest
    | DeleteTaskPushNotificationConfigRequest,
    Field(discriminator="method"),
]

a2a_request_adapter: TypeAdapter[_A2ARequestBase] = TypeAdapter(A2ARequest, config=DEFER)


class JSONRPCErrorResponse(JSONRPCMessage):
    """Represents a JSON-RPC 2.0 Error Response object."""

    _null_keys: ClassVar[tuple[str, ...]] = ("id",)

    id: RequestId | None
    # Known codes parse into their A2A error class; any other code stays a plain JSONRPCError.
    error: A2AError | JSONRPCError


class JSONRPCSuccessResponse(JSONRPCMessage):
    """Represents a JSON-RPC 2.0 Success Response object."""

    _null_keys: ClassVar[tuple[str, ...]] = ("id", "result")

    id: RequestId | None
    result: Any


class SendMessageSuccessResponse(JSONRPCSuccessResponse):
    """JSON-RPC success response model for the 'message/send' method."""

    result: Annotated[Task | Message, Field(discriminator="kind")]


class SendStreamingMessageSuccessResponse(JSONRPCSuccessResponse):
    """JSON-RPC success response model for the 'message/stream' method."""

    result: StreamEvent


class GetTaskSuccessResponse(JSONRPCSuccessResponse):
    """JSON-RPC success response for the 'tasks/get' method."""

    result: Task


class CancelTaskSuccessResponse(JSONRPCSuccessResponse):
    """JSON-RPC success response model for the 'tasks/cancel' method."""

    result: Task


class SetTaskPushNotificationConfigSuccessResponse(JSONRPCSuccessResponse):
    """JSON-RPC success response model for the 'tasks/pushNotificationConfig/set' method."""

    result: TaskPushNotificationConfig


class GetTaskPushNotificationConfigSuccessResponse(JSONRPCSuccessResponse):
    """JSON-RPC success response model for the 'tasks/pushNotificationConfig/get' method."""

    result: TaskPushNotificationConfig


class ListTaskPushNotificationConfigSuccessResponse(JSONRPCSuccessResponse):
    """JSON-RPC success response model for the 'tasks/pushNotificationConfig/list' method."""

    result: list[TaskPushNotificationConfig]


class DeleteTaskPushNotificationConfigSuccessResponse(JSONRPCSuccessResponse):
    """JSON-RPC success response model for the 'tasks/pushNotificationConfig/delete' method."""

    result: None = None


SendMessageResponse = JSONRPCErrorResponse | SendMessageSuccessResponse
SendStreamingMessageResponse = JSONRPCErrorResponse | SendStreamingMessageSuccessResponse
GetTaskResponse = JSONRPCErrorResponse | GetTaskSuccessResponse
CancelTaskResponse = JSONRPCErrorResponse | CancelTaskSuccessResponse
SetTaskPushNotificationConfigResponse = JSONRPCErrorResponse | SetTaskPushNotificationConfigSuccessResponse
GetTaskPushNotificationConfigResponse = JSONRPCErrorResponse | GetTaskPushNotificationConfigSuccessResponse
ListTaskPushNotificationConfigResponse = JSONRPCErrorResponse | ListTaskPushNotificationConfigSuccessResponse
DeleteTaskPushNotificationConfigResponse = (
    JSONRPCErrorResponse | DeleteTaskPushNotificationConfigSuccessResponse
)
JSONRPCResponse = (
    JSONRPCErrorResponse
    | SendMessageSuccessResponse
    | SendStreamingMessageSuccessResponse
    | GetTaskSuccessResponse
    | CancelTaskSuccessResponse
    | SetTaskPushNotificationConfigSuccessResponse
    | GetTaskPushNotificationConfigSuccessResponse
    | ListTaskPushNotificationConfigSuccessResponse
    | DeleteTaskPushNotificationConfigSuccessResponse
)
