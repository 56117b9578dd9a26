"""The API Lambda handler behind an API Gateway HTTP API and a Lambda function URL: both send
payload format 2.0 events, where the caller is ``authorizer.jwt`` or ``authorizer.iam`` in the
request context, there is no stage in the path and no API key."""

from __future__ import annotations

import asyncio
import copy
import json
import time
from types import ModuleType
from typing import Any

import pytest

from a2a_core.compose import compose_worker
from agents import slow
from auth_support import message, rpc, sse_data
from aws_events import api_context, api_event, load_function

COGNITO = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Example1"
ALICE_JWT = f"jwt:{COGNITO}|73a1b2c3-4d5e-6f70-8192-a3b4c5d6e7f8"
ALICE_IAM = "iam:arn:aws:sts::123456789012:assumed-role/agent-callers/alice"
IAM_EVENTS = ["apigw_http_iam_message_send.json", "lambda_url_iam_message_send.json"]
API_KEY = "a2aKeyExampleOnly0123456789abcdefXYZ"


def load_handler(monkeypatch: pytest.MonkeyPatch, **env: str) -> ModuleType:
    return load_function(monkeypatch, "api", {"A2A_BACKEND": "memory", **env})


def jwt_event(body: dict[str, Any] | None = None, *, expires_in: float = 3600) -> dict[str, Any]:
    """The JWT authorizer's event, its token expiring ``expires_in`` seconds from now (the
    authorizer renders the numeric claim as a string of digits)."""
    loaded = api_event("apigw_http_jwt_message_send.json", body)
    loaded["requestContext"]["authorizer"]["jwt"]["claims"]["exp"] = str(int(time.time() + expires_in))
    return loaded


def call(api: ModuleType, request: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any]]:
    response = api.handler(request, api_context())
    assert "multiValueHeaders" not in response, "a payload 2.0 event gets a 2.0 response"
    body: dict[str, Any] = json.loads(response["body"])
    return response["statusCode"], response.get("headers", {}), body


def get_task(request: dict[str, Any], task_id: str) -> dict[str, Any]:
    """``request`` (the same caller) asking for ``task_id`` instead."""
    again = copy.deepcopy(request)
    again["body"] = json.dumps(rpc("tasks/get", {"id": task_id, "historyLength": 0}, 2))
    again["headers"]["content-length"] = str(len(again["body"]))
    return again


def owner(api: ModuleType, loop: asyncio.AbstractEventLoop, task_id: str) -> str:
    head = loop.run_until_complete(api.adapters.store.head(task_id))
    return str(head.owner)


def test_message_send_and_tasks_get_through_an_http_api(
    monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop
) -> None:
    api = load_handler(monkeypatch, A2A_ALLOW_UNAUTHENTICATED="true")
    request = api_event("apigw_http_message_send.json")
    status, headers, answer = call(api, request)
    assert status == 200
    assert headers["content-type"] == "application/json"
    task = answer["result"]
    assert answer["id"] == "req-1"
    assert task["status"]["state"] == "submitted"
    assert [m["parts"][0]["text"] for m in task["history"]] == ["hello from API Gateway"]

    status, _, fetched = call(api, get_task(request, task["id"]))
    assert status == 200
    assert fetched["result"]["id"] == task["id"]
    assert fetched["result"]["history"] == []


@pytest.mark.parametrize(
    ("name", "url"),
    [
        ("apigw_http_agent_card.json", "https://h7x2mpl9q4.execute-api.us-east-1.amazonaws.com/"),
        (
            "lambda_url_agent_card.json",
            "https://4xmpl3urlid5nq7d2hjk6wvtbe3yzm0a.lambda-url.us-east-1.on.aws/",
        ),
    ],
)
def test_the_card_url_has_no_stage_path(
    monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop, name: str, url: str
) -> None:
    api = load_handler(monkeypatch, A2A_ALLOW_UNAUTHENTICATED="true")
    status, _, card = call(api, api_event(name))
    assert status == 200
    assert card["url"] == url


def test_the_jwt_authorizer_caller_owns_its_tasks(
    monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop
) -> None:
    api = load_handler(monkeypatch, A2A_AUTH_MODE="jwt")
    request = jwt_event()
    status, _, answer = call(api, request)
    assert status == 200
    task_id = answer["result"]["id"]
    assert owner(api, loop, task_id) == ALICE_JWT
    assert call(api, get_task(request, task_id))[2]["result"]["id"] == task_id

    someone_else = get_task(request, task_id)
    someone_else["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = (
        "b0b00000-0000-4000-8000-000000000000"
    )
    status, _, answer = call(api, someone_else)
    assert status == 200
    assert answer["error"] == {"code": -32001, "message": f"Task {task_id} not found"}


def test_scopes_come_from_the_jwt_authorizer_scope_list() -> None:
    from a2a_core.auth.bearer import BearerAuthenticator

    request = jwt_event()
    del request["requestContext"]["authorizer"]["jwt"]["claims"]["scope"]
    principal = asyncio.run(BearerAuthenticator(None).authenticate({"aws.event": request}, {}))
    assert principal.key == ALICE_JWT
    assert principal.scopes == {"a2a/tasks.write", "a2a/tasks.read"}


def test_an_expired_token_the_authorizer_passed_is_401_invalid_token(
    monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop
) -> None:
    api = load_handler(monkeypatch, A2A_AUTH_MODE="jwt")
    status, headers, answer = call(api, jwt_event(expires_in=-3600))
    assert status == 401
    assert 'error="invalid_token"' in headers["www-authenticate"]
    assert (
        answer["error"]["message"] == "Authentication required: the bearer token has expired; get a new one"
    )
    assert not api.adapters.store._logs


@pytest.mark.parametrize(("mode", "challenge"), [("jwt", 'Bearer realm="a2a"'), ("iam", "AWS4-HMAC-SHA256")])
def test_a_route_without_an_authorizer_is_401(
    monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop, mode: str, challenge: str
) -> None:
    api = load_handler(monkeypatch, A2A_AUTH_MODE=mode)
    status, headers, answer = call(api, api_event("apigw_http_message_send.json"))
    assert status == 401
    assert headers["www-authenticate"] == challenge
    assert answer["error"]["code"] == -32600
    assert not api.adapters.store._logs


@pytest.mark.parametrize("name", IAM_EVENTS)
def test_the_sigv4_signer_owns_its_tasks(
    monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop, name: str
) -> None:
    api = load_handler(monkeypatch, A2A_AUTH_MODE="iam")
    request = api_event(name)
    status, _, answer = call(api, request)
    assert status == 200
    task_id = answer["result"]["id"]
    assert owner(api, loop, task_id) == ALICE_IAM
    assert call(api, get_task(request, task_id))[2]["result"]["id"] == task_id

    someone_else = get_task(request, task_id)
    iam = someone_else["requestContext"]["authorizer"]["iam"]
    iam["userArn"] = "arn:aws:sts::123456789012:assumed-role/agent-callers/bob"
    status, _, answer = call(api, someone_else)
    assert answer["error"] == {"code": -32001, "message": f"Task {task_id} not found"}


@pytest.mark.parametrize("name", IAM_EVENTS)
def test_iam_without_the_signer_is_401(
    monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop, name: str
) -> None:
    # A function URL with auth type NONE sends "authorizer": null.
    api = load_handler(monkeypatch, A2A_AUTH_MODE="iam")
    request = api_event(name)
    request["requestContext"]["authorizer"] = None
    status, headers, _ = call(api, request)
    assert status == 401
    assert headers["www-authenticate"] == "AWS4-HMAC-SHA256"
    assert not api.adapters.store._logs


@pytest.mark.parametrize("name", ["apigw_http_message_send.json", "lambda_url_iam_message_send.json"])
def test_api_keys_are_refused_without_a_rest_api_even_when_the_key_is_valid(
    monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop, name: str
) -> None:
    # Nothing in front of the function checked this header: taking it would trust the caller's word.
    api = load_handler(monkeypatch, A2A_AUTH_MODE="api_key", A2A_API_KEYS=json.dumps({"alice": API_KEY}))
    request = api_event(name)
    request["headers"]["x-api-key"] = API_KEY
    status, _, answer = call(api, request)
    assert status == 403
    assert "REST API" in answer["error"]["message"]
    assert not api.adapters.store._logs


def test_message_stream_is_one_buffered_sse_body(
    monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop
) -> None:
    api = load_handler(monkeypatch, A2A_ALLOW_UNAUTHENTICATED="true", A2A_STREAM_BUFFER_SECONDS="5")
    body = rpc("message/stream", {"message": message("chunks=2 delay=0")}, "s-1")
    request = api_event("apigw_http_message_send.json", body)
    request["headers"]["accept"] = "text/event-stream"

    async def run_next_turn() -> None:
        operation = await api.adapters.broker.receive(timeout=2.0)
        assert operation is not None
        await compose_worker(api.adapters, slow).handle(operation)

    worker = loop.create_task(run_next_turn())
    response = api.handler(request, api_context())
    loop.run_until_complete(worker)

    assert response["statusCode"] == 200
    assert response["headers"]["content-type"].startswith("text/event-stream")
    assert response["isBase64Encoded"] is False
    assert response["body"].endswith(("\n\n", "\r\n\r\n"))
    events = sse_data(response["body"])
    assert {answer["id"] for answer in events} == {"s-1"}
    results = [answer["result"] for answer in events]
    assert results[0]["kind"] == "task"
    assert results[-1]["status"]["state"] == "completed"
    assert results[-1]["final"] is True
