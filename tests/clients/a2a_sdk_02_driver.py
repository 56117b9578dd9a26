"""a2a-sdk 0.2.16's client (``.venv-clients/a2a-sdk-0.2``): `A2AClient` from the card at
``/.well-known/agent.json`` (its default), speaking 0.2.5 JSON-RPC. It returns JSON-RPC
responses rather than raising, so an error response becomes an error result here.

Scenarios (ARGS_JSON keys): card; send (text, blocking=true, taskId, contextId); get (taskId,
historyLength); cancel (taskId); stream (text, taskId, contextId); push-create (taskId, id, url,
token); push-get (taskId, id). This client has no resubscribe and no list or delete of push
configs.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from a2a.client import A2ACardResolver, A2AClient
from a2a.client.errors import A2AClientError, A2AClientHTTPError
from a2a.types import (
    CancelTaskRequest,
    GetTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    JSONRPCErrorResponse,
    Message,
    MessageSendConfiguration,
    MessageSendParams,
    Part,
    PushNotificationConfig,
    Role,
    SendMessageRequest,
    SendStreamingMessageRequest,
    SetTaskPushNotificationConfigRequest,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
    TextPart,
)
from driver_common import Args, Result, card_summary, error, main, push_summary, summary

TIMEOUT = httpx.Timeout(30.0)


def request_id() -> str:
    return str(uuid.uuid4())


@asynccontextmanager
async def client_for(base_url: str) -> AsyncIterator[A2AClient]:
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        yield await A2AClient.get_client_from_agent_card_url(http, base_url)


def params(args: Args, *, blocking: bool | None = None) -> MessageSendParams:
    message = Message(
        role=Role.user,
        parts=[Part(root=TextPart(text=args["text"]))],
        message_id=str(uuid.uuid4()),
        task_id=args.get("taskId"),
        context_id=args.get("contextId"),
    )
    configuration = None if blocking is None else MessageSendConfiguration(blocking=blocking)
    return MessageSendParams(message=message, configuration=configuration)


def result_of(response: Any) -> Any:
    """The result of a JSON-RPC response (a RootModel), or `ClientRPCError` for an error."""
    root = response.root
    if isinstance(root, JSONRPCErrorResponse):
        raise ClientRPCError(root.error.code, root.error.message)
    return root.result


def wire(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


class ClientRPCError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


async def card(base_url: str, args: Args) -> AsyncIterator[Result]:
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        yield card_summary(wire(await A2ACardResolver(http, base_url).get_agent_card()))


async def send(base_url: str, args: Args) -> AsyncIterator[Result]:
    request = SendMessageRequest(id=request_id(), params=params(args, blocking=args.get("blocking", True)))
    async with client_for(base_url) as client:
        yield summary(wire(result_of(await client.send_message(request))))


async def get(base_url: str, args: Args) -> AsyncIterator[Result]:
    query = TaskQueryParams(id=args["taskId"], history_length=args.get("historyLength"))
    async with client_for(base_url) as client:
        yield summary(wire(result_of(await client.get_task(GetTaskRequest(id=request_id(), params=query)))))


async def cancel(base_url: str, args: Args) -> AsyncIterator[Result]:
    request = CancelTaskRequest(id=request_id(), params=TaskIdParams(id=args["taskId"]))
    async with client_for(base_url) as client:
        yield summary(wire(result_of(await client.cancel_task(request))))


async def stream(base_url: str, args: Args) -> AsyncIterator[Result]:
    request = SendStreamingMessageRequest(id=request_id(), params=params(args))
    async with client_for(base_url) as client:
        async for response in client.send_message_streaming(request):
            yield summary(wire(result_of(response)))


async def push_create(base_url: str, args: Args) -> AsyncIterator[Result]:
    config = PushNotificationConfig(id=args.get("id"), url=args["url"], token=args.get("token"))
    request = SetTaskPushNotificationConfigRequest(
        id=request_id(),
        params=TaskPushNotificationConfig(task_id=args["taskId"], push_notification_config=config),
    )
    async with client_for(base_url) as client:
        yield push_summary(wire(result_of(await client.set_task_callback(request))))


async def push_get(base_url: str, args: Args) -> AsyncIterator[Result]:
    query = GetTaskPushNotificationConfigParams(id=args["taskId"], push_notification_config_id=args.get("id"))
    request = GetTaskPushNotificationConfigRequest(id=request_id(), params=query)
    async with client_for(base_url) as client:
        yield push_summary(wire(result_of(await client.get_task_callback(request))))


def as_error(exception: Exception) -> Result | None:
    if isinstance(exception, ClientRPCError):
        return error("JSONRPCErrorResponse", exception.message, exception.code)
    if isinstance(exception, A2AClientHTTPError):
        return error(type(exception).__name__, exception.message, exception.status_code)
    if isinstance(exception, A2AClientError):
        return error(type(exception).__name__, str(exception))
    return None


if __name__ == "__main__":
    main(
        {
            "card": card,
            "send": send,
            "get": get,
            "cancel": cancel,
            "stream": stream,
            "push-create": push_create,
            "push-get": push_get,
        },
        as_error,
    )
