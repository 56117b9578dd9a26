"""Every 1.0 wire model: REQUIRED fields, oneofs, and a2a-sdk 1.3's own JSON decoded and re-encoded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from a2a_core.protocol.v1.wire import card as wc
from a2a_core.protocol.v1.wire import params as wq
from a2a_core.protocol.v1.wire import push as wp
from a2a_core.protocol.v1.wire import security as ws
from a2a_core.protocol.v1.wire import tasks as wt
from a2a_core.protocol.v1.wire.parts import Artifact, Message, Part
from a2a_core.protocol.v1.wire.protojson import dump, invalid_params

FIXTURES = Path(__file__).parents[2] / "fixtures" / "a2a_v1"
SDK_OBJECTS: dict[str, Any] = json.loads((FIXTURES / "sdk13_objects.json").read_text())

MODELS: dict[str, type[BaseModel]] = {
    "message": Message,
    "task": wt.Task,
    "artifact": Artifact,
    "stream_task": wt.StreamResponse,
    "stream_message": wt.StreamResponse,
    "stream_status_update": wt.StreamResponse,
    "stream_artifact_update": wt.StreamResponse,
    "send_message_request": wq.SendMessageRequest,
    "send_message_response_task": wt.SendMessageResponse,
    "send_message_response_message": wt.SendMessageResponse,
    "get_task_request": wq.GetTaskRequest,
    "list_tasks_request": wq.ListTasksRequest,
    "list_tasks_response": wq.ListTasksResponse,
    "cancel_task_request": wq.CancelTaskRequest,
    "subscribe_to_task_request": wq.SubscribeToTaskRequest,
    "task_push_notification_config": wp.TaskPushNotificationConfig,
    "get_task_push_notification_config_request": wp.GetTaskPushNotificationConfigRequest,
    "delete_task_push_notification_config_request": wp.DeleteTaskPushNotificationConfigRequest,
    "list_task_push_notification_configs_request": wp.ListTaskPushNotificationConfigsRequest,
    "list_task_push_notification_configs_response": wp.ListTaskPushNotificationConfigsResponse,
    "get_extended_agent_card_request": wq.GetExtendedAgentCardRequest,
    "agent_card": wc.AgentCard,
}
TEXT = {"text": "hi"}
MESSAGE = {"messageId": "m1", "role": "ROLE_USER", "parts": [TEXT]}


def problems(model: type[BaseModel], data: Any) -> dict[str, str]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    details = invalid_params(caught.value).data
    assert isinstance(details, list)
    return {item["field"]: item["message"] for item in details}


def test_every_reference_object_has_a_model() -> None:
    assert set(SDK_OBJECTS) == set(MODELS)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_sdk_reference_json_decodes_and_reencodes_unchanged(name: str) -> None:
    sdk_json = SDK_OBJECTS[name]
    assert dump(MODELS[name].model_validate(sdk_json)) == sdk_json


@pytest.mark.parametrize(
    ("part", "content"),
    [
        ({"text": "x"}, "text"),
        ({"text": ""}, "text"),
        ({"raw": "aGk="}, "raw"),
        ({"url": "https://x/y"}, "url"),
        ({"data": {"a": 1}}, "data"),
        ({"data": [1]}, "data"),
        ({"data": None}, "data"),
        ({"data": 0}, "data"),
    ],
)
def test_part_content_is_the_one_member_set(part: dict[str, Any], content: str) -> None:
    assert Part.model_validate(part).content == content


@pytest.mark.parametrize(
    ("part", "found"),
    [
        ({}, "none of them"),
        ({"metadata": {"a": 1}}, "none of them"),
        ({"text": "a", "url": "b"}, "text and url"),
    ],
)
def test_part_needs_exactly_one_content_member(part: dict[str, Any], found: str) -> None:
    message = problems(Message, {**MESSAGE, "parts": [TEXT, part]})["parts[1]"]
    assert message == f"Part.content must set exactly one of text, raw, url, data; it sets {found}"


def test_part_url_must_not_be_empty() -> None:
    assert "parts[0].url" in problems(Message, {**MESSAGE, "parts": [{"url": ""}]})


def test_message_required_fields() -> None:
    found = problems(Message, {"role": "ROLE_UNSPECIFIED", "parts": []})
    assert found == {
        "messageId": "Field required",
        "role": "role is required: ROLE_USER or ROLE_AGENT",
        "parts": "List should have at least 1 item after validation, not 0",
    }
    assert "messageId" in problems(Message, {**MESSAGE, "messageId": ""})
    assert "role" in problems(Message, {**MESSAGE, "role": 0})
    assert problems(Message, {"messageId": "m", "parts": [TEXT]}) == {"role": "Field required"}


def test_artifact_requires_an_id_and_a_part() -> None:
    assert set(problems(Artifact, {"parts": []})) == {"artifactId", "parts"}


def test_task_requires_id_and_status_and_status_requires_state() -> None:
    assert set(problems(wt.Task, {"contextId": "c"})) == {"id", "status"}
    assert set(problems(wt.Task, {"id": "t", "status": {}})) == {"status.state"}
    task = wt.Task.model_validate({"id": "t", "status": {"state": "TASK_STATE_UNSPECIFIED"}})
    assert dump(task) == {"id": "t", "status": {"state": "TASK_STATE_UNSPECIFIED"}}


def test_stream_events_require_task_context_and_payload() -> None:
    assert set(problems(wt.TaskStatusUpdateEvent, {"status": {"state": 3}})) == {"taskId", "contextId"}
    artifact = {"artifactId": "a", "parts": [TEXT]}
    assert set(problems(wt.TaskArtifactUpdateEvent, {"taskId": "t", "artifact": artifact})) == {"contextId"}
    event = wt.TaskArtifactUpdateEvent.model_validate(
        {"taskId": "t", "contextId": "c", "artifact": artifact, "append": False}
    )
    assert dump(event)["append"] is False  # presence kept: the domain distinguishes it


@pytest.mark.parametrize(
    ("model", "payload", "members"),
    [
        (wt.StreamResponse, {}, "task, message, statusUpdate, artifactUpdate; it sets none of them"),
        (wt.SendMessageResponse, {"task": None}, "task, message; it sets none of them"),
    ],
)
def test_response_oneofs_need_one_member(
    model: type[BaseModel], payload: dict[str, Any], members: str
) -> None:
    assert problems(model, payload) == {"": f"{model.__name__}.payload must set exactly one of {members}"}


def test_stream_response_refuses_two_payloads() -> None:
    task = {"id": "t", "status": {"state": 2}}
    found = problems(wt.StreamResponse, {"task": task, "message": MESSAGE})
    expected = "exactly one of task, message, statusUpdate, artifactUpdate; it sets task and message"
    assert found == {"": f"StreamResponse.payload must set {expected}"}


def test_send_message_request_requires_a_message() -> None:
    assert problems(wq.SendMessageRequest, {"configuration": {}}) == {"message": "Field required"}


def test_list_tasks_validation_matches_the_spec_example() -> None:
    # Spec 6.5, "Validation Error Example".
    found = problems(
        wq.ListTasksRequest, {"pageSize": "150", "historyLength": "-5", "status": "TASK_STATE_RUNNING"}
    )
    assert set(found) == {"pageSize", "historyLength", "status"}
    assert "TASK_STATE_AUTH_REQUIRED" in found["status"]
    assert wq.ListTasksRequest.model_validate({"pageSize": 1}).page_size == 1
    assert "pageSize" in problems(wq.ListTasksRequest, {"pageSize": 0})


def test_list_tasks_unspecified_status_is_no_filter() -> None:
    assert wq.ListTasksRequest.model_validate({"status": "TASK_STATE_UNSPECIFIED"}).status is None
    assert wq.ListTasksRequest.model_validate({"status": 0}).status is None


def test_list_tasks_response_always_sends_every_field() -> None:
    response = wq.ListTasksResponse(tasks=[], next_page_token="", page_size=50, total_size=0)
    assert dump(response) == {"tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0}


def test_id_requests_require_their_ids() -> None:
    assert problems(wq.GetTaskRequest, {}) == {"id": "Field required"}
    assert problems(wq.CancelTaskRequest, {"id": ""}) == {"id": "String should have at least 1 character"}
    assert problems(wq.SubscribeToTaskRequest, {"tenant": "x"}) == {"id": "Field required"}
    both = {"taskId": "Field required", "id": "Field required"}
    assert problems(wp.GetTaskPushNotificationConfigRequest, {}) == both
    assert problems(wp.DeleteTaskPushNotificationConfigRequest, {}) == both
    assert problems(wp.ListTaskPushNotificationConfigsRequest, {"pageSize": -1}).keys() == {
        "taskId",
        "pageSize",
    }


def test_push_config_requires_url_and_authentication_a_scheme() -> None:
    assert problems(wp.TaskPushNotificationConfig, {"authentication": {}}) == {
        "url": "Field required",
        "authentication.scheme": "Field required",
    }


@pytest.mark.parametrize(
    ("scheme", "member"),
    [
        ({"apiKeySecurityScheme": {"location": "header", "name": "k"}}, "api_key_security_scheme"),
        ({"httpAuthSecurityScheme": {"scheme": "bearer"}}, "http_auth_security_scheme"),
        (
            {"oauth2SecurityScheme": {"flows": {"clientCredentials": {"tokenUrl": "https://t"}}}},
            "oauth2_security_scheme",
        ),
        (
            {"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://o"}},
            "open_id_connect_security_scheme",
        ),
        ({"mtlsSecurityScheme": {}}, "mtls_security_scheme"),
    ],
)
def test_security_scheme_is_a_oneof(scheme: dict[str, Any], member: str) -> None:
    parsed = ws.SecurityScheme.model_validate(scheme)
    assert getattr(parsed, member) is not None
    assert dump(parsed) == scheme


def test_security_scheme_and_flows_refuse_none_or_two() -> None:
    assert "scheme" in problems(ws.SecurityScheme, {"type": "apiKey"})[""]
    two = {"mtlsSecurityScheme": {}, "httpAuthSecurityScheme": {"scheme": "basic"}}
    found = problems(ws.SecurityScheme, two)[""]
    assert "it sets httpAuthSecurityScheme and mtlsSecurityScheme" in found
    flows = {"implicit": {"authorizationUrl": "https://a"}, "password": {"tokenUrl": "https://t"}}
    members = "authorizationCode, clientCredentials, implicit, password, deviceCode"
    assert problems(ws.OAuthFlows, flows) == {
        "": f"OAuthFlows.flow must set exactly one of {members}; it sets implicit and password"
    }


def test_scheme_and_flow_required_fields() -> None:
    assert set(problems(ws.APIKeySecurityScheme, {})) == {"location", "name"}
    assert set(problems(ws.HTTPAuthSecurityScheme, {})) == {"scheme"}
    assert set(problems(ws.OpenIdConnectSecurityScheme, {})) == {"openIdConnectUrl"}
    assert set(problems(ws.OAuth2SecurityScheme, {})) == {"flows"}
    assert set(problems(ws.AuthorizationCodeOAuthFlow, {})) == {"authorizationUrl", "tokenUrl"}
    assert set(problems(ws.DeviceCodeOAuthFlow, {})) == {"deviceAuthorizationUrl", "tokenUrl"}
    assert set(problems(ws.ClientCredentialsOAuthFlow, {})) == {"tokenUrl"}


def test_card_parts_require_what_the_proto_requires() -> None:
    assert set(problems(wc.AgentInterface, {})) == {"url", "protocolBinding", "protocolVersion"}
    assert set(problems(wc.AgentProvider, {})) == {"url", "organization"}
    assert set(problems(wc.AgentSkill, {})) == {"id"}
    assert set(problems(wc.AgentCardSignature, {"header": {}})) == {"protected", "signature"}


def test_card_defaults_are_left_out_but_optional_fields_keep_false() -> None:
    card = wc.AgentCard.model_validate(
        {
            "name": "n",
            "capabilities": {"streaming": False, "extensions": [{"uri": "u", "required": False}]},
            "securitySchemes": {
                "o": {
                    "oauth2SecurityScheme": {
                        "flows": {
                            "authorizationCode": {
                                "authorizationUrl": "https://a",
                                "tokenUrl": "https://t",
                                "pkceRequired": False,
                                "scopes": {},
                            }
                        }
                    }
                }
            },
        }
    )
    out = dump(card)
    assert out["capabilities"] == {"streaming": False, "extensions": [{"uri": "u"}]}
    assert out["securitySchemes"]["o"]["oauth2SecurityScheme"]["flows"]["authorizationCode"] == {
        "authorizationUrl": "https://a",
        "tokenUrl": "https://t",
    }


def test_a_card_from_a_proto_server_with_empty_required_fields_still_parses() -> None:
    # MessageToDict leaves out "" and [] even for REQUIRED fields.
    card = wc.AgentCard.model_validate({"capabilities": {}})
    assert (card.name, card.description, card.skills, card.supported_interfaces) == ("", "", [], [])
