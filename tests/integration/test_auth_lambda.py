"""Auth behind API Gateway: the API Lambda handler fed REST proxy events whose request context
carries what the gateway verified (API key id, Cognito authorizer claims, SigV4 caller ARN)."""

from __future__ import annotations

import asyncio
import copy
import json
from types import ModuleType
from typing import Any

import pytest

from a2a_core.settings import SettingsError
from aws_events import api_context, api_event, load_function

# mode -> (event file, the caller's principal as tasks record it, how to make it someone else)
MODES = {
    "api_key": ("apigw_rest_api_key_message_send.json", "api_key:k7x9p2q4r1", ("identity", "apiKeyId")),
    "jwt": (
        "apigw_rest_cognito_message_send.json",
        "jwt:https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Example1|73a1b2c3-4d5e-6f70-8192-a3b4c5d6e7f8",
        ("authorizer", "claims", "sub"),
    ),
    "iam": (
        "apigw_rest_iam_message_send.json",
        "iam:arn:aws:sts::123456789012:assumed-role/agent-callers/alice",
        ("identity", "userArn"),
    ),
}
CHALLENGES = {
    "api_key": 'ApiKey realm="a2a", header="x-api-key"',
    "jwt": 'Bearer realm="a2a"',
    "iam": "AWS4-HMAC-SHA256",
}


def load_handler(monkeypatch: pytest.MonkeyPatch, **env: str) -> ModuleType:
    return load_function(monkeypatch, "api", env)


def as_someone_else(original: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    changed = copy.deepcopy(original)
    section = changed["requestContext"]
    for key in path[:-1]:
        section = section[key]
    section[path[-1]] = f"{section[path[-1]]}-other"
    return changed


def call(api: ModuleType, request: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any]]:
    response = api.handler(request, api_context())
    body: dict[str, Any] = json.loads(response["body"])
    return response["statusCode"], response["headers"], body


@pytest.mark.parametrize("mode", list(MODES))
def test_the_gateway_verified_caller_owns_its_tasks(
    monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop, mode: str
) -> None:
    name, principal, other = MODES[mode]
    api = load_handler(monkeypatch, A2A_AUTH_MODE=mode)
    status, _, answer = call(api, api_event(name))
    assert status == 200
    task_id = answer["result"]["id"]
    head = loop.run_until_complete(api.adapters.store.head(task_id))
    assert head.owner == principal

    get = api_event(name, {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task_id}})
    assert call(api, get)[2]["result"]["id"] == task_id
    status, _, answer = call(api, as_someone_else(get, other))
    assert status == 200
    assert answer["error"] == {"code": -32001, "message": f"Task {task_id} not found"}


@pytest.mark.parametrize("mode", list(MODES))
def test_a_request_the_gateway_did_not_authenticate_is_401(
    monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop, mode: str
) -> None:
    # What arrives when the method was deployed without the authorizer: fail closed.
    api = load_handler(monkeypatch, A2A_AUTH_MODE=mode)
    status, headers, answer = call(api, api_event("apigw_rest_message_send.json"))
    assert status == 401
    assert headers["www-authenticate"] == CHALLENGES[mode]
    assert answer["error"]["code"] == -32600
    assert not api.adapters.store._logs


def test_scopes_and_claims_come_from_the_cognito_authorizer() -> None:
    from a2a_core.auth.bearer import BearerAuthenticator

    request = api_event("apigw_rest_cognito_message_send.json")
    principal = asyncio.run(BearerAuthenticator(None).authenticate({"aws.event": request}, {}))
    assert principal.kind == "jwt"
    assert principal.scopes == {"a2a/tasks.write", "a2a/tasks.read"}


def test_the_extended_card_through_the_gateway(
    monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop
) -> None:
    skills = [{"id": "internal", "name": "Internal", "description": "For callers with a key", "tags": []}]
    api = load_handler(monkeypatch, A2A_AUTH_MODE="api_key", A2A_EXTENDED_SKILLS=json.dumps(skills))
    card_event = api_event("apigw_rest_agent_card.json")
    card_event["path"] = card_event["requestContext"]["resourcePath"] = "/agent/authenticatedExtendedCard"
    status, _, _ = call(api, card_event)
    assert status == 401
    with_key = copy.deepcopy(card_event)
    with_key["requestContext"]["identity"]["apiKeyId"] = "k7x9p2q4r1"
    status, _, card = call(api, with_key)
    assert status == 200
    # The public card's skills (none configured: the agent itself), then the extended ones.
    assert [skill["id"] for skill in card["skills"]] == ["a2a-agent", "internal"]
    assert card["url"] == "https://abc123xyz0.execute-api.us-east-1.amazonaws.com/prod/"
    scheme = {
        "type": "apiKey",
        "name": "x-api-key",
        "in": "header",
        "description": "API key in the x-api-key header",
    }
    assert card["securitySchemes"] == {"apiKey": scheme}


def test_none_without_the_opt_out_fails_the_cold_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("A2A_ALLOW_UNAUTHENTICATED", raising=False)
    with pytest.raises(SettingsError, match="A2A_ALLOW_UNAUTHENTICATED=true"):
        load_handler(monkeypatch, A2A_AUTH_MODE="none")
