"""tasks/pushNotificationConfig/* and message/send's pushNotificationConfig, over JSON-RPC."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_core.compose.app import compose_app
from a2a_core.core.requests import SendRequest
from a2a_core.domain import Message, Role, TaskState, TextPart
from a2a_core.examples.echo import agent as echo
from a2a_core.examples.multiturn import DraftWriter
from a2a_core.push.urls import UrlPolicy
from support import CALLER, Stack

pytestmark = pytest.mark.anyio

HOOK = "https://hooks.example.com/a2a"
PUBLIC = "93.184.215.14"
METHODS = ["set", "get", "list", "delete"]


async def public_dns(host: str, port: int) -> list[str]:
    return [PUBLIC]


def push_stack(**settings: Any) -> Stack:
    stack = Stack(echo, push_enabled=True, **settings)
    assert stack.service.push is not None
    stack.service.push.policy = UrlPolicy(resolver=public_dns)  # no DNS here: a stub answers
    return stack


@pytest.fixture
def stack() -> Stack:
    return push_stack(push_max_configs_per_task=3)


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with _client(stack) as client:
        yield client


def _client(stack: Stack) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=compose_app(stack.service)), base_url="http://agent.test"
    )


async def call(client: httpx.AsyncClient, method: str, params: dict[str, Any]) -> dict[str, Any]:
    response = await client.post("/", json={"jsonrpc": "2.0", "id": "r1", "method": method, "params": params})
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def push_params(method: str, task_id: str, **config: Any) -> dict[str, Any]:
    if method == "set":
        return {"taskId": task_id, "pushNotificationConfig": {"url": HOOK, **config}}
    if method in ("get", "delete"):
        return {"id": task_id, "pushNotificationConfigId": "cfg-1"}
    return {"id": task_id}


def message(text: str = "hi", **config: Any) -> dict[str, Any]:
    return {
        "message": {
            "role": "user",
            "messageId": str(uuid.uuid4()),
            "parts": [{"kind": "text", "text": text}],
        },
        "configuration": {"blocking": False, **config},
    }


async def new_task(client: httpx.AsyncClient) -> str:
    task_id: str = (await call(client, "message/send", message()))["result"]["id"]
    return task_id


async def test_push_disabled_answers_32003_everywhere_and_the_card_says_so() -> None:
    stack = Stack(echo)
    async with _client(stack) as client:
        task_id = await new_task(client)
        for method in METHODS:
            reply = await call(client, f"tasks/pushNotificationConfig/{method}", push_params(method, task_id))
            assert reply["error"]["code"] == -32003
        reply = await call(client, "message/send", message(pushNotificationConfig={"url": HOOK}))
        assert reply["error"]["code"] == -32003
        card = (await client.get("/.well-known/agent-card.json")).json()
        assert card["capabilities"].get("pushNotifications") is not True
        assert (await client.get("/.well-known/jwks.json")).status_code == 404


async def test_push_enabled_card_says_so_and_serves_a_jwks(client: httpx.AsyncClient) -> None:
    card = (await client.get("/.well-known/agent.json")).json()
    assert card["capabilities"]["pushNotifications"] is True
    response = await client.get("/.well-known/jwks.json")
    assert response.status_code == 200
    assert response.json() == {"keys": []}  # no signing key configured in this stack


async def test_set_assigns_an_id_keeps_several_configs_and_get_without_id_is_the_first(
    client: httpx.AsyncClient,
) -> None:
    task_id = await new_task(client)
    first = await call(client, "tasks/pushNotificationConfig/set", push_params("set", task_id, token="t"))
    config = first["result"]["pushNotificationConfig"]
    assert first["result"]["taskId"] == task_id
    assert config["id"]
    assert config == {"url": HOOK, "token": "t", "id": config["id"]}
    second = await call(
        client,
        "tasks/pushNotificationConfig/set",
        push_params("set", task_id, id="mine", authentication={"schemes": ["Bearer"], "credentials": "c"}),
    )
    assert second["result"]["pushNotificationConfig"]["id"] == "mine"

    got = await call(client, "tasks/pushNotificationConfig/get", {"id": task_id})
    assert got["result"] == first["result"]
    got = await call(
        client, "tasks/pushNotificationConfig/get", {"id": task_id, "pushNotificationConfigId": "mine"}
    )
    assert got["result"] == second["result"]
    listed = await call(client, "tasks/pushNotificationConfig/list", {"id": task_id})
    assert listed["result"] == [first["result"], second["result"]]


async def test_get_of_an_unknown_config_is_32602_and_delete_of_one_is_null(client: httpx.AsyncClient) -> None:
    task_id = await new_task(client)
    reply = await call(client, "tasks/pushNotificationConfig/get", {"id": task_id})
    assert reply["error"]["code"] == -32602
    reply = await call(
        client, "tasks/pushNotificationConfig/get", {"id": task_id, "pushNotificationConfigId": "x"}
    )
    assert reply["error"]["code"] == -32602
    assert "'x'" in reply["error"]["message"]
    reply = await call(
        client, "tasks/pushNotificationConfig/delete", {"id": task_id, "pushNotificationConfigId": "x"}
    )
    assert reply == {"jsonrpc": "2.0", "id": "r1", "result": None}


async def test_delete_removes_only_that_config(client: httpx.AsyncClient) -> None:
    task_id = await new_task(client)
    for config_id in ("a", "b"):
        await call(client, "tasks/pushNotificationConfig/set", push_params("set", task_id, id=config_id))
    reply = await call(
        client, "tasks/pushNotificationConfig/delete", {"id": task_id, "pushNotificationConfigId": "a"}
    )
    assert reply["result"] is None
    listed = await call(client, "tasks/pushNotificationConfig/list", {"id": task_id})
    assert [c["pushNotificationConfig"]["id"] for c in listed["result"]] == ["b"]


@pytest.mark.parametrize("method", METHODS)
async def test_an_unknown_task_is_32001(client: httpx.AsyncClient, method: str) -> None:
    reply = await call(client, f"tasks/pushNotificationConfig/{method}", push_params(method, "no-such-task"))
    assert reply["error"]["code"] == -32001


async def test_a_task_holds_at_most_the_configured_number_of_configs(client: httpx.AsyncClient) -> None:
    task_id = await new_task(client)
    for index in range(3):
        reply = await call(
            client, "tasks/pushNotificationConfig/set", push_params("set", task_id, id=f"c{index}")
        )
        assert "result" in reply
    reply = await call(client, "tasks/pushNotificationConfig/set", push_params("set", task_id, id="c3"))
    assert reply["error"]["code"] == -32602
    assert "3 push notification configs" in reply["error"]["message"]
    replaced = await call(
        client, "tasks/pushNotificationConfig/set", push_params("set", task_id, id="c1", token="new")
    )
    assert replaced["result"]["pushNotificationConfig"]["token"] == "new"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://10.0.0.1/hook", "private"),
        ("https://127.0.0.1/hook", "loopback"),
        ("https://169.254.169.254/latest/meta-data/", "link-local"),
        ("https://[fd00:ec2::254]/hook", "private"),
        ("https://224.0.0.1/hook", "multicast"),
        ("https://240.0.0.1/hook", "reserved"),
        ("https://0.0.0.0/hook", "unspecified"),
        ("https://100.64.0.1/hook", "carrier-grade NAT"),
        ("https://[::ffff:127.0.0.1]/hook", "embedding 127.0.0.1"),
        ("http://hooks.example.com/hook", "https"),
        ("https://user:pass@hooks.example.com/hook", "credentials"),
    ],
)
async def test_set_refuses_unsafe_urls_with_32602_and_the_reason(
    client: httpx.AsyncClient, stack: Stack, url: str, reason: str
) -> None:
    task_id = await new_task(client)
    reply = await call(
        client,
        "tasks/pushNotificationConfig/set",
        {"taskId": task_id, "pushNotificationConfig": {"url": url}},
    )
    assert reply["error"]["code"] == -32602
    assert reason in reply["error"]["message"]
    assert await stack.service.push.store.list(task_id) == []  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        ({"token": "a\r\nX-Injected: 1"}, "token"),
        ({"authentication": {"schemes": ["Bearer"], "credentials": "x\nY: z"}}, "credentials"),
        ({"authentication": {"schemes": ["Digest"], "credentials": "x"}}, "Bearer, Basic"),
    ],
)
async def test_set_refuses_header_injection_and_unsendable_credentials(
    client: httpx.AsyncClient, config: dict[str, Any], reason: str
) -> None:
    task_id = await new_task(client)
    reply = await call(client, "tasks/pushNotificationConfig/set", push_params("set", task_id, **config))
    assert reply["error"]["code"] == -32602
    assert reason in reply["error"]["message"]


async def test_message_send_stores_its_push_config_once_even_when_retried(client: httpx.AsyncClient) -> None:
    params = message(pushNotificationConfig={"url": HOOK, "token": "tok"})
    first = await call(client, "message/send", params)
    task_id = first["result"]["id"]
    again = await call(client, "message/send", params)  # a client's retry: same task, same config
    assert again["result"]["id"] == task_id
    listed = (await call(client, "tasks/pushNotificationConfig/list", {"id": task_id}))["result"]
    assert len(listed) == 1
    assert listed[0]["pushNotificationConfig"]["url"] == HOOK
    assert listed[0]["pushNotificationConfig"]["token"] == "tok"


async def test_a_continuation_can_add_a_config(stack: Stack, client: httpx.AsyncClient) -> None:
    from a2a_core.examples.multiturn import agent as multiturn

    stack = push_stack()
    stack.worker = stack.service.worker(multiturn)
    async with _client(stack) as client:
        task_id = (await call(client, "message/send", message("write")))["result"]["id"]
        await stack.drain()
        params = message("experts", pushNotificationConfig={"url": HOOK, "id": "later"})
        params["message"]["taskId"] = task_id
        reply = await call(client, "message/send", params)
        assert reply["result"]["id"] == task_id
        listed = (await call(client, "tasks/pushNotificationConfig/list", {"id": task_id}))["result"]
        assert [c["pushNotificationConfig"]["id"] for c in listed] == ["later"]


async def test_message_send_with_a_refused_push_url_creates_no_task(
    stack: Stack, client: httpx.AsyncClient
) -> None:
    reply = await call(client, "message/send", message(pushNotificationConfig={"url": "https://10.0.0.1/x"}))
    assert reply["error"]["code"] == -32602
    assert "private" in reply["error"]["message"]
    assert await stack.broker.receive(timeout=0) is None


async def test_message_stream_stores_its_push_config_too(stack: Stack, client: httpx.AsyncClient) -> None:
    from a2a_core.core.requests import SendRequest
    from a2a_core.core.streams import TaskStreams
    from a2a_core.protocol.v0 import MessageSendParams
    from support import CALLER

    params = MessageSendParams.model_validate(message(pushNotificationConfig={"url": HOOK, "id": "s1"}))
    assert params.configuration is not None
    request = SendRequest(params.message, push_config=params.configuration.push_notification_config)
    events = await TaskStreams(stack.engine).message_stream(request, CALLER)  # what message/stream runs
    first = await anext(events)  # the task as submitted
    task_id = first.result.id  # type: ignore[union-attr]
    await events.aclose()  # type: ignore[attr-defined]
    listed = (await call(client, "tasks/pushNotificationConfig/list", {"id": task_id}))["result"]
    assert [c["pushNotificationConfig"]["id"] for c in listed] == ["s1"]


async def test_a_continuation_whose_push_config_is_refused_leaves_the_task_waiting() -> None:
    stack = push_stack(push_max_configs_per_task=1)
    stack.worker = stack.service.worker(DraftWriter(delay=0))
    async with _client(stack) as client:
        task_id = await new_task(client)
        await stack.drain()
        assert (await stack.ledger.head(task_id)).state == TaskState.input_required
        assert "result" in await call(client, "tasks/pushNotificationConfig/set", push_params("set", task_id))
        reply = message("kids", pushNotificationConfig={"url": HOOK})
        reply["message"]["taskId"] = task_id
        answer = await call(client, "message/send", reply)
    assert answer["error"]["code"] == -32602
    assert (await stack.ledger.head(task_id)).state == TaskState.input_required
    assert len(stack.broker) == 0


async def _configs(client: httpx.AsyncClient, task_id: str) -> list[str]:
    listed = (await call(client, "tasks/pushNotificationConfig/list", {"id": task_id}))["result"]
    return [c["pushNotificationConfig"]["id"] for c in listed]


async def test_a_continuation_the_task_refuses_leaves_no_push_config() -> None:
    """Found by the 1.0 fuzz run under load: a message continuing a task that is still working
    was refused (-32602) after its push config had been stored."""
    stack = push_stack()
    async with _client(stack) as client:
        task_id = await new_task(client)  # working: its turn is queued, not yet run
        assert (await stack.ledger.head(task_id)).state != TaskState.input_required
        reply = message("kids", pushNotificationConfig={"url": HOOK, "id": "p1"})
        reply["message"]["taskId"] = task_id
        answer = await call(client, "message/send", reply)
        assert answer["error"]["code"] == -32602
        assert await _configs(client, task_id) == []


async def test_a_continuation_refused_after_its_config_was_stored_takes_the_config_back() -> None:
    """The task moves on between the engine's check and its write (another message continued it
    meanwhile): the refused message's config is removed, a config of that id stored earlier is not."""
    stack = push_stack()
    stack.worker = stack.service.worker(DraftWriter(delay=0))
    async with _client(stack) as client:
        task_id = await new_task(client)
        await stack.drain()
        assert (await stack.ledger.head(task_id)).state == TaskState.input_required
        push = stack.service.push
        assert push is not None
        attach = push.attach

        async def attach_then_continue(task: str, config: Any) -> Any:
            stored = await attach(task, config)
            # Meanwhile another message continued the task: it is working again.
            other = Message(role=Role.user, parts=[TextPart(text="first")], message_id="m", task_id=task)
            await stack.engine.submit(SendRequest(message=other, blocking=False), CALLER)
            return stored

        push.attach = attach_then_continue  # type: ignore[method-assign,assignment]
        reply = message("kids", pushNotificationConfig={"url": HOOK, "id": "late"})
        reply["message"]["taskId"] = task_id
        answer = await call(client, "message/send", reply)
        push.attach = attach  # type: ignore[method-assign]
        assert answer["error"]["code"] == -32602
        assert await _configs(client, task_id) == []
