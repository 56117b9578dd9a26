"""Each way of creating a push config records the protocol generation it came through (its
webhook gets that generation's payload), and no request can set that record nor any response,
of either generation, show it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_core.compose.app import compose_app
from a2a_core.examples.echo import agent as echo
from a2a_core.generations import V0_3, V1_0
from a2a_core.push.urls import UrlPolicy
from support import Stack

pytestmark = pytest.mark.anyio

HOOK = "https://hooks.example.com/a2a"
V1 = {"A2A-Version": "1.0"}
V0_CONFIG_FIELDS = {"url", "id", "token", "authentication"}
V1_CONFIG_FIELDS = {"url", "id", "taskId", "token", "authentication", "tenant"}


async def public_dns(host: str, port: int) -> list[str]:
    return ["93.184.215.14"]


@pytest.fixture
def stack() -> Stack:
    stack = Stack(echo, push_enabled=True)
    assert stack.service.push is not None
    stack.service.push.policy = UrlPolicy(resolver=public_dns)  # no DNS here: a stub answers
    return stack


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    async with httpx.AsyncClient(transport=transport, base_url="http://agent.test") as client:
        yield client


async def rpc(client: httpx.AsyncClient, method: str, params: dict[str, Any], **headers: str) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    reply = (await client.post("/", json=body, headers=headers)).json()
    assert "error" not in reply, reply
    return reply["result"]


def v0_message(**configuration: Any) -> dict[str, Any]:
    message = {"role": "user", "messageId": str(uuid.uuid4()), "parts": [{"kind": "text", "text": "hi"}]}
    return {"message": message, "configuration": {"blocking": False, **configuration}}


def v1_message(**configuration: Any) -> dict[str, Any]:
    message = {"role": "ROLE_USER", "messageId": str(uuid.uuid4()), "parts": [{"text": "hi"}]}
    return {"message": message, "configuration": {"returnImmediately": True, **configuration}}


async def versions(stack: Stack, task_id: str) -> dict[str | None, str]:
    assert stack.service.push is not None
    return {c.id: c.generation for c in await stack.service.push.store.list(task_id)}


async def test_each_entry_point_records_the_generation_that_created_the_config(
    stack: Stack, client: httpx.AsyncClient
) -> None:
    hook = {"url": HOOK, "id": "sent"}
    sent_v0 = (await rpc(client, "message/send", v0_message(pushNotificationConfig=hook)))["id"]
    v1_send = v1_message(taskPushNotificationConfig=hook)
    sent_v1 = (await rpc(client, "SendMessage", v1_send, **V1))["task"]["id"]
    response = await client.post("/message:send", json=v1_send, headers=V1)
    sent_rest = response.json()["task"]["id"]

    task_id = sent_v0
    set_v0 = {"taskId": task_id, "pushNotificationConfig": {"url": HOOK, "id": "set"}}
    await rpc(client, "tasks/pushNotificationConfig/set", set_v0)
    await rpc(
        client, "CreateTaskPushNotificationConfig", {"taskId": task_id, "id": "created", "url": HOOK}, **V1
    )
    response = await client.post(
        f"/tasks/{task_id}/pushNotificationConfigs", json={"id": "posted", "url": HOOK}, headers=V1
    )
    assert response.status_code == 200, response.text

    assert await versions(stack, sent_v0) == {
        "sent": V0_3.version,
        "set": V0_3.version,
        "created": V1_0.version,
        "posted": V1_0.version,
    }
    assert await versions(stack, sent_v1) == {"sent": V1_0.version}
    assert await versions(stack, sent_rest) == {"sent": V1_0.version}


async def test_a_config_set_again_through_the_other_generation_takes_that_generation(
    stack: Stack, client: httpx.AsyncClient
) -> None:
    task_id = (await rpc(client, "message/send", v0_message()))["id"]
    await rpc(client, "CreateTaskPushNotificationConfig", {"taskId": task_id, "id": "c", "url": HOOK}, **V1)
    set_v0 = {"taskId": task_id, "pushNotificationConfig": {"url": HOOK, "id": "c"}}
    await rpc(client, "tasks/pushNotificationConfig/set", set_v0)
    assert await versions(stack, task_id) == {"c": V0_3.version}
    await rpc(client, "CreateTaskPushNotificationConfig", {"taskId": task_id, "id": "c", "url": HOOK}, **V1)
    assert await versions(stack, task_id) == {"c": V1_0.version}


async def test_no_request_can_set_the_generation_and_no_response_shows_it(
    stack: Stack, client: httpx.AsyncClient
) -> None:
    task_id = (await rpc(client, "message/send", v0_message()))["id"]
    forged = {"url": HOOK, "id": "forged", "protocolVersion": "1.0", "protocol_version": "1.0"}
    forged |= {"_protocol_version": "1.0", "generation": "1.0"}
    stored = await rpc(
        client, "tasks/pushNotificationConfig/set", {"taskId": task_id, "pushNotificationConfig": forged}
    )
    assert set(stored["pushNotificationConfig"]) <= V0_CONFIG_FIELDS
    forged_v1 = {
        "taskId": task_id,
        "id": "v1",
        "url": HOOK,
        "protocolVersion": "0.3",
        "protocol_version": "0.3",
        "generation": "0.3",
    }
    await rpc(client, "CreateTaskPushNotificationConfig", forged_v1, **V1)  # unknown fields are ignored
    assert await versions(stack, task_id) == {"forged": V0_3.version, "v1": V1_0.version}

    listed = await rpc(client, "tasks/pushNotificationConfig/list", {"id": task_id})
    got = await rpc(
        client, "tasks/pushNotificationConfig/get", {"id": task_id, "pushNotificationConfigId": "v1"}
    )
    for config in [*listed, got]:
        assert set(config["pushNotificationConfig"]) <= V0_CONFIG_FIELDS
    listed_v1 = await rpc(client, "ListTaskPushNotificationConfigs", {"taskId": task_id}, **V1)
    got_v1 = await rpc(client, "GetTaskPushNotificationConfig", {"taskId": task_id, "id": "v1"}, **V1)
    rest = (await client.get(f"/tasks/{task_id}/pushNotificationConfigs/forged", headers=V1)).json()
    for config in [*listed_v1["configs"], got_v1, rest]:
        assert set(config) <= V1_CONFIG_FIELDS
