"""Input that used to slip past validation (outside testing, issue 16), over HTTP.

Lone UTF-16 surrogates, strings where the schema wants booleans or integers, base64 that is not,
file URIs with schemes the agent does not take, nesting past the limit, CR/LF in push headers:
each is refused with the error code and ``data.field`` that name the offending field, echoes the
request id, writes nothing and logs no error.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_core.compose.app import compose_app
from a2a_core.examples.multiturn import agent as multiturn
from a2a_core.push.urls import UrlPolicy
from auth_support import sse_data
from support import Stack

pytestmark = pytest.mark.anyio

LONE = "\ud800"
HOOK = "https://hooks.example.com/a2a"


async def public_dns(host: str, port: int) -> list[str]:
    return ["93.184.215.14"]


def hardened_stack(**settings: Any) -> Stack:
    stack = Stack(multiturn, push_enabled=True, default_blocking=False, **settings)
    assert stack.service.push is not None
    stack.service.push.policy = UrlPolicy(resolver=public_dns)  # no DNS here: a stub answers
    return stack


@pytest.fixture
def stack() -> Stack:
    return hardened_stack()


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    async with httpx.AsyncClient(transport=transport, base_url="http://agent.test") as client:
        yield client


@pytest.fixture
async def task_id(client: httpx.AsyncClient, stack: Stack) -> str:
    """A task waiting for input (the multiturn agent asks), with one push config."""
    answer = await post(client, rpc("message/send", {"message": message("draft")}))
    task: str = answer["result"]["id"]
    await stack.drain()
    config = {"taskId": task, "pushNotificationConfig": {"url": HOOK, "id": "cfg"}}
    assert "result" in await post(client, rpc("tasks/pushNotificationConfig/set", config))
    return task


def rpc(method: str, params: Any, request_id: Any = 7) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def message(text: str = "hi", **fields: Any) -> dict[str, Any]:
    return {"role": "user", "messageId": "m-1", "parts": [{"kind": "text", "text": text}], **fields}


async def post(client: httpx.AsyncClient, payload: Any) -> dict[str, Any]:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    response = await client.post("/", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    answer: dict[str, Any] = response.json()
    return answer


def state(stack: Stack) -> tuple[int, int, int]:
    push = stack.service.push
    assert push is not None
    configs = push.store._configs  # type: ignore[attr-defined]
    return sum(map(len, stack.store._logs.values())), len(stack.broker), sum(map(len, configs.values()))


async def refused(
    client: httpx.AsyncClient, stack: Stack, payload: Any, code: int = -32602, request_id: Any = 7
) -> dict[str, Any]:
    """The error of a refused request, checked to have changed nothing."""
    before = state(stack)
    answer = await post(client, payload)
    assert answer["id"] == request_id
    assert "result" not in answer, answer
    assert answer["error"]["code"] == code, answer
    assert state(stack) == before
    error: dict[str, Any] = answer["error"]
    return error


def first_field(error: dict[str, Any]) -> str:
    data = error["data"]
    field: str = data[0]["field"] if isinstance(data, list) else data["field"]
    return field


# 1. Lone surrogates: -32602 naming the field, for every method, nothing written, nothing logged.

SEND_SURROGATES = [
    ({"message": message(f"a{LONE}b")}, "message.parts.0.text"),
    ({"message": message(messageId=LONE)}, "message.messageId"),
    ({"message": message(contextId=f"ctx{LONE}")}, "message.contextId"),
    ({"message": message(metadata={"note": [1, LONE]})}, "message.metadata.note.1"),
    ({"message": message(metadata={LONE: 1})}, "message.metadata.\\ud800"),
    ({"message": message(), "metadata": {"k": LONE}}, "metadata.k"),
    ({"message": {**message(), "parts": [{"kind": "data", "data": {"x": {"y": LONE}}}]}},
     "message.parts.0.data.x.y"),
    ({"message": message(), "configuration": {"pushNotificationConfig": {"url": HOOK, "token": LONE}}},
     "configuration.pushNotificationConfig.token"),
]  # fmt: skip


@pytest.mark.parametrize("method", ["message/send", "message/stream"])
@pytest.mark.parametrize(("params", "field"), SEND_SURROGATES, ids=[f for _, f in SEND_SURROGATES])
async def test_a_lone_surrogate_in_a_message_is_invalid_params(
    client: httpx.AsyncClient,
    stack: Stack,
    caplog: pytest.LogCaptureFixture,
    method: str,
    params: dict[str, Any],
    field: str,
) -> None:
    error = await refused(client, stack, rpc(method, params))
    assert error["data"][0]["field"] == field
    assert error["data"][0]["type"] == "string_unicode"
    assert field in error["message"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


TASK_SURROGATES = [
    ("tasks/get", {"id": "{task}", "metadata": {"k": LONE}}, "metadata.k"),
    ("tasks/get", {"id": f"{{task}}{LONE}"}, "id"),
    ("tasks/cancel", {"id": f"{{task}}{LONE}"}, "id"),
    ("tasks/resubscribe", {"id": f"{{task}}{LONE}"}, "id"),
    ("tasks/pushNotificationConfig/set",
     {"taskId": "{task}", "pushNotificationConfig": {"url": f"{HOOK}{LONE}"}}, "pushNotificationConfig.url"),
    ("tasks/pushNotificationConfig/set",
     {"taskId": "{task}", "pushNotificationConfig": {"url": HOOK, "authentication": {
         "schemes": ["Bearer"], "credentials": LONE}}}, "pushNotificationConfig.authentication.credentials"),
    ("tasks/pushNotificationConfig/get", {"id": "{task}", "pushNotificationConfigId": LONE},
     "pushNotificationConfigId"),
    ("tasks/pushNotificationConfig/list", {"id": "{task}", "metadata": {LONE: LONE}}, "metadata.\\ud800"),
    ("tasks/pushNotificationConfig/delete", {"id": "{task}", "pushNotificationConfigId": f"cfg{LONE}"},
     "pushNotificationConfigId"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("method", "params", "field"), TASK_SURROGATES, ids=[f"{m} {f}" for m, _, f in TASK_SURROGATES]
)
async def test_a_lone_surrogate_in_task_params_is_invalid_params(
    client: httpx.AsyncClient,
    stack: Stack,
    task_id: str,
    caplog: pytest.LogCaptureFixture,
    method: str,
    params: dict[str, Any],
    field: str,
) -> None:
    filled = json.loads(json.dumps(params).replace("{task}", task_id))
    error = await refused(client, stack, rpc(method, filled))
    assert error["data"][0]["field"] == field
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    push = stack.service.push
    assert push is not None
    assert [c.id for c in await push.store.list(task_id)] == ["cfg"]  # delete did not happen


async def test_a_surrogate_sent_as_raw_bytes_is_refused_the_same_way(
    client: httpx.AsyncClient, stack: Stack
) -> None:
    # \xed\xa0\x80 is U+D800 encoded as if it were a character: not UTF-8, but json.loads takes it.
    body = (
        json.dumps(rpc("message/send", {"message": message("RAW")})).encode().replace(b"RAW", b"\xed\xa0\x80")
    )
    error = await refused(client, stack, body)
    assert first_field(error) == "message.parts.0.text"


async def test_a_paired_surrogate_escape_is_a_character_and_accepted(client: httpx.AsyncClient) -> None:
    body = json.dumps(rpc("message/send", {"message": message("smile \U0001f600")})).encode()
    assert b"\\ud83d\\ude00" in body
    answer = await post(client, body)
    assert answer["result"]["history"][0]["parts"][0]["text"] == "smile \U0001f600"


async def test_a_lone_surrogate_in_the_request_id_is_an_invalid_request(
    client: httpx.AsyncClient, stack: Stack
) -> None:
    await refused(client, stack, rpc("tasks/get", {"id": "x"}, f"id{LONE}"), code=-32600, request_id=None)


async def test_a_lone_surrogate_in_a_stream_request_never_starts_the_stream(
    client: httpx.AsyncClient, stack: Stack
) -> None:
    body = json.dumps(rpc("message/stream", {"message": message(LONE)}))
    response = await client.post("/", content=body, headers={"content-type": "application/json"})
    assert response.headers["content-type"] == "application/json"
    assert response.json()["error"]["code"] == -32602
    assert not sse_data(response.text)
    assert state(stack) == (0, 0, 0)


# 2. No lax coercion: the schema's booleans and integers, base64, file URI schemes.

STRICT_SCALARS = [
    ("message/send", {"message": message(), "configuration": {"blocking": "yes"}}, "configuration.blocking"),
    ("message/send", {"message": message(), "configuration": {"blocking": 1}}, "configuration.blocking"),
    ("message/send", {"message": message(), "configuration": {"historyLength": "2"}},
     "configuration.historyLength"),
    ("message/stream", {"message": message(), "configuration": {"blocking": "true"}},
     "configuration.blocking"),
    ("tasks/get", {"id": "t", "historyLength": "2"}, "historyLength"),
    ("tasks/get", {"id": "t", "historyLength": 2.5}, "historyLength"),
    ("tasks/get", {"id": "t", "historyLength": True}, "historyLength"),
    ("tasks/get", {"id": 12}, "id"),
    ("tasks/cancel", {"id": 12}, "id"),
    ("message/send", {"message": message(messageId=5)}, "message.messageId"),
    ("message/send", {"message": message(contextId=5)}, "message.contextId"),
    ("message/send", {"message": {**message(), "parts": [{"kind": "text", "text": 5}]}},
     "message.parts.0.text"),
    ("tasks/pushNotificationConfig/set", {"taskId": "t", "pushNotificationConfig": {"url": HOOK, "token": 5}},
     "pushNotificationConfig.token"),
    ("tasks/pushNotificationConfig/get", {"id": "t", "pushNotificationConfigId": 5},
     "pushNotificationConfigId"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("method", "params", "field"), STRICT_SCALARS, ids=[f"{m} {f}" for m, _, f in STRICT_SCALARS]
)
async def test_wrong_typed_scalars_are_refused_not_coerced(
    client: httpx.AsyncClient, stack: Stack, method: str, params: dict[str, Any], field: str
) -> None:
    error = await refused(client, stack, rpc(method, params))
    assert first_field(error) == field


UNION_FIELDS = [
    ([{"kind": "text"}], "message.parts.0.text"),
    ([{"kind": "text", "text": "ok", "metadata": 5}], "message.parts.0.metadata"),
    ([{"kind": "data", "data": 5}], "message.parts.0.data"),
    ([{"kind": "file", "file": {"uri": 5}}], "message.parts.0.file.uri"),
    ([{"kind": "file", "file": {"bytes": 5}}], "message.parts.0.file.bytes"),
    ([{"kind": "file", "file": {"name": "a.txt"}}], "message.parts.0.file.uri"),
    ([{"kind": "file", "file": 5}], "message.parts.0.file"),
    ([{"kind": "text", "text": "ok"}, {"kind": "video"}], "message.parts.1"),
]


@pytest.mark.parametrize(("parts", "field"), UNION_FIELDS, ids=[f for _, f in UNION_FIELDS])
async def test_error_fields_name_the_clients_keys_not_union_tags(
    client: httpx.AsyncClient, stack: Stack, parts: list[Any], field: str
) -> None:
    # pydantic's locations carry the part's tag and the file variant's class name
    # (message.parts.0.text.text, ...file.FileWithBytes.bytes); data.field is the input's path.
    error = await refused(client, stack, rpc("message/send", {"message": {**message(), "parts": parts}}))
    assert [d["field"] for d in error["data"]] == [field]
    assert error["message"].startswith(f"Invalid params: {field}: ")


def file_part(**file: Any) -> dict[str, Any]:
    return {"message": {**message(), "parts": [{"kind": "file", "file": {"mimeType": "text/plain", **file}}]}}


@pytest.mark.parametrize("value", ["not base64!", "aGVsbG8", "aGVs\nbG8=", "aGVsbG8=="])
async def test_file_bytes_must_be_base64(client: httpx.AsyncClient, stack: Stack, value: str) -> None:
    error = await refused(client, stack, rpc("message/send", file_part(bytes=value)))
    assert error["data"][0]["field"] == "message.parts.0.file.bytes"
    assert "base64" in error["message"]


async def test_valid_base64_bytes_are_stored(client: httpx.AsyncClient) -> None:
    answer = await post(client, rpc("message/send", file_part(bytes="aGVsbG8=", name="hello.txt")))
    assert answer["result"]["history"][0]["parts"][0]["file"]["bytes"] == "aGVsbG8="


@pytest.mark.parametrize(
    "uri", ["file:///etc/passwd", "ftp://files.example.com/a", "javascript:alert(1)", "/etc/passwd", ""]
)
async def test_file_uris_outside_the_allowed_schemes_are_refused(
    client: httpx.AsyncClient, stack: Stack, uri: str
) -> None:
    error = await refused(client, stack, rpc("message/send", file_part(uri=uri)))
    assert error["data"]["field"] == "message.parts.0.file.uri"
    assert error["data"]["allowedSchemes"] == ["http", "https", "s3"]


@pytest.mark.parametrize(
    "uri", ["https://files.example.com/a.txt", "HTTP://files.example.com/a", "s3://bucket/key"]
)
async def test_file_uris_with_allowed_schemes_are_accepted(client: httpx.AsyncClient, uri: str) -> None:
    answer = await post(client, rpc("message/send", file_part(uri=uri)))
    assert answer["result"]["history"][0]["parts"][0]["file"]["uri"] == uri


async def test_the_allowed_file_uri_schemes_are_a_setting_the_card_shows() -> None:
    stack = hardened_stack(file_uri_schemes=["https"])
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    async with httpx.AsyncClient(transport=transport, base_url="http://agent.test") as client:
        error = await refused(client, stack, rpc("message/send", file_part(uri="http://files.example.com/a")))
        card = (await client.get("/.well-known/agent-card.json")).json()
    assert error["data"]["allowedSchemes"] == ["https"]
    extension = next(e for e in card["capabilities"]["extensions"] if e["params"].get("fileUriSchemes"))
    assert extension["params"]["fileUriSchemes"] == ["https"]
    assert extension["required"] is False


# 3. Nesting past the limit: the id echoed whenever it was readable, data.field the deep field.


def deep(levels: int) -> str:
    return '{"a":' * levels + "1" + "}" * levels


@pytest.mark.parametrize("levels", [70, 900, 5_000, 200_000])
@pytest.mark.parametrize("id_first", [True, False])
async def test_too_deep_a_request_echoes_its_id_and_names_the_field(
    client: httpx.AsyncClient, stack: Stack, levels: int, id_first: bool
) -> None:
    head, tail = (
        '{"jsonrpc":"2.0","id":41,',
        f'"method":"tasks/get","params":{{"id":"x","metadata":{deep(levels)}}}}}',
    )
    body = (head + tail if id_first else '{"jsonrpc":"2.0",' + tail[:-1] + ',"id":41}').encode()
    error = await refused(client, stack, body, code=-32600, request_id=41)
    field = error["data"]["field"]
    assert field.startswith("params.metadata.a.a.")
    assert len(field.split(".")) == error["data"]["maxDepth"]  # the first container past the limit


async def test_too_deep_inside_an_array_names_the_index(client: httpx.AsyncClient, stack: Stack) -> None:
    nested = "[" * 3000 + "]" * 3000
    params = f'{{"id":"x","metadata":{{"l":[0,{nested}]}}}}'
    body = f'{{"jsonrpc":"2.0","id":"q","method":"tasks/get","params":{params}}}'
    error = await refused(client, stack, body.encode(), code=-32600, request_id="q")
    assert error["data"]["field"].startswith("params.metadata.l.1.0.0.")


async def test_too_deep_with_an_unreadable_id_answers_null(client: httpx.AsyncClient, stack: Stack) -> None:
    body = '{"jsonrpc":"2.0","id":{"x":1},"method":"tasks/get","params":' + "[" * 3000 + "]" * 3000 + "}"
    await refused(client, stack, body.encode(), code=-32600, request_id=None)


# 4. CR/LF in push headers: data.field names the header's field, not the URL.

PUSH_HEADERS = [
    ({"token": "a\r\nX-Evil: 1"}, "token"),
    ({"authentication": {"schemes": ["Bearer"], "credentials": "abc\ndef"}}, "authentication.credentials"),
    ({"authentication": {"schemes": ["Digest"], "credentials": "abc"}}, "authentication.schemes"),
]


@pytest.mark.parametrize(("config", "field"), PUSH_HEADERS, ids=[f for _, f in PUSH_HEADERS])
async def test_push_header_values_are_refused_naming_their_field(
    client: httpx.AsyncClient, stack: Stack, task_id: str, config: dict[str, Any], field: str
) -> None:
    params = {"taskId": task_id, "pushNotificationConfig": {"url": HOOK, **config}}
    error = await refused(client, stack, rpc("tasks/pushNotificationConfig/set", params))
    assert error["data"]["field"] == f"pushNotificationConfig.{field}"
    sent = {"message": message(), "configuration": {"pushNotificationConfig": {"url": HOOK, **config}}}
    error = await refused(client, stack, rpc("message/send", sent))
    assert error["data"]["field"] == f"configuration.pushNotificationConfig.{field}"


async def test_a_refused_push_url_names_the_url(
    client: httpx.AsyncClient, stack: Stack, task_id: str
) -> None:
    params = {"taskId": task_id, "pushNotificationConfig": {"url": "http://169.254.169.254/"}}
    error = await refused(client, stack, rpc("tasks/pushNotificationConfig/set", params))
    assert error["data"]["field"] == "pushNotificationConfig.url"


async def internal_dns(host: str, port: int) -> list[str]:
    """This network's names: "vm" is a machine here, "db" another, anything else does not exist."""
    names = {"vm": ["127.0.0.1"], "db": ["10.0.3.7"], "hooks.example.com": ["93.184.215.14"]}
    if host not in names:
        raise OSError("Name or service not known")
    return names[host]


@pytest.mark.parametrize("url", ["https://vm:9/hook", "https://db/hook", "https://nowhere/hook"])
async def test_a_refused_webhook_never_says_what_its_host_resolves_to(
    client: httpx.AsyncClient, stack: Stack, task_id: str, url: str
) -> None:
    # Issue 22 item 16: "host 'vm' resolves to 127.0.0.1, a loopback address" let any caller map
    # the agent's internal names. An internal name and one that does not exist read alike.
    push = stack.service.push
    assert push is not None
    push.policy = UrlPolicy(resolver=internal_dns)
    host = url.split("//")[1].split(":")[0].split("/")[0]
    rule = (
        f"host {host!r} is refused: webhooks must be reachable on the public internet (global "
        "unicast addresses only), and a name must resolve to such addresses only"
    )
    params = {"taskId": task_id, "pushNotificationConfig": {"url": url}}
    error = await refused(client, stack, rpc("tasks/pushNotificationConfig/set", params))
    assert error["data"] == {"field": "pushNotificationConfig.url", "reason": rule}
    v1 = {"taskId": task_id, "url": url}
    response = await client.post(
        f"/tasks/{task_id}/pushNotificationConfigs", json=v1, headers={"A2A-Version": "1.0"}
    )
    assert response.status_code == 400
    assert rule in response.json()["error"]["message"]
    assert "127.0.0.1" not in response.text
    assert "10.0.3.7" not in response.text
