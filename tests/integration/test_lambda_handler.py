"""The API Lambda handler fed real API Gateway REST proxy events."""

from __future__ import annotations

import json
from types import ModuleType

import pytest

from aws_events import api_context, api_event, load_function

pytestmark = pytest.mark.usefixtures("loop")  # the Lambda process's event loop (conftest)


def load_handler(monkeypatch: pytest.MonkeyPatch, **env: str) -> ModuleType:
    return load_function(monkeypatch, "api", {"A2A_ALLOW_UNAUTHENTICATED": "true", **env})


def test_message_send_through_the_lambda_handler(monkeypatch: pytest.MonkeyPatch) -> None:
    api = load_handler(monkeypatch, A2A_NAME="Lambda Agent")
    response = api.handler(api_event("apigw_rest_message_send.json"), api_context())
    assert response["statusCode"] == 200
    assert response["headers"]["content-type"] == "application/json"
    answer = json.loads(response["body"])
    assert answer["id"] == "req-1"
    task = answer["result"]
    assert task["status"]["state"] == "submitted"
    assert [m["parts"][0]["text"] for m in task["history"]] == ["hello from API Gateway"]

    get = api_event("apigw_rest_message_send.json")
    get["body"] = json.dumps(
        {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task["id"], "historyLength": 0}}
    )
    fetched = json.loads(api.handler(get, api_context())["body"])
    assert fetched["result"]["id"] == task["id"]
    assert fetched["result"]["history"] == []


def test_card_through_the_lambda_handler_carries_the_stage_url(monkeypatch: pytest.MonkeyPatch) -> None:
    api = load_handler(monkeypatch, A2A_NAME="Lambda Agent")
    response = api.handler(api_event("apigw_rest_agent_card.json"), api_context())
    card = json.loads(response["body"])
    assert response["statusCode"] == 200
    assert card["name"] == "Lambda Agent"
    assert card["url"] == "https://abc123xyz0.execute-api.us-east-1.amazonaws.com/prod/"


def test_malformed_body_through_the_lambda_handler_is_a_json_rpc_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    api = load_handler(monkeypatch)
    bad = api_event("apigw_rest_message_send.json")
    bad["body"] = "{not json"
    response = api.handler(bad, api_context())
    assert response["statusCode"] == 200
    assert json.loads(response["body"])["error"]["code"] == -32700


def test_bad_configuration_fails_the_cold_start_with_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from a2a_core.settings import SettingsError

    with pytest.raises(SettingsError, match="A2A_MAX_BODY_BYTES"):
        load_handler(monkeypatch, A2A_MAX_BODY_BYTES="-5")
