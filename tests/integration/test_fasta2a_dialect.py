"""fasta2a 2.x's dialect of the 0.3 methods (`a2a_core.protocol.v0.fasta2a`), over HTTP.

fasta2a's client sends ``message/send`` / ``message/stream`` with 1.0-shaped messages (no
``kind``) and 0.3 enum spellings. With ``fasta2a_compat`` on they are read as 1.0 reads them and
answered in fasta2a's shapes; anything that is not exactly that shape is read as 0.3 always was.
Off (the default), the 0.3 schema's refusal stands, saying how to call instead. The end-to-end
run with fasta2a's own client is in tests/e2e/test_clients_legacy.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest

from a2a_core.compose.app import compose_app
from a2a_core.examples.echo import agent as echo
from a2a_core.push.urls import UrlPolicy
from support import Stack

pytestmark = pytest.mark.anyio

HOOK = "https://hooks.example.com/a2a"


async def public_dns(host: str, port: int) -> list[str]:
    return ["93.184.215.14"]


def compat_stack(**settings: Any) -> Stack:
    stack = Stack(echo, push_enabled=True, default_blocking=False, fasta2a_compat=True, **settings)
    assert stack.service.push is not None
    stack.service.push.policy = UrlPolicy(resolver=public_dns)  # no DNS here: a stub answers
    return stack


@pytest.fixture
def stack() -> Stack:
    return compat_stack()


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with _client(stack) as client:
        yield client


def _client(stack: Stack) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    return httpx.AsyncClient(transport=transport, base_url="http://agent.test")


def rpc(method: str, params: Any, request_id: Any = "r-1") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def fasta2a_message(*parts: Any, **fields: Any) -> dict[str, Any]:
    """A message as fasta2a's client writes it."""
    return {"role": "user", "parts": list(parts) or [{"text": "hi"}], "messageId": "m-1", **fields}


def send(message: dict[str, Any], **params: Any) -> dict[str, Any]:
    return rpc("message/send", {"message": message, **params})


async def post(client: httpx.AsyncClient, payload: Any) -> dict[str, Any]:
    response = await client.post("/", content=json.dumps(payload).encode())
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    answer: dict[str, Any] = response.json()
    return answer


def _state(stack: Stack) -> tuple[int, int]:
    return len(stack.store._logs), len(stack.broker)


async def test_a_fasta2a_send_is_answered_as_fasta2a_reads_it(
    client: httpx.AsyncClient, stack: Stack
) -> None:
    answer = await post(client, send(fasta2a_message(), configuration={"blocking": False}))
    assert answer["id"] == "r-1"
    task = answer["result"]["task"]
    assert set(answer["result"]) == {"task"}
    assert "kind" not in task
    assert task["status"]["state"] == "submitted"
    assert task["history"] == [
        {
            "messageId": "m-1",
            "role": "user",
            "parts": [{"text": "hi"}],
            "contextId": task["contextId"],
            "taskId": task["id"],
        }
    ]

    await stack.drain()
    done = (await post(client, rpc("tasks/get", {"id": task["id"]}, None)))["result"]
    # tasks/get says nothing of the dialect: 0.3, which fasta2a reads (it ignores `kind`).
    assert (done["kind"], done["status"]["state"]) == ("task", "completed")
    assert done["status"]["message"]["parts"] == [{"kind": "text", "text": "Echo: hi"}]


async def test_blocking_true_waits_for_the_answer(stack: Stack) -> None:
    async with _client(stack) as client, anyio.create_task_group() as tg:
        tg.start_soon(_drain_soon, stack)
        answer = await post(client, send(fasta2a_message(), configuration={"blocking": True}))
    task = answer["result"]["task"]
    assert task["status"]["state"] == "completed"
    assert task["status"]["message"]["role"] == "agent"
    assert task["status"]["message"]["parts"] == [{"text": "Echo: hi"}]


async def test_blocking_null_leaves_it_to_the_server(client: httpx.AsyncClient) -> None:
    answer = await post(client, send(fasta2a_message(), configuration={"blocking": None}))
    assert answer["result"]["task"]["status"]["state"] == "submitted"  # this stack's default


async def _drain_soon(stack: Stack) -> None:
    await anyio.wait_all_tasks_blocked()  # the send has queued its run and waits for its end
    assert await stack.drain() == 1


async def test_every_part_member_is_read_as_1_0_reads_it(client: httpx.AsyncClient) -> None:
    parts = [
        {"text": "hi", "mediaType": "text/plain"},
        {"raw": "aGk=", "mediaType": "text/plain", "filename": "hi.txt"},
        {"url": "https://files.example.com/a.json", "mediaType": "application/json"},
        {"data": [1, {"role": "ROLE_AGENT", "state": "TASK_STATE_FAILED"}]},
    ]
    answer = await post(client, send(fasta2a_message(*parts), configuration={"blocking": False}))
    task_id = answer["result"]["task"]["id"]
    # Written back as sent: 1.0 members, the data (the application's) untouched.
    assert answer["result"]["task"]["history"][0]["parts"] == parts

    stored = (await post(client, rpc("tasks/get", {"id": task_id})))["result"]["history"][0]["parts"]
    assert [part["kind"] for part in stored] == ["text", "file", "file", "data"]
    assert stored[1]["file"] == {"bytes": "aGk=", "mimeType": "text/plain", "name": "hi.txt"}
    assert stored[2]["file"] == {"uri": "https://files.example.com/a.json", "mimeType": "application/json"}


async def test_a_push_config_in_the_configuration_is_set(client: httpx.AsyncClient) -> None:
    configuration = {
        "blocking": False,
        "taskPushNotificationConfig": {"url": HOOK, "id": "cfg", "token": "t"},
    }
    answer = await post(client, send(fasta2a_message(), configuration=configuration))
    task_id = answer["result"]["task"]["id"]
    listed = await post(client, rpc("tasks/pushNotificationConfig/list", {"id": task_id}))
    assert [
        (c["pushNotificationConfig"]["id"], c["pushNotificationConfig"]["url"]) for c in listed["result"]
    ] == [("cfg", HOOK)]


async def test_continuing_an_unknown_task_is_task_not_found(client: httpx.AsyncClient, stack: Stack) -> None:
    before = _state(stack)
    answer = await post(client, send(fasta2a_message(taskId="nope")))
    assert answer["error"]["code"] == -32001
    assert _state(stack) == before


BLOCKING = "configuration.blocking"
REFUSED = [
    ("blocking not a boolean", send(fasta2a_message(), configuration={"blocking": "yes"}), BLOCKING),
    ("blocking and returnImmediately", send(
        fasta2a_message(), configuration={"blocking": True, "returnImmediately": True}), BLOCKING),
    ("role not user or agent", send(fasta2a_message(role="system")), "message.role"),
    ("agent role", send(fasta2a_message(role="agent")), None),
    ("two members in a part", send(fasta2a_message({"text": "a", "data": {}})), "message.parts[0]"),
    ("no member in a part", send(fasta2a_message({"metadata": {}})), "message.parts[0]"),
    ("raw not base64", send(fasta2a_message({"raw": "not base64!"})), "message.parts[0].raw"),
    ("url scheme not taken", send(fasta2a_message({"url": "file:///etc/passwd"})), None),
    ("another tenant", send(fasta2a_message(), tenant="other"), "tenant"),
    ("no messageId", send({"role": "user", "parts": [{"text": "hi"}]}), "message.messageId"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "payload", "field"), REFUSED, ids=[c[0] for c in REFUSED])
async def test_a_bad_fasta2a_message_is_refused_naming_the_field(
    client: httpx.AsyncClient, stack: Stack, name: str, payload: dict[str, Any], field: str | None
) -> None:
    before = _state(stack)
    answer = await post(client, payload)
    assert answer["id"] == "r-1"
    assert answer["error"]["code"] == -32602, answer
    if field is not None:
        assert answer["error"]["data"][0]["field"] == field, answer
    assert _state(stack) == before


NOT_FASTA2A = [
    # A 0.x message has `kind`: a kind-less part in it is the 0.3 error it always was.
    ("kind on the message", {**fasta2a_message(), "kind": "message"}),
    ("one part with kind", fasta2a_message({"text": "a"}, {"kind": "text", "text": "b"})),
    ("a part that is not an object", fasta2a_message({"text": "a"}, "b")),
]


@pytest.mark.parametrize(("name", "message"), NOT_FASTA2A, ids=[c[0] for c in NOT_FASTA2A])
async def test_anything_else_is_read_as_0_3(
    client: httpx.AsyncClient, stack: Stack, name: str, message: dict[str, Any]
) -> None:
    before = _state(stack)
    answer = await post(client, send(message))
    assert answer["error"]["code"] == -32602
    assert "fasta2a" not in answer["error"]["message"]
    assert _state(stack) == before


async def test_a_0_3_message_is_answered_in_0_3(client: httpx.AsyncClient) -> None:
    message = {**fasta2a_message({"kind": "text", "text": "hi"}), "kind": "message"}
    task = (await post(client, send(message, configuration={"blocking": False})))["result"]
    assert (task["kind"], task["status"]["state"]) == ("task", "submitted")
    assert task["history"][0]["parts"] == [{"kind": "text", "text": "hi"}]


async def test_the_dialect_is_refused_when_compat_is_off() -> None:
    stack = Stack(echo, default_blocking=False)
    async with _client(stack) as client:
        for method in ("message/send", "message/stream"):
            answer = await post(client, rpc(method, {"message": fasta2a_message()}))
            error = answer["error"]
            assert error["code"] == -32602
            assert error["data"][0]["field"] == "message.parts.0"
            assert "A2A_FASTA2A_COMPAT" in error["message"]
    assert _state(stack) == (0, 0)
