"""a2a-sdk 0.3.26's client (``.venv-clients/a2a-sdk-0.3``), built its documented way:
`A2ACardResolver` + `ClientFactory`, speaking 0.3 JSON-RPC to the URL the card gives.

Scenarios (ARGS_JSON keys): card; send (text, blocking=true, taskId, contextId); get (taskId,
historyLength); cancel (taskId); stream (text, taskId, contextId); resubscribe (taskId);
push-create (taskId, id, url, token); push-get (taskId, id). This client has no list or delete
of push configs.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientError, A2AClientHTTPError, A2AClientJSONRPCError
from a2a.types import (
    GetTaskPushNotificationConfigParams,
    Message,
    MessageSendConfiguration,
    Part,
    PushNotificationConfig,
    Role,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
    TextPart,
)
from driver_common import Args, Result, card_summary, error, main, push_summary, summary

TIMEOUT = httpx.Timeout(30.0)


def wire(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


@asynccontextmanager
async def client_for(base_url: str, *, streaming: bool) -> AsyncIterator[Any]:
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=streaming, httpx_client=http)).create(card)
        yield client


def message(args: Args) -> Message:
    return Message(
        role=Role.user,
        parts=[Part(root=TextPart(text=args["text"]))],
        message_id=str(uuid.uuid4()),
        task_id=args.get("taskId"),
        context_id=args.get("contextId"),
    )


async def card(base_url: str, args: Args) -> AsyncIterator[Result]:
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        yield card_summary(wire(await A2ACardResolver(http, base_url).get_agent_card()))


async def send(base_url: str, args: Args) -> AsyncIterator[Result]:
    configuration = MessageSendConfiguration(blocking=args.get("blocking", True))
    async with client_for(base_url, streaming=False) as client:
        async for event in client.send_message(message(args), configuration=configuration):
            yield summary(wire(event[0] if isinstance(event, tuple) else event))


async def get(base_url: str, args: Args) -> AsyncIterator[Result]:
    query = TaskQueryParams(id=args["taskId"], history_length=args.get("historyLength"))
    async with client_for(base_url, streaming=False) as client:
        yield summary(wire(await client.get_task(query)))


async def cancel(base_url: str, args: Args) -> AsyncIterator[Result]:
    async with client_for(base_url, streaming=False) as client:
        yield summary(wire(await client.cancel_task(TaskIdParams(id=args["taskId"]))))


async def stream(base_url: str, args: Args) -> AsyncIterator[Result]:
    async with client_for(base_url, streaming=True) as client:
        async for event in client.send_message(message(args)):
            yield _event(event)


async def resubscribe(base_url: str, args: Args) -> AsyncIterator[Result]:
    async with client_for(base_url, streaming=True) as client:
        async for event in client.resubscribe(TaskIdParams(id=args["taskId"])):
            yield _event(event)


def _event(event: Any) -> Result:
    """A streamed event: a Message, or (task, update) with update None for the Task itself."""
    if not isinstance(event, tuple):
        return summary(wire(event))
    task, update = event
    return summary(wire(update if update is not None else task))


async def push_create(base_url: str, args: Args) -> AsyncIterator[Result]:
    config = PushNotificationConfig(id=args.get("id"), url=args["url"], token=args.get("token"))
    request = TaskPushNotificationConfig(task_id=args["taskId"], push_notification_config=config)
    async with client_for(base_url, streaming=False) as client:
        yield push_summary(wire(await client.set_task_callback(request)))


async def push_get(base_url: str, args: Args) -> AsyncIterator[Result]:
    params = GetTaskPushNotificationConfigParams(
        id=args["taskId"], push_notification_config_id=args.get("id")
    )
    async with client_for(base_url, streaming=False) as client:
        yield push_summary(wire(await client.get_task_callback(params)))


def as_error(exception: Exception) -> Result | None:
    if isinstance(exception, A2AClientJSONRPCError):
        return error(type(exception).__name__, exception.error.message or "", exception.error.code)
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
            "resubscribe": resubscribe,
            "push-create": push_create,
            "push-get": push_get,
        },
        as_error,
    )
