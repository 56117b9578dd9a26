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


def test_http_json_answers_are_text_a_rest_api_passes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A REST API without binary media types hands a base64 body to the client as is, so the
    1.0 HTTP+JSON answers (application/a2a+json) must leave the handler as text."""
    api = load_handler(monkeypatch)
    send = api_event("apigw_rest_message_send.json")
    send |= {"path": "/message:send", "resource": "/{proxy+}"}
    send["headers"] |= {"A2A-Version": "1.0", "Content-Type": "application/a2a+json"}
    send["multiValueHeaders"] |= {"A2A-Version": ["1.0"], "Content-Type": ["application/a2a+json"]}
    message = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}
    send["body"] = json.dumps({"message": message, "configuration": {"returnImmediately": True}})
    response = api.handler(send, api_context())
    assert response["statusCode"] == 200
    assert response["headers"]["content-type"] == "application/a2a+json"
    assert response["isBase64Encoded"] is False
    task = json.loads(response["body"])["task"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED"

    get = api_event("apigw_rest_message_send.json")
    get |= {"path": f"/tasks/{task['id']}", "resource": "/{proxy+}", "httpMethod": "GET", "body": None}
    get["headers"] |= {"A2A-Version": "1.0"}
    get["multiValueHeaders"] |= {"A2A-Version": ["1.0"]}
    response = api.handler(get, api_context())
    assert response["isBase64Encoded"] is False
    assert json.loads(response["body"])["id"] == task["id"]
