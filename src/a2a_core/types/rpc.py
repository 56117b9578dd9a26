"""JSON-RPC 2.0 envelopes, A2A error objects, method params, requests and responses."""

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    StrictFloat,
    StrictInt,
    StrictStr,
    TypeAdapter,
    model_serializer,
)

from a2a_core.types._base import DEFER, A2ABaseModel
from a2a_core.types.params import (
    MessageSendParams,
    TaskIdParams,
    TaskQueryParams,
)
from a2a_core.types.push import (
    DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams,
    TaskPushNotificationConfig,
)
from a2a_core.types.tasks import Message, StreamEvent, Task

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


class JSONParseError(JSONRPCError):
    """JSON-RPC error indicating invalid JSON was received by the server."""

    code: Literal[-32700] = -32700
    message: str = "Invalid JSON payload"


class InvalidRequestError(JSONRPCError):
    """JSON-RPC error indicating the JSON sent is not a valid Request object."""

    code: Literal[-32600] = -32600
    message: str = "Request payload validation error"


class MethodNotFoundError(JSONRPCError):
    """JSON-RPC error indicating the method does not exist or is not available."""

    code: Literal[-32601] = -32601
    message: str = "Method not found"


class InvalidParamsError(JSONRPCError):
    """JSON-RPC error indicating invalid method parameter(s)."""

    code: Literal[-32602] = -32602
    message: str = "Invalid parameters"


class InternalError(JSONRPCError):
    """JSON-RPC error indicating an internal JSON-RPC error on the server."""

    code: Literal[-32603] = -32603
    message: str = "Internal error"


class TaskNotFoundError(JSONRPCError):
    """A2A specific error indicating the requested task ID was not found."""

    code: Literal[-32001] = -32001
    message: str = "Task not found"


class TaskNotCancelableError(JSONRPCError):
    """A2A specific error indicating the task is in a state where it cannot be canceled."""

    code: Literal[-32002] = -32002
    message: str = "Task cannot be canceled"


class PushNotificationNotSupportedError(JSONRPCError):
    """A2A specific error indicating the agent does not support push notifications."""

    code: Literal[-32003] = -32003
    message: str = "Push Notification is not supported"


class UnsupportedOperationError(JSONRPCError):
    """A2A specific error indicating the requested operation is not supported by the agent."""

    code: Literal[-32004] = -32004
    message: str = "This operation is not supported"


class ContentTypeNotSupportedError(JSONRPCError):
    """A2A specific error: incompatible content types between request and agent capabilities."""

    code: Literal[-32005] = -32005
    message: str = "Incompatible content types"


class InvalidAgentResponseError(JSONRPCError):
    """A2A specific error indicating the agent returned an invalid response for the method."""

    code: Literal[-32006] = -32006
    message: str = "Invalid agent response"


A2AError = Annotated[
    JSONParseError
    | InvalidRequestError
    | MethodNotFoundError
    | InvalidParamsError
    | InternalError
    | TaskNotFoundError
    | TaskNotCancelableError
    | PushNotificationNotSupportedError
    | UnsupportedOperationError
    | ContentTypeNotSupportedError
    | InvalidAgentResponseError,
    Field(discriminator="code"),
]

a2a_error_adapter: TypeAdapter[JSONRPCError] = TypeAdapter(A2AError, config=DEFER)


class _A2ARequestBase(JSONRPCMessage):
    # The schema requires `id`; JSON-RPC allows null and some clients send it, so null is kept.
    _null_keys: ClassVar[tuple[str, ...]] = ("id",)

    id: RequestId | None


class SendMessageRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'message/send' method."""

    method: Literal["message/send"] = "message/send"
    params: MessageSendParams


class SendStreamingMessageRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'message/stream' method."""

    method: Literal["message/stream"] = "message/stream"
    params: MessageSendParams


class GetTaskRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'tasks/get' method."""

    method: Literal["tasks/get"] = "tasks/get"
    params: TaskQueryParams


class CancelTaskRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'tasks/cancel' method."""

    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskIdParams


class SetTaskPushNotificationConfigRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'tasks/pushNotificationConfig/set' method."""

    method: Literal["tasks/pushNotificationConfig/set"] = "tasks/pushNotificationConfig/set"
    params: TaskPushNotificationConfig


class GetTaskPushNotificationConfigRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'tasks/pushNotificationConfig/get' method."""

    method: Literal["tasks/pushNotificationConfig/get"] = "tasks/pushNotificationConfig/get"
    # Smart union: a bare {"id"} stays TaskIdParams, one naming a config id becomes the richer model.
    params: TaskIdParams | GetTaskPushNotificationConfigParams


class TaskResubscriptionRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'tasks/resubscribe' method."""

    method: Literal["tasks/resubscribe"] = "tasks/resubscribe"
    params: TaskIdParams


class ListTaskPushNotificationConfigRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'tasks/pushNotificationConfig/list' method."""

    method: Literal["tasks/pushNotificationConfig/list"] = "tasks/pushNotificationConfig/list"
    params: ListTaskPushNotificationConfigParams


class DeleteTaskPushNotificationConfigRequest(_A2ARequestBase):
    """JSON-RPC request model for the 'tasks/pushNotificationConfig/delete' method."""

    method: Literal["tasks/pushNotificationConfig/delete"] = "tasks/pushNotificationConfig/delete"
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
