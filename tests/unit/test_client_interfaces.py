"""Choosing an interface from a card, reading cards of each generation, folding snapshots."""

from __future__ import annotations

import pytest

from a2a_core.client.cards import read_card
from a2a_core.client.events import Delivered
from a2a_core.client.interfaces import (
    Interface,
    NoUsableInterfaceError,
    binding_name,
    checked_version,
    choose,
)
from a2a_core.domain import (
    Artifact,
    Message,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    TextPart,
)

URL = "https://agent.example/a2a"
JSONRPC_1 = Interface(URL, "JSONRPC", "1.0")
REST_1 = Interface(f"{URL}/rest", "HTTP+JSON", "1.0.1")
JSONRPC_03 = Interface(URL, "JSONRPC", "0.3.0")
GRPC_1 = Interface("grpc://agent.example", "GRPC", "1.0")


def test_the_newest_version_wins_and_json_rpc_before_rest() -> None:
    assert choose([JSONRPC_03, REST_1, GRPC_1, JSONRPC_1]) == JSONRPC_1
    assert choose([JSONRPC_03, REST_1]) == REST_1  # 1.0 over REST beats 0.3 over JSON-RPC
    assert choose([GRPC_1, JSONRPC_03]) == JSONRPC_03
    assert choose([Interface(URL, "JSONRPC", "0.2.5"), JSONRPC_03]) == JSONRPC_03


def test_a_binding_or_version_narrows_the_choice() -> None:
    offered = [JSONRPC_1, REST_1, JSONRPC_03]
    assert choose(offered, binding="HTTP+JSON") == REST_1
    assert choose(offered, version="0.3") == JSONRPC_03
    assert choose(offered, binding="JSONRPC", version="1.0.0") == JSONRPC_1
    with pytest.raises(NoUsableInterfaceError, match=r"for HTTP\+JSON 0\.3 .*it offers: JSONRPC 1\.0 at"):
        choose(offered, binding="HTTP+JSON", version="0.3")


def test_an_interface_the_client_cannot_speak_is_never_chosen() -> None:
    unknown = [GRPC_1, Interface(URL, "JSONRPC", "2.0"), Interface(URL, "JSONRPC", "latest")]
    with pytest.raises(NoUsableInterfaceError, match=r"GRPC 1\.0 at grpc://agent\.example"):
        choose(unknown)
    with pytest.raises(NoUsableInterfaceError, match="it offers: none"):
        choose([])


def test_caller_names_for_bindings_and_versions_are_checked() -> None:
    assert (binding_name("rest"), binding_name("JSONRPC"), binding_name("http+json")) == (
        "HTTP+JSON",
        "JSONRPC",
        "HTTP+JSON",
    )
    with pytest.raises(ValueError, match="unknown binding 'grpc'"):
        binding_name("grpc")
    assert checked_version(" 0.2.5 ") == "0.2.5"
    with pytest.raises(ValueError, match=r"unsupported protocol version '2\.0'"):
        checked_version("2.0")


V1_CARD = {
    "name": "Writer",
    "description": "Writes.",
    "version": "2",
    "supportedInterfaces": [
        {"url": "/a2a/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0", "tenant": "acme"},
        {"url": "https://elsewhere.example/", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
    ],
    "capabilities": {"streaming": True, "extendedAgentCard": True},
    "skills": [{"id": "draft", "name": "Draft", "description": "drafts", "tags": []}],
    "securitySchemes": {
        "oauth": {
            "oauth2SecurityScheme": {
                "flows": {
                    "clientCredentials": {"tokenUrl": "https://auth.example/token", "scopes": {"w": "write"}}
                }
            }
        },
        "mtls": {"mtlsSecurityScheme": {}},
        "bearer": {"httpAuthSecurityScheme": {"scheme": "bearer", "bearerFormat": "JWT"}},
    },
    "securityRequirements": [{"schemes": {"oauth": {"list": ["w"]}}}, {"schemes": {"bearer": {}}}],
}


def test_a_1_0_card_is_described_in_domain_terms() -> None:
    read = read_card(V1_CARD, f"{URL}/.well-known/agent-card.json")
    assert read.interfaces == (
        Interface(f"{URL}/rpc", "JSONRPC", "1.0", "acme"),  # resolved against the card's URL
        Interface("https://elsewhere.example/", "HTTP+JSON", "1.0"),
    )
    card = read.card
    assert (card.url, card.preferred_transport, card.protocol_version) == ("/a2a/rpc", "JSONRPC", "1.0")
    assert card.supports_authenticated_extended_card is True
    assert card.security == [{"oauth": ["w"]}, {"bearer": []}]
    schemes = card.security_schemes or {}
    assert sorted(schemes) == ["bearer", "oauth"]  # mutual TLS has no 0.x type
    assert schemes["oauth"].model_dump(by_alias=True, exclude_none=True)["flows"] == {
        "clientCredentials": {"tokenUrl": "https://auth.example/token", "scopes": {"w": "write"}}
    }
    assert read.document is V1_CARD


def test_a_0_3_card_lists_its_url_and_additional_interfaces() -> None:
    document = {
        "name": "Old",
        "description": "0.3",
        "url": "https://agent.example/rpc",
        "version": "1",
        "protocolVersion": "0.3.0",
        "preferredTransport": "HTTP+JSON",
        "additionalInterfaces": [{"url": "/jsonrpc", "transport": "JSONRPC"}],
        "capabilities": {},
        "defaultInputModes": [],
        "defaultOutputModes": [],
        "skills": [],
    }
    read = read_card(document, "https://agent.example/.well-known/agent-card.json")
    assert read.interfaces == (
        Interface("https://agent.example/rpc", "HTTP+JSON", "0.3.0"),
        Interface("https://agent.example/jsonrpc", "JSONRPC", "0.3.0"),
    )
    assert choose(read.interfaces) == read.interfaces[1]  # 0.3 over REST is not spoken


@pytest.mark.parametrize(
    ("document", "fragment"),
    [
        ([], "not a JSON object"),
        ({**V1_CARD, "supportedInterfaces": []}, "lists no supportedInterfaces"),
        ({"name": "no url"}, "url"),
    ],
)
def test_what_is_not_a_card_is_refused(document: object, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        read_card(document, URL)


# --- folding a Task snapshot into what a stream has delivered ----------------------------------


def _task(state: TaskState, *chunks: str, message: str | None = None) -> Task:
    status_message = (
        Message(role=Role.agent, parts=[TextPart(text=message)], message_id=message) if message else None
    )
    artifacts = [Artifact(artifact_id="a", parts=[TextPart(text=c) for c in chunks])] if chunks else None
    return Task(
        id="t", context_id="c", status=TaskStatus(state=state, message=status_message), artifacts=artifacts
    )


def _chunk(text: str, *, append: bool, artifact_id: str = "a") -> TaskArtifactUpdateEvent:
    artifact = Artifact(artifact_id=artifact_id, parts=[TextPart(text=text)])
    return TaskArtifactUpdateEvent(task_id="t", context_id="c", artifact=artifact, append=append)


def test_a_caller_that_saw_nothing_gets_the_task_itself() -> None:
    task = _task(TaskState.working, "x")
    assert Delivered().news(task) == [task]


def test_a_snapshot_brings_only_the_new_parts_and_the_status() -> None:
    delivered = Delivered()
    for event in (_task(TaskState.working), _chunk("one ", append=False), _chunk("two ", append=True)):
        delivered.record(event)
    news = delivered.news(_task(TaskState.completed, "one ", "two ", "three", message="done"))
    assert [type(e) for e in news] == [TaskArtifactUpdateEvent, TaskStatusUpdateEvent]
    grown, ended = news
    assert isinstance(grown, TaskArtifactUpdateEvent)
    assert (grown.append, [p.text for p in grown.artifact.parts if isinstance(p, TextPart)]) == (
        True,
        ["three"],
    )
    assert isinstance(ended, TaskStatusUpdateEvent)
    assert (ended.final, ended.status.state) == (True, TaskState.completed)


def test_nothing_new_is_no_event_and_a_replaced_artifact_comes_whole() -> None:
    delivered = Delivered()
    delivered.record(_task(TaskState.working, "draft"))
    assert delivered.news(_task(TaskState.working, "draft")) == []
    [replaced] = delivered.news(_task(TaskState.working, "rewritten"))
    assert isinstance(replaced, TaskArtifactUpdateEvent)
    assert replaced.append is None
    assert [p.text for p in replaced.artifact.parts if isinstance(p, TextPart)] == ["rewritten"]


def test_an_interrupted_task_ends_the_stream_even_when_its_state_was_seen() -> None:
    delivered = Delivered()
    asking = _task(TaskState.input_required, message="who?")
    delivered.record(_task(TaskState.working))
    delivered.record(TaskStatusUpdateEvent(task_id="t", context_id="c", status=asking.status, final=True))
    [again] = delivered.news(asking)
    assert isinstance(again, TaskStatusUpdateEvent)
    assert again.final
