"""The official a2a-sdk 0.3 client against the real dev server, over real loopback sockets.

The client is built the non-deprecated way (`A2ACardResolver` + `ClientFactory`), so it talks to
the JSON-RPC URL the agent card advertises. Its JSON-RPC transport raises
`A2AClientJSONRPCError` for error responses, which carries the error object the server sent.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from a2a.client import A2ACardResolver, BaseClient, ClientConfig, ClientEvent, ClientFactory
from a2a.client.errors import A2AClientJSONRPCError
from a2a.types import (
    AgentCard,
    Message,
    MessageSendConfiguration,
    Part,
    Role,
    Task,
    TaskIdParams,
    TaskQueryParams,
    TaskState,
    TextPart,
)

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

HTTP_TIMEOUT = httpx.Timeout(30.0)  # above the server's 25 s blocking timeout
TASK_NOT_FOUND = -32001
TASK_NOT_CANCELABLE = -32002
INVALID_PARAMS = -32602
UNSUPPORTED_OPERATION = -32004

DRAFT_TEXT = "Here is a first draft about {topic}: an opening, three key points, and a short summary. "
AUDIENCE_QUESTION = "Who is the audience for this piece?"


# --- helpers -----------------------------------------------------------------------------------


@asynccontextmanager
async def sdk_client(base_url: str, *, streaming: bool = False) -> AsyncIterator[BaseClient]:
    """An SDK client for the agent at ``base_url``, configured from its public card."""
    async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=streaming, httpx_client=http)).create(card)
        # The abstract `Client.send_message` does not declare the per-call `configuration`
        # that `BaseClient` (what the factory builds) accepts.
        assert isinstance(client, BaseClient)
        yield client


def user_message(text: str, *, task_id: str | None = None, context_id: str | None = None) -> Message:
    return Message(
        role=Role.user,
        parts=[Part(root=TextPart(text=text))],
        message_id=str(uuid.uuid4()),  # unique: the server derives task ids from the message
        task_id=task_id,
        context_id=context_id,
    )


async def send(
    client: BaseClient, message: Message, configuration: MessageSendConfiguration | None = None
) -> Task:
    """message/send through the SDK; the server always answers with a Task."""
    stream = client.send_message(message, configuration=configuration)
    events: list[ClientEvent | Message] = [event async for event in stream]
    assert len(events) == 1, events
    event = events[0]
    assert isinstance(event, tuple), f"expected a (Task, update) event, got {event!r}"
    task, update = event
    assert update is None
    assert isinstance(task, Task)
    return task


def text_of(message: Message | None) -> str:
    assert message is not None
    texts: list[str] = []
    for part in message.parts:
        assert isinstance(part.root, TextPart), part
        texts.append(part.root.text)
    return "".join(texts)


def artifact_text(task: Task, name: str) -> str:
    matches = [a for a in task.artifacts or [] if a.name == name]
    assert len(matches) == 1, task.artifacts
    texts: list[str] = []
    for part in matches[0].parts:
        assert isinstance(part.root, TextPart), part
        texts.append(part.root.text)
    return "".join(texts)


# --- tests -------------------------------------------------------------------------------------


async def test_agent_card_is_served_on_both_well_known_paths(echo_server: str) -> None:
    async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as http:
        card: AgentCard = await A2ACardResolver(http, echo_server).get_agent_card()
        assert card.protocol_version == "0.2.5"
        assert card.preferred_transport == "JSONRPC"
        assert card.url == echo_server
        assert card.capabilities.streaming is True

        current = await http.get(f"{echo_server}.well-known/agent-card.json")
        legacy = await http.get(f"{echo_server}.well-known/agent.json")
    for response in (current, legacy):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = legacy.json()
    assert body == current.json()
    assert body["protocolVersion"] == "0.2.5"
    assert body["preferredTransport"] == "JSONRPC"
    assert body["url"] == echo_server
    assert body["capabilities"]["streaming"] is True


async def test_echo_send_then_get_trims_history_without_touching_storage(echo_server: str) -> None:
    async with sdk_client(echo_server, streaming=False) as client:
        sent = user_message("hello")
        task = await send(client, sent)
        assert task.status.state == TaskState.completed
        assert text_of(task.status.message) == "Echo: hello"
        assert task.context_id

        last_only = await client.get_task(TaskQueryParams(id=task.id, history_length=1))
        assert last_only.id == task.id
        assert last_only.status.state == TaskState.completed
        assert last_only.history is not None
        assert len(last_only.history) == 1
        assert last_only.history[0].role == Role.agent
        assert text_of(last_only.history[0]) == "Echo: hello"

        full = await client.get_task(TaskQueryParams(id=task.id))
        assert full.history is not None
        assert [m.role for m in full.history] == [Role.user, Role.agent]
        assert full.history[0].message_id == sent.message_id
        assert text_of(full.history[0]) == "hello"
        assert text_of(full.history[1]) == "Echo: hello"
        assert all(m.task_id == task.id and m.context_id == task.context_id for m in full.history)


async def test_multiturn_input_required_then_completed(multiturn_server: str) -> None:
    async with sdk_client(multiturn_server) as client:
        first = user_message("cats")
        task = await send(client, first)
        assert task.status.state == TaskState.input_required
        assert text_of(task.status.message) == AUDIENCE_QUESTION
        assert [a.name for a in task.artifacts or []] == ["draft"]
        assert artifact_text(task, "draft") == DRAFT_TEXT.format(topic="cats")

        reply = user_message("engineers", task_id=task.id, context_id=task.context_id)
        done = await send(client, reply)
        assert done.id == task.id
        assert done.context_id == task.context_id
        assert done.status.state == TaskState.completed
        assert text_of(done.status.message) == "Done: the draft is tailored for engineers."
        assert [a.name for a in done.artifacts or []] == ["draft", "final"]
        assert artifact_text(done, "draft") == DRAFT_TEXT.format(topic="cats")
        assert artifact_text(done, "final") == "Final version, written for engineers."

        assert done.history is not None
        assert [m.role for m in done.history] == [Role.user, Role.agent, Role.user, Role.agent]
        assert [text_of(m) for m in done.history] == [
            "cats",
            AUDIENCE_QUESTION,
            "engineers",
            "Done: the draft is tailored for engineers.",
        ]
        assert done.history[0].message_id == first.message_id
        assert done.history[2].message_id == reply.message_id


async def test_cancel_then_cancel_again_then_continue(multiturn_server: str) -> None:
    async with sdk_client(multiturn_server) as client:
        task = await send(client, user_message("dogs"), MessageSendConfiguration(blocking=False))
        assert task.status.state == TaskState.submitted

        # The worker may be anywhere by now (queued, drafting, or waiting in input-required):
        # every one of those states is cancelable.
        canceled = await client.cancel_task(TaskIdParams(id=task.id))
        assert canceled.id == task.id
        assert canceled.status.state == TaskState.canceled

        # The agent's turn lasts ~0.3 s; a late write from it must not overwrite the cancel.
        await anyio.sleep(0.5)
        later = await client.get_task(TaskQueryParams(id=task.id))
        assert later.status.state == TaskState.canceled

        with pytest.raises(A2AClientJSONRPCError) as again:
            await client.cancel_task(TaskIdParams(id=task.id))
        assert again.value.error.code == TASK_NOT_CANCELABLE

        with pytest.raises(A2AClientJSONRPCError) as continued:
            await send(client, user_message("anyone", task_id=task.id, context_id=task.context_id))
        assert continued.value.error.code == INVALID_PARAMS
        message = continued.value.error.message
        assert message is not None
        assert "canceled" in message


async def test_unknown_task_is_task_not_found(echo_server: str) -> None:
    async with sdk_client(echo_server) as client:
        with pytest.raises(A2AClientJSONRPCError) as get:
            await client.get_task(TaskQueryParams(id="does-not-exist"))
        assert get.value.error.code == TASK_NOT_FOUND

        with pytest.raises(A2AClientJSONRPCError) as cancel:
            await client.cancel_task(TaskIdParams(id="does-not-exist"))
        assert cancel.value.error.code == TASK_NOT_FOUND

        with pytest.raises(A2AClientJSONRPCError) as continued:
            await send(client, user_message("hello?", task_id="does-not-exist"))
        assert continued.value.error.code == TASK_NOT_FOUND
