"""The current official client, a2a-sdk 1.3, against the real dev server over loopback sockets.

The client is built the documented way (`create_client` from the agent card). Our card at
``/.well-known/agent-card.json`` lists 1.0 JSON-RPC first (then 1.0 HTTP+JSON and 0.3 JSON-RPC),
so the factory picks its 1.0 JSON-RPC transport (``A2A-Version: 1.0``). Results are protobuf
messages; JSON-RPC errors are raised as the `a2a.utils.errors` class for their code.
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest
from a2a.client import A2ACardResolver
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    Role,
    TaskNotCancelableError,
    TaskNotFoundError,
    TaskState,
    UnsupportedOperationError,
)

from clients.sdk13 import (
    HTTP_TIMEOUT,
    artifact_chunks,
    connect,
    send,
    status_text,
    text_of,
    transport_name,
    user_message,
)

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

DRAFT_TEXT = "Here is a first draft about {topic}: an opening, three key points, and a short summary. "
AUDIENCE_QUESTION = "Who is the audience for this piece?"


# --- tests -------------------------------------------------------------------------------------


async def test_the_card_offers_1_0_and_0_3_on_the_current_path_and_0_2_5_on_the_legacy_path(
    echo_server: str,
) -> None:
    async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as http:
        card = await A2ACardResolver(http, echo_server).get_agent_card()
        assert [(i.url, i.protocol_binding, i.protocol_version) for i in card.supported_interfaces] == [
            (echo_server, "JSONRPC", "1.0"),
            (echo_server.rstrip("/"), "HTTP+JSON", "1.0"),  # a2a-sdk appends "/message:send"
            (echo_server, "JSONRPC", "0.3"),
            # The A2A 1.1 draft's, last: a2a-sdk 1.3 parses them and keeps to 1.0.
            (echo_server, "JSONRPC", "1.1"),
            (echo_server.rstrip("/"), "HTTP+JSON", "1.1"),
        ]
        assert card.capabilities.streaming is True

        current = await http.get(f"{echo_server}.well-known/agent-card.json")
        legacy = await http.get(f"{echo_server}.well-known/agent.json")
    for response in (current, legacy):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = current.json()
    # The 0.3 fields, for 0.3 clients reading the same document.
    assert body["protocolVersion"] == "0.3.0"
    assert body["preferredTransport"] == "JSONRPC"
    assert body["url"] == echo_server
    assert body["additionalInterfaces"] == [{"url": echo_server, "transport": "JSONRPC"}]
    old: dict[str, Any] = legacy.json()
    assert old["protocolVersion"] == "0.2.5"
    assert "additionalInterfaces" not in old
    assert "supportedInterfaces" not in old


async def test_create_client_picks_the_1_0_json_rpc_transport(echo_server: str) -> None:
    async with connect(echo_server) as client:
        assert transport_name(client) == "JsonRpcTransport"
        task = await send(client, user_message("hello"))
        assert task.status.state == TaskState.TASK_STATE_COMPLETED


async def test_echo_send_then_get_trims_history_without_touching_storage(echo_server: str) -> None:
    async with connect(echo_server) as client:
        sent = user_message("hello")
        task = await send(client, sent)
        assert task.status.state == TaskState.TASK_STATE_COMPLETED
        assert status_text(task) == "Echo: hello"
        assert task.context_id

        last_only = await client.get_task(GetTaskRequest(id=task.id, history_length=1))
        assert last_only.id == task.id
        assert last_only.status.state == TaskState.TASK_STATE_COMPLETED
        assert len(last_only.history) == 1
        assert last_only.history[0].role == Role.ROLE_AGENT
        assert text_of(last_only.history[0].parts) == "Echo: hello"

        full = await client.get_task(GetTaskRequest(id=task.id))
        assert [m.role for m in full.history] == [Role.ROLE_USER, Role.ROLE_AGENT]
        assert full.history[0].message_id == sent.message_id
        assert text_of(full.history[0].parts) == "hello"
        assert text_of(full.history[1].parts) == "Echo: hello"
        assert all(m.task_id == task.id and m.context_id == task.context_id for m in full.history)


async def test_multiturn_input_required_then_completed(multiturn_server: str) -> None:
    async with connect(multiturn_server) as client:
        first = user_message("cats")
        task = await send(client, first)
        assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        assert status_text(task) == AUDIENCE_QUESTION
        assert [a.name for a in task.artifacts] == ["draft"]
        assert "".join(artifact_chunks(task, "draft")) == DRAFT_TEXT.format(topic="cats")

        reply = user_message("engineers", task_id=task.id, context_id=task.context_id)
        done = await send(client, reply)
        assert done.id == task.id
        assert done.context_id == task.context_id
        assert done.status.state == TaskState.TASK_STATE_COMPLETED
        assert status_text(done) == "Done: the draft is tailored for engineers."
        assert [a.name for a in done.artifacts] == ["draft", "final"]
        assert "".join(artifact_chunks(done, "draft")) == DRAFT_TEXT.format(topic="cats")
        assert "".join(artifact_chunks(done, "final")) == "Final version, written for engineers."

        assert [m.role for m in done.history] == [Role.ROLE_USER, Role.ROLE_AGENT] * 2
        assert [text_of(m.parts) for m in done.history] == [
            "cats",
            AUDIENCE_QUESTION,
            "engineers",
            "Done: the draft is tailored for engineers.",
        ]
        assert done.history[0].message_id == first.message_id
        assert done.history[2].message_id == reply.message_id


async def test_cancel_then_cancel_again_then_continue(multiturn_server: str) -> None:
    async with connect(multiturn_server) as client:
        task = await send(client, user_message("dogs"), return_immediately=True)
        assert task.status.state == TaskState.TASK_STATE_SUBMITTED

        # The worker may be anywhere by now (queued, drafting, or waiting in input-required):
        # every one of those states is cancelable.
        canceled = await client.cancel_task(CancelTaskRequest(id=task.id))
        assert canceled.id == task.id
        assert canceled.status.state == TaskState.TASK_STATE_CANCELED

        # The agent's turn lasts ~0.3 s; a late write from it must not overwrite the cancel.
        await anyio.sleep(0.5)
        later = await client.get_task(GetTaskRequest(id=task.id))
        assert later.status.state == TaskState.TASK_STATE_CANCELED

        with pytest.raises(TaskNotCancelableError):
            await client.cancel_task(CancelTaskRequest(id=task.id))

        # 1.0 (spec 3.1.1): a message to a terminal task is UnsupportedOperationError (0.x: -32602).
        with pytest.raises(UnsupportedOperationError, match="canceled"):
            await send(client, user_message("anyone", task_id=task.id, context_id=task.context_id))


async def test_unknown_task_is_task_not_found(echo_server: str) -> None:
    async with connect(echo_server) as client:
        with pytest.raises(TaskNotFoundError):
            await client.get_task(GetTaskRequest(id="does-not-exist"))
        with pytest.raises(TaskNotFoundError):
            await client.cancel_task(CancelTaskRequest(id="does-not-exist"))
        with pytest.raises(TaskNotFoundError):
            await send(client, user_message("hello?", task_id="does-not-exist"))
