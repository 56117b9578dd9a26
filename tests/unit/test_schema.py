"""Every type of the A2A 0.2.5 schema the kit defines (the domain model, the 0.x method params) has
a model whose wire output the official schema accepts. The JSON-RPC envelope around them is held
to the schema as it travels: `tests/integration/test_v0_wire_schema.py`."""

import json
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

import a2a_core.domain as a2a
import a2a_core.protocol.v0.wire as v0
from a2a_core.domain import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    APIKeySecurityScheme,
    Artifact,
    AuthorizationCodeOAuthFlow,
    ClientCredentialsOAuthFlow,
    DataPart,
    FileBase,
    FilePart,
    FileWithBytes,
    FileWithUri,
    HTTPAuthSecurityScheme,
    ImplicitOAuthFlow,
    Message,
    OAuth2SecurityScheme,
    OAuthFlows,
    OpenIdConnectSecurityScheme,
    PartBase,
    PasswordOAuthFlow,
    PushNotificationAuthenticationInfo,
    PushNotificationConfig,
    Role,
    SecuritySchemeBase,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    TextPart,
    part_adapter,
    security_scheme_adapter,
    stream_event_adapter,
    to_wire,
)
from a2a_core.protocol.v0.wire import (
    DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams,
    MessageSendConfiguration,
    MessageSendParams,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
)
from schema_0_2_5 import DEFS, ENVELOPE, violations


def _message(role: Role = Role.user) -> Message:
    return Message(
        message_id="msg-1",
        role=role,
        parts=[TextPart(text="A bread recipe, please"), DataPart(data={"servings": 4})],
        context_id="ctx-1",
        task_id="task-1",
        reference_task_ids=["task-0"],
        extensions=["https://example.com/ext/recipes/v1"],
        metadata={"locale": "en-GB"},
    )


def _status() -> TaskStatus:
    return TaskStatus(state=TaskState.working, message=_message(Role.agent), timestamp="2023-10-27T10:00:00Z")


def _artifact() -> Artifact:
    file = FileWithUri(uri="https://files.example.com/bread.md", mime_type="text/markdown", name="bread.md")
    return Artifact(
        artifact_id="art-1",
        name="recipe",
        description="A sourdough recipe",
        parts=[FilePart(file=file, metadata={"size": 812})],
        extensions=["https://example.com/ext/recipes/v1"],
        metadata={"version": 2},
    )


def _task() -> Task:
    return Task(
        id="task-1",
        context_id="ctx-1",
        status=_status(),
        history=[_message()],
        artifacts=[_artifact()],
        metadata={"priority": "low"},
    )


def _push_config() -> PushNotificationConfig:
    auth = PushNotificationAuthenticationInfo(schemes=["Bearer"], credentials="s3cr3t")
    return PushNotificationConfig(
        url="https://client.example.com/hook", id="cfg-1", token="tok-1", authentication=auth
    )


def _task_push() -> TaskPushNotificationConfig:
    return TaskPushNotificationConfig(task_id="task-1", push_notification_config=_push_config())


def _send_params() -> MessageSendParams:
    config = MessageSendConfiguration(
        accepted_output_modes=["text/plain"],
        blocking=True,
        history_length=5,
        push_notification_config=_push_config(),
    )
    return MessageSendParams(message=_message(), configuration=config, metadata={"trace": "abc"})


def _flows() -> OAuthFlows:
    scopes = {"recipes:read": "Read recipes"}
    return OAuthFlows(
        authorization_code=AuthorizationCodeOAuthFlow(
            authorization_url="https://auth.example.com/authorize",
            token_url="https://auth.example.com/token",
            refresh_url="https://auth.example.com/refresh",
            scopes=scopes,
        ),
        client_credentials=ClientCredentialsOAuthFlow(
            token_url="https://auth.example.com/token", scopes=scopes
        ),
        implicit=ImplicitOAuthFlow(authorization_url="https://auth.example.com/authorize", scopes=scopes),
        password=PasswordOAuthFlow(token_url="https://auth.example.com/token", scopes=scopes),
    )


def _card() -> AgentCard:
    return AgentCard(
        name="Recipe Agent",
        description="Agent that helps users with recipes and cooking.",
        url="https://agent.example.com/a2a",
        version="1.0.0",
        capabilities=AgentCapabilities(
            streaming=True,
            push_notifications=True,
            state_transition_history=False,
            extensions=[AgentExtension(uri="https://example.com/ext/recipes/v1", required=False)],
        ),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain", "application/json"],
        skills=[
            AgentSkill(
                id="recipes",
                name="Recipes",
                description="Finds recipes",
                tags=["cooking"],
                examples=["I need a recipe for bread"],
                input_modes=["text/plain"],
                output_modes=["text/markdown"],
            )
        ],
        additional_interfaces=[AgentInterface(url="https://agent.example.com/a2a", transport="JSONRPC")],
        provider=AgentProvider(organization="Example Co", url="https://example.com"),
        documentation_url="https://example.com/docs",
        icon_url="https://example.com/icon.png",
        security=[{"oauth": ["recipes:read"]}, {"apiKey": []}],
        security_schemes={
            "oauth": OAuth2SecurityScheme(flows=_flows()),
            "apiKey": APIKeySecurityScheme(name="X-API-Key", in_="header"),
        },
        supports_authenticated_extended_card=True,
    )


FACTORIES: dict[str, Callable[[], object]] = {
    "APIKeySecurityScheme": lambda: APIKeySecurityScheme(name="api_key", in_="query", description="Key"),
    "AgentCapabilities": lambda: AgentCapabilities(streaming=True, push_notifications=False),
    "AgentCard": _card,
    "AgentExtension": lambda: AgentExtension(
        uri="https://example.com/ext/v1", description="An extension", required=True, params={"level": 2}
    ),
    "AgentInterface": lambda: AgentInterface(url="https://agent.example.com/grpc", transport="GRPC"),
    "AgentProvider": lambda: AgentProvider(organization="Example Co", url="https://example.com"),
    "AgentSkill": lambda: _card().skills[0],
    "Artifact": _artifact,
    "AuthorizationCodeOAuthFlow": lambda: _flows().authorization_code,
    "ClientCredentialsOAuthFlow": lambda: _flows().client_credentials,
    "DataPart": lambda: DataPart(data={"servings": 4, "tags": ["vegan"]}, metadata={"schema": "recipe"}),
    "DeleteTaskPushNotificationConfigParams": lambda: DeleteTaskPushNotificationConfigParams(
        id="task-1", push_notification_config_id="cfg-1", metadata={"by": "user"}
    ),
    "FileBase": lambda: FileBase(mime_type="image/png", name="loaf.png"),
    "FilePart": lambda: FilePart(file=FileWithBytes(bytes="aGVsbG8=", mime_type="text/plain", name="a.txt")),
    "FileWithBytes": lambda: FileWithBytes(bytes="aGVsbG8=", mime_type="text/plain"),
    "FileWithUri": lambda: FileWithUri(uri="https://files.example.com/a.txt", name="a.txt"),
    "GetTaskPushNotificationConfigParams": lambda: GetTaskPushNotificationConfigParams(
        id="task-1", push_notification_config_id="cfg-1"
    ),
    "HTTPAuthSecurityScheme": lambda: HTTPAuthSecurityScheme(scheme="bearer", bearer_format="JWT"),
    "ImplicitOAuthFlow": lambda: _flows().implicit,
    "ListTaskPushNotificationConfigParams": lambda: ListTaskPushNotificationConfigParams(id="task-1"),
    "Message": _message,
    "MessageSendConfiguration": lambda: _send_params().configuration,
    "MessageSendParams": _send_params,
    "OAuth2SecurityScheme": lambda: OAuth2SecurityScheme(flows=_flows(), description="OAuth"),
    "OAuthFlows": _flows,
    "OpenIdConnectSecurityScheme": lambda: OpenIdConnectSecurityScheme(
        open_id_connect_url="https://auth.example.com/.well-known/openid-configuration"
    ),
    "Part": lambda: FilePart(file=FileWithUri(uri="https://files.example.com/a.txt")),
    "PartBase": lambda: PartBase(metadata={"lang": "en"}),
    "PasswordOAuthFlow": lambda: _flows().password,
    "PushNotificationAuthenticationInfo": lambda: _push_config().authentication,
    "PushNotificationConfig": _push_config,
    "SecurityScheme": lambda: OpenIdConnectSecurityScheme(
        open_id_connect_url="https://auth.example.com/oidc"
    ),
    "SecuritySchemeBase": lambda: SecuritySchemeBase(description="Any scheme"),
    "Task": _task,
    "TaskArtifactUpdateEvent": lambda: TaskArtifactUpdateEvent(
        task_id="task-1", context_id="ctx-1", artifact=_artifact(), metadata={"chunk": 1}
    ),
    "TaskIdParams": lambda: TaskIdParams(id="task-1", metadata={"reason": "user"}),
    "TaskPushNotificationConfig": _task_push,
    "TaskQueryParams": lambda: TaskQueryParams(id="task-1", history_length=0),
    "TaskState": lambda: TaskState.input_required,
    "TaskStatus": _status,
    "TaskStatusUpdateEvent": lambda: TaskStatusUpdateEvent(
        task_id="task-1",
        context_id="ctx-1",
        status=TaskStatus(state=TaskState.completed),
        final=True,
        metadata={"durationMs": 1200},
    ),
    "TextPart": lambda: TextPart(text="Hello", metadata={"lang": "en"}),
}


@cache
def _adapter(name: str) -> TypeAdapter[Any]:
    # The 0.2.5 schema's types: the domain model's, and the 0.x method params.
    return TypeAdapter(getattr(a2a, name) if hasattr(a2a, name) else getattr(v0, name))


def _wire(name: str, value: object) -> Any:
    if isinstance(value, BaseModel):
        return to_wire(value)
    return _adapter(name).dump_python(value, mode="json", by_alias=True, exclude_none=True)


TYPES = sorted(set(DEFS) - ENVELOPE)


def test_every_schema_type_has_a_factory_and_a_model() -> None:
    assert set(FACTORIES) == set(TYPES)
    assert all(hasattr(a2a, name) or hasattr(v0, name) for name in TYPES)


@pytest.mark.parametrize("name", TYPES)
def test_wire_output_is_valid_against_the_schema(name: str) -> None:
    wire = _wire(name, FACTORIES[name]())
    assert violations(name, wire) == [], json.dumps(wire, indent=1)


@pytest.mark.parametrize("name", TYPES)
def test_wire_output_round_trips(name: str) -> None:
    value = FACTORIES[name]()
    assert _adapter(name).validate_json(json.dumps(_wire(name, value))) == value


def test_task_state_members_match_the_schema_enum() -> None:
    assert [s.value for s in TaskState] == DEFS["TaskState"]["enum"]
    assert (TaskState("input-required"), TaskState("auth-required")) == (
        TaskState.input_required,
        TaskState.auth_required,
    )


def test_schema_examples_parse() -> None:
    for name, model in (("AgentExtension", AgentExtension), ("AgentProvider", AgentProvider)):
        for example in DEFS[name]["examples"]:
            assert to_wire(model.model_validate(example)) == example

    card_props, skill_props = DEFS["AgentCard"]["properties"], DEFS["AgentSkill"]["properties"]
    skill = {
        "id": "recipes",
        "name": "Recipes",
        "description": "Finds recipes",
        "tags": skill_props["tags"]["examples"][0],
        "examples": skill_props["examples"]["examples"][0],
    }
    wire_card = {
        key: card_props[key]["examples"][0] for key in ("name", "description", "protocolVersion", "version")
    }
    wire_card |= {
        "url": "https://agent.example.com/a2a",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [skill],
    }
    card = AgentCard.model_validate(wire_card)
    assert card.skills[0].tags == ["cooking", "customer support", "billing"]
    assert card.skills[0].examples == ["I need a recipe for bread"]
    assert violations("AgentCard", to_wire(card)) == []
    assert to_wire(card) == wire_card | {"preferredTransport": "JSONRPC"}

    timestamp = DEFS["TaskStatus"]["properties"]["timestamp"]["examples"][0]
    status = TaskStatus.model_validate({"state": "completed", "timestamp": timestamp})
    assert status.timestamp == "2023-10-27T10:00:00Z"


def test_card_defaults_to_this_protocol_version_and_json_rpc() -> None:
    card = AgentCard(
        name="a",
        description="b",
        url="https://a.example.com",
        version="1",
        capabilities=AgentCapabilities(),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[],
    )
    assert (to_wire(card)["protocolVersion"], to_wire(card)["preferredTransport"]) == ("0.2.5", "JSONRPC")


def test_empty_parts_are_rejected() -> None:
    with pytest.raises(ValidationError, match="at least 1 item"):
        Message.model_validate({"kind": "message", "messageId": "m", "role": "user", "parts": []})
    params = to_wire(_send_params())
    params["message"]["parts"] = []
    with pytest.raises(ValidationError):
        MessageSendParams.model_validate(params)


@pytest.mark.parametrize("part", [{"kind": "video", "url": "https://v.example.com"}, {"text": "no kind"}])
def test_unknown_or_missing_part_kind_is_rejected(part: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        part_adapter.validate_python(part)
    with pytest.raises(ValidationError):
        Message.model_validate({"messageId": "m", "role": "user", "parts": [part]})


@pytest.mark.parametrize("model", [TaskQueryParams, MessageSendConfiguration])
def test_negative_history_length_is_rejected(model: type[BaseModel]) -> None:
    with pytest.raises(ValidationError, match="greater than or equal to 0"):
        model.model_validate({"id": "task-1", "historyLength": -1})


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ({"kind": "text", "text": "hi"}, TextPart),
        ({"kind": "file", "file": {"bytes": "aGk="}}, FilePart),
        ({"kind": "data", "data": {"a": 1}}, DataPart),
    ],
)
def test_part_dispatches_on_kind(wire: dict[str, Any], expected: type[BaseModel]) -> None:
    assert type(part_adapter.validate_python(wire)) is expected


def test_file_part_keeps_bytes_and_uri_variants_apart() -> None:
    by_uri = part_adapter.validate_python({"kind": "file", "file": {"uri": "https://f.example.com/a"}})
    assert isinstance(by_uri, FilePart)
    assert isinstance(by_uri.file, FileWithUri)


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ({"type": "apiKey", "name": "k", "in": "header"}, APIKeySecurityScheme),
        ({"type": "http", "scheme": "bearer"}, HTTPAuthSecurityScheme),
        ({"type": "oauth2", "flows": {}}, OAuth2SecurityScheme),
        ({"type": "openIdConnect", "openIdConnectUrl": "https://a.example.com"}, OpenIdConnectSecurityScheme),
    ],
)
def test_security_scheme_dispatches_on_type(wire: dict[str, Any], expected: type[BaseModel]) -> None:
    scheme = security_scheme_adapter.validate_python(wire)
    assert type(scheme) is expected
    assert to_wire(scheme) == wire


def test_unknown_security_scheme_type_is_rejected() -> None:
    with pytest.raises(ValidationError):
        security_scheme_adapter.validate_python({"type": "mutualTLS"})


def test_stream_events_dispatch_on_kind() -> None:
    kinds = {"task": Task, "message": Message, "status-update": TaskStatusUpdateEvent}
    events = [_task(), _message(), FACTORIES["TaskStatusUpdateEvent"]()]
    for event in events:
        assert isinstance(event, BaseModel)
        parsed = stream_event_adapter.validate_python(to_wire(event))
        assert type(parsed) is kinds[to_wire(event)["kind"]]


def test_accepted_output_modes_may_be_omitted() -> None:
    params = MessageSendParams.model_validate(
        {"message": to_wire(_message()), "configuration": {"blocking": True}}
    )
    assert params.configuration is not None
    assert params.configuration.accepted_output_modes is None


def test_unknown_wire_fields_are_ignored_and_none_is_omitted() -> None:
    part = part_adapter.validate_python({"kind": "text", "text": "hi", "future": 1})
    assert to_wire(part) == {"kind": "text", "text": "hi"}
