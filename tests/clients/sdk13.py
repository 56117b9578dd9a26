"""a2a-sdk 1.3's client, built the way its documentation says: `create_client(base_url, config)`.

The factory reads the agent card and picks the transport from its ``supportedInterfaces`` (a
0.3 card becomes interfaces with protocolVersion 0.3): JSON-RPC 1.0, HTTP+JSON (REST) 1.0, or
the 0.3 compatibility transports. Results are protobuf messages (`a2a.types`); JSON-RPC and REST
errors are raised as the `a2a.utils.errors` class for their code (`TaskNotFoundError`, ...).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager

import httpx
from a2a.client import A2ACardResolver, BaseClient, ClientConfig, ClientFactory, create_client
from a2a.types import (
    Artifact,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    Task,
)

HTTP_TIMEOUT = httpx.Timeout(30.0)  # above our server's 25 s blocking timeout
JSONRPC = "JSONRPC"
REST = "HTTP+JSON"


@asynccontextmanager
async def connect(
    base_url: str, *, binding: str = JSONRPC, streaming: bool = False, version: str | None = None
) -> AsyncIterator[BaseClient]:
    """A client for the agent at ``base_url`` speaking ``binding`` (`JSONRPC` or `REST`).

    ``streaming``: whether `send_message` uses the streaming method (when the card allows it)
    instead of the blocking one; `subscribe` needs it. ``version`` ("0.3"): keep only the card's
    interfaces of that protocol version, so the factory picks its 0.3 compatibility transport.
    """
    async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as http:
        config = ClientConfig(streaming=streaming, httpx_client=http, supported_protocol_bindings=[binding])
        if version is None:
            client = await create_client(base_url, config)
        else:
            card = await A2ACardResolver(http, base_url).get_agent_card()
            kept = [i for i in card.supported_interfaces if i.protocol_version.startswith(version)]
            del card.supported_interfaces[:]
            card.supported_interfaces.extend(kept)
            client = ClientFactory(config).create(card)
        assert isinstance(client, BaseClient)
        try:
            yield client
        finally:
            await client.close()


def transport_name(client: BaseClient) -> str:
    """The class of the transport the factory chose: which binding and protocol generation."""
    return type(client._transport).__name__


def user_message(text: str, *, task_id: str | None = None, context_id: str | None = None) -> Message:
    return Message(
        role=Role.ROLE_USER,
        parts=[Part(text=text)],
        message_id=str(uuid.uuid4()),  # unique: our server derives task ids from the message
        task_id=task_id,
        context_id=context_id,
    )


def request(
    message: Message, *, return_immediately: bool = False, history_length: int | None = None
) -> SendMessageRequest:
    configuration = SendMessageConfiguration(
        return_immediately=return_immediately, history_length=history_length
    )
    return SendMessageRequest(message=message, configuration=configuration)


async def send(client: BaseClient, message: Message, *, return_immediately: bool = False) -> Task:
    """SendMessage on a non-streaming client; the servers under test answer with a Task."""
    events = await collect(client.send_message(request(message, return_immediately=return_immediately)))
    assert len(events) == 1, events
    assert events[0].HasField("task"), events[0]
    return events[0].task


async def collect(stream: AsyncIterator[StreamResponse]) -> list[StreamResponse]:
    return [event async for event in stream]


def text_of(parts: Iterable[Part]) -> str:
    texts: list[str] = []
    for part in parts:
        assert part.HasField("text"), part
        texts.append(part.text)
    return "".join(texts)


def status_text(task: Task) -> str:
    assert task.status.HasField("message"), task
    return text_of(task.status.message.parts)


def artifact_chunks(task: Task, name: str) -> list[str]:
    return [
        text_of([part]) for artifact in task.artifacts if artifact.name == name for part in artifact.parts
    ]


def fold(events: Sequence[StreamResponse]) -> Task:
    """The task a stream describes: its first event (a Task) with every later update applied."""
    assert events[0].HasField("task"), events[0]
    task = Task()
    task.CopyFrom(events[0].task)
    for event in events[1:]:
        if event.HasField("status_update"):
            task.status.CopyFrom(event.status_update.status)
        elif event.HasField("artifact_update"):
            _apply_artifact(task, event.artifact_update.artifact, append=event.artifact_update.append)
        else:
            raise AssertionError(f"unexpected event after the task: {event}")
    return task


def _apply_artifact(task: Task, chunk: Artifact, *, append: bool) -> None:
    for artifact in task.artifacts:
        if artifact.artifact_id == chunk.artifact_id:
            if append:
                artifact.parts.extend(chunk.parts)
            else:
                artifact.CopyFrom(chunk)
            return
    task.artifacts.append(chunk)
