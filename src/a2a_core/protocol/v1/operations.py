"""The A2A 1.0 operations, in one table: everything about an operation is its row here.

A row names the operation (its JSON-RPC method, the key of its HTTP+JSON routes), its request
message, its ``google.api.http`` routes, whether it streams, what serves it, and the four
conversions: params -> core request and result -> JSON (the server's, `request_codec` and
`result_codec`), core request -> params and JSON -> result (the client's). Everything else is
derived from `OPERATIONS`: the server's method table (`methods`), the HTTP+JSON routes
(`rest_routes`), the client's 1.0 codec (`a2a_core.client.codec_v1`) and the hint a 0.x request
naming a 1.0 operation gets (`a2a_core.protocol.bindings`). Adding an operation is adding a row.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import ValidationError

from a2a_core.core.caller import Caller
from a2a_core.core.errors import InvalidParamsError, MethodNotFoundError
from a2a_core.protocol.v1 import request_codec as rq
from a2a_core.protocol.v1 import result_codec as rs
from a2a_core.protocol.v1.wire import params as wq
from a2a_core.protocol.v1.wire import push as wp
from a2a_core.protocol.v1.wire.protojson import ProtoModel, invalid_params

if TYPE_CHECKING:
    from a2a_core.core.engine import TaskEngine
    from a2a_core.core.streams import TaskStreams
    from a2a_core.push.service import PushConfigService

Handler = Callable[[Any, Caller], Awaitable[Any]]

# How a route binds a query parameter (GET and DELETE routes; spec 11.5).
BOOL = "bool"
SCALAR = "scalar"
_NONE: Mapping[str, str] = MappingProxyType({})

# The rows are named tuples, not dataclasses: the table is built on a process's first 1.0 request,
# and a frozen dataclass costs ~0.4 ms to define where a named tuple costs ~0.1 ms.


class Http(NamedTuple):
    """One ``google.api.http`` route of an operation (served also under ``/{tenant}``).

    ``body``: the route binds the JSON body (``body: "*"``); ``query``: the query parameters it
    binds, each BOOL or SCALAR (``tenant`` is bound by every GET and DELETE).
    """

    method: str
    path: str
    body: bool = False
    query: Mapping[str, str] = _NONE


def _post(path: str) -> Http:
    return Http("POST", path, body=True)


def _get(path: str, **query: str) -> Http:
    return Http("GET", path, query={"tenant": SCALAR, **query})


class Services(NamedTuple):
    """What serves the operations, streaming and push already replaced by their refusals where
    the server has them switched off (`methods.v1_methods`)."""

    engine: TaskEngine
    streams: TaskStreams | StreamsOff
    push: PushConfigService | PushOff
    extended_card: Handler


class StreamsOff(NamedTuple):
    message_stream: Handler
    subscribe: Handler


class PushOff(NamedTuple):
    set: Handler
    get: Handler
    list: Handler
    delete: Handler


class Operation(NamedTuple):
    name: str
    request: type[ProtoModel]
    http: tuple[Http, ...]
    serve: Callable[[Services], Handler]
    # The server: request message -> core request; handler's result -> the response JSON.
    decode_params: Callable[[Any], Any]
    encode_result: Callable[[Any], bytes]
    # The client: core request -> params; the response JSON (each event's, streaming) -> result.
    encode_params: Callable[[Any], dict[str, Any]]
    decode_result: Callable[[Any], Any]
    streaming: bool = False

    def decode(self, params: object) -> Any:
        """The core request for this operation's params (absent params read as ``{}``).

        Raises InvalidParamsError (every field violation in ``data``) for params the request
        message refuses.
        """
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise InvalidParamsError(f'Field "params" must be an object for {self.name}')
        try:
            request = self.request.model_validate(params)
        except ValidationError as error:
            raise invalid_params(error) from None
        return self.decode_params(request)


SEND_MESSAGE = Operation(
    "SendMessage",
    wq.SendMessageRequest,
    http=(_post("/message:send"),),
    serve=lambda s: s.engine.answer_message,
    decode_params=rq.send_from_v1,
    encode_result=rs.sent_json,
    encode_params=rq.send_to_v1,
    decode_result=rs.read_sent,
)
SEND_STREAMING_MESSAGE = Operation(
    "SendStreamingMessage",
    wq.SendMessageRequest,
    http=(_post("/message:stream"),),
    serve=lambda s: s.streams.message_stream,
    decode_params=rq.send_from_v1,
    encode_result=rs.document_json,
    encode_params=rq.send_to_v1,
    decode_result=rs.read_event,
    streaming=True,
)
GET_TASK = Operation(
    "GetTask",
    wq.GetTaskRequest,
    http=(_get("/tasks/{id}", historyLength=SCALAR, currentGeneration=SCALAR),),
    serve=lambda s: s.engine.get_task,
    decode_params=rq.task_query_from_v1,
    encode_result=rs.task_json,
    encode_params=rq.task_query_to_v1,
    decode_result=rs.read_task,
)
LIST_TASKS = Operation(
    "ListTasks",
    wq.ListTasksRequest,
    http=(
        _get(
            "/tasks",
            contextId=SCALAR,
            status=SCALAR,
            pageSize=SCALAR,
            pageToken=SCALAR,
            historyLength=SCALAR,
            statusTimestampAfter=SCALAR,
            includeArtifacts=BOOL,
        ),
    ),
    serve=lambda s: s.engine.list_tasks,
    decode_params=rq.list_query_from_v1,
    encode_result=rs.task_page_json,
    encode_params=rq.list_query_to_v1,
    decode_result=rs.read_task_page,
)
CANCEL_TASK = Operation(
    "CancelTask",
    wq.CancelTaskRequest,
    http=(_post("/tasks/{id}:cancel"),),
    serve=lambda s: s.engine.cancel_task,
    decode_params=rq.cancel_from_v1,
    encode_result=rs.task_json,
    encode_params=rq.cancel_to_v1,
    decode_result=rs.read_task,
)
SUBSCRIBE_TO_TASK = Operation(
    "SubscribeToTask",
    wq.SubscribeToTaskRequest,
    # The normative proto says GET, the spec's table POST: both are served (GET first: the client's).
    http=(_get("/tasks/{id}:subscribe", currentGeneration=SCALAR), _post("/tasks/{id}:subscribe")),
    serve=lambda s: s.streams.subscribe,
    decode_params=rq.subscribe_from_v1,
    encode_result=rs.document_json,
    encode_params=rq.subscribe_to_v1,
    decode_result=rs.read_event,
    streaming=True,
)
CREATE_PUSH_CONFIG = Operation(
    "CreateTaskPushNotificationConfig",
    wp.TaskPushNotificationConfig,
    http=(_post("/tasks/{taskId}/pushNotificationConfigs"),),
    serve=lambda s: s.push.set,
    decode_params=rq.create_push_from_v1,
    encode_result=rs.push_config_json,
    encode_params=rq.create_push_to_v1,
    decode_result=rs.read_push_config,
)
GET_PUSH_CONFIG = Operation(
    "GetTaskPushNotificationConfig",
    wp.GetTaskPushNotificationConfigRequest,
    http=(_get("/tasks/{taskId}/pushNotificationConfigs/{id}"),),
    serve=lambda s: s.push.get,
    decode_params=rq.push_ref_from_v1,
    encode_result=rs.push_config_json,
    encode_params=rq.push_ref_to_v1,
    decode_result=rs.read_push_config,
)
LIST_PUSH_CONFIGS = Operation(
    "ListTaskPushNotificationConfigs",
    wp.ListTaskPushNotificationConfigsRequest,
    http=(_get("/tasks/{taskId}/pushNotificationConfigs", pageSize=SCALAR, pageToken=SCALAR),),
    serve=lambda s: s.push.list,
    decode_params=rq.push_query_from_v1,
    encode_result=rs.push_config_page_json,
    encode_params=rq.push_query_to_v1,
    decode_result=rs.read_push_config_page,
)
DELETE_PUSH_CONFIG = Operation(
    "DeleteTaskPushNotificationConfig",
    wp.DeleteTaskPushNotificationConfigRequest,
    http=(Http("DELETE", "/tasks/{taskId}/pushNotificationConfigs/{id}", query={"tenant": SCALAR}),),
    serve=lambda s: s.push.delete,
    decode_params=rq.push_ref_from_v1,
    encode_result=rs.empty_json,
    encode_params=rq.push_ref_to_v1,
    decode_result=rs.read_empty,
)
GET_EXTENDED_CARD = Operation(
    "GetExtendedAgentCard",
    wq.GetExtendedAgentCardRequest,
    http=(_get("/extendedAgentCard"),),
    serve=lambda s: s.extended_card,
    decode_params=rq.card_request_from_v1,
    encode_result=rs.document_json,
    encode_params=rq.no_params,
    # The card document as served: `a2a_core.client.cards` reads it, as it reads the public one.
    decode_result=rs.read_object,
)

OPERATIONS: Mapping[str, Operation] = {
    operation.name: operation
    for operation in (
        SEND_MESSAGE,
        SEND_STREAMING_MESSAGE,
        GET_TASK,
        LIST_TASKS,
        CANCEL_TASK,
        SUBSCRIBE_TO_TASK,
        CREATE_PUSH_CONFIG,
        GET_PUSH_CONFIG,
        LIST_PUSH_CONFIGS,
        DELETE_PUSH_CONFIG,
        GET_EXTENDED_CARD,
    )
}


def decode_params(operation: str, params: object) -> Any:
    """The core request for an operation's params; MethodNotFoundError for an unknown operation
    (see `Operation.decode` for the rest)."""
    entry = OPERATIONS.get(operation)
    if entry is None:
        raise MethodNotFoundError(f"Method {operation!r} not found")
    return entry.decode(params)
