"""Building JSON-RPC requests and reading answers: every way an answer can be wrong, named."""

from __future__ import annotations

import json
import uuid
from typing import Annotated, Any, TypeVar

import httpx
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from a2a_core.client.errors import A2AClientHTTPError, error_from_wire
from a2a_core.client.events import Event
from a2a_core.protocol.v0 import MessageSendConfiguration, MessageSendParams, TaskPushNotificationConfig
from a2a_core.types import AgentCard, Message, PushNotificationConfig, Role, Task, TextPart
from a2a_core.types._base import DEFER

T = TypeVar("T")

send_result: TypeAdapter[Task | Message] = TypeAdapter(
    Annotated[Task | Message, Field(discriminator="kind")], config=DEFER
)
stream_event: TypeAdapter[Event] = TypeAdapter(Annotated[Event, Field(discriminator="kind")], config=DEFER)
card: TypeAdapter[AgentCard] = TypeAdapter(AgentCard)
task: TypeAdapter[Task] = TypeAdapter(Task)
push_config: TypeAdapter[TaskPushNotificationConfig] = TypeAdapter(TaskPushNotificationConfig)
push_configs: TypeAdapter[list[TaskPushNotificationConfig]] = TypeAdapter(list[TaskPushNotificationConfig])
nothing: TypeAdapter[None] = TypeAdapter(type(None))


def user_message(text: str, *, task_id: str | None = None, context_id: str | None = None) -> Message:
    """A user message with one text part and a fresh message id."""
    return Message(
        role=Role.user,
        parts=[TextPart(text=text)],
        message_id=uuid.uuid4().hex,
        task_id=task_id,
        context_id=context_id,
    )


def send_params(
    message: Message | str,
    *,
    task_id: str | None,
    context_id: str | None,
    blocking: bool | None,
    history_length: int | None,
    push_config: PushNotificationConfig | None,
    accepted_output_modes: list[str] | None,
    metadata: dict[str, Any] | None,
) -> MessageSendParams:
    if isinstance(message, str):
        message = user_message(message, task_id=task_id, context_id=context_id)
    else:
        ids = {"task_id": task_id, "context_id": context_id}
        message = message.model_copy(update={k: v for k, v in ids.items() if v is not None})
    configuration = MessageSendConfiguration(
        blocking=blocking,
        history_length=history_length,
        push_notification_config=push_config,
        accepted_output_modes=accepted_output_modes,
    )
    return MessageSendParams(message=message, configuration=configuration, metadata=metadata)


def envelope(method: str, params: BaseModel) -> dict[str, Any]:
    wire = params.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {"jsonrpc": "2.0", "id": uuid.uuid4().hex, "method": method, "params": wire}


def json_body(response: httpx.Response) -> Any:
    """The decoded body of a successful (2xx) response."""
    if not response.is_success:
        detail = " ".join(response.text.split())[:200]
        suffix = f": {detail}" if detail else ""
        raise http_error(response, f"HTTP {response.status_code} from {response.request.url}{suffix}")
    return loads(response.text, response)


def loads(text: str, response: httpx.Response) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        kind = response.headers.get("content-type", "no content type")
        raise http_error(response, f"{response.request.url} answered with non-JSON ({kind})") from None


def result(payload: Any, response: httpx.Response) -> Any:
    """The ``result`` of a JSON-RPC response; its ``error`` raised as the matching A2AError."""
    if not isinstance(payload, dict) or payload.get("jsonrpc") != "2.0":
        raise http_error(response, f"{response.request.url} did not answer with a JSON-RPC 2.0 response")
    if payload.get("error") is not None:
        raise error_from_wire(payload["error"])
    # a2a-sdk 0.3 leaves out `"result": null` (tasks/pushNotificationConfig/delete); a method
    # that expects a value still fails validation on the missing one.
    return payload.get("result")


def validated(adapter: TypeAdapter[T], value: Any, response: httpx.Response) -> T:
    try:
        return adapter.validate_python(value)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "result"
        raise http_error(
            response, f"{response.request.url} answered with an invalid object ({where}: {first['msg']})"
        ) from error


def http_error(response: httpx.Response, message: str) -> A2AClientHTTPError:
    try:
        body = response.text[:500]
    except httpx.ResponseNotRead:
        body = ""
    url = str(response.request.url)
    return A2AClientHTTPError(message, status_code=response.status_code, url=url, body=body)


def describe(error: httpx.TransportError) -> str:
    return str(error) or type(error).__name__
