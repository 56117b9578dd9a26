from __future__ import annotations

import json
from pathlib import Path

import httpx
import jsonschema  # type: ignore[import-untyped]
import pytest

from a2a_core.compose.app import compose_app
from a2a_core.domain import AgentSkill
from a2a_core.examples.echo import agent as echo
from a2a_core.web.edge import public_url
from support import Stack

pytestmark = pytest.mark.anyio


SPEC = Path(__file__).resolve().parents[2] / "spec"
CARDS = [("/.well-known/agent.json", "0.2.5"), ("/.well-known/agent-card.json", "0.3.0")]


@pytest.mark.parametrize(("path", "version"), CARDS)
async def test_both_card_paths_serve_the_card_with_a_reachable_url(
    client: httpx.AsyncClient, path: str, version: str
) -> None:
    response = await client.get(path)
    card = response.json()
    assert response.status_code == 200
    assert card["protocolVersion"] == version
    assert card["preferredTransport"] == "JSONRPC"
    assert card["url"] == "http://agent.test/"
    assert card["capabilities"] == {
        "streaming": True,
        "pushNotifications": False,
        "stateTransitionHistory": True,
        "extensions": [
            {
                "uri": "urn:a2a-serverless:file-uri-schemes:v1",
                "description": "FilePart uri values must use one of these schemes: http, https, s3",
                "required": False,
                "params": {"fileUriSchemes": ["http", "https", "s3"]},
            }
        ],
    }
    assert card["defaultInputModes"] == ["text/plain", "application/json"]


@pytest.mark.parametrize(("path", "version"), CARDS)
async def test_each_card_is_valid_in_its_protocol_version(
    client: httpx.AsyncClient, path: str, version: str
) -> None:
    card = (await client.get(path)).json()
    definitions = json.loads((SPEC / f"a2a-{version}.schema.json").read_text())["definitions"]
    validator = jsonschema.Draft7Validator({"$ref": "#/definitions/AgentCard", "definitions": definitions})
    assert [error.message for error in validator.iter_errors(card)] == []


async def test_agent_card_json_is_the_1_0_card_with_the_0_3_fields_and_agent_json_stays_0_2_5(
    client: httpx.AsyncClient,
) -> None:
    old = (await client.get("/.well-known/agent.json")).json()
    new = (await client.get("/.well-known/agent-card.json")).json()
    assert old["protocolVersion"] == "0.2.5"
    assert "supportedInterfaces" not in old
    url = "http://agent.test/"
    assert new["supportedInterfaces"] == [
        {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": url.rstrip("/"), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
        {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.1"},
        {"url": url.rstrip("/"), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.1"},
    ]
    # What 0.3 clients read, merged in.
    assert (new["protocolVersion"], new["url"], new["preferredTransport"]) == ("0.3.0", url, "JSONRPC")
    assert new["additionalInterfaces"] == [{"url": url, "transport": "JSONRPC"}]
    for key in ("name", "description", "version", "defaultInputModes", "defaultOutputModes", "skills"):
        assert new[key] == old[key]


async def test_card_is_built_from_configuration() -> None:
    skill = AgentSkill(id="summarize", name="Summarize", description="Summaries", tags=["text"])
    stack = Stack(
        echo,
        name="Summarizer",
        description="Summarizes text",
        version="2.1.0",
        public_url="https://agents.example.com/summarizer",
        skills=[skill],
        provider={"organization": "Example Corp", "url": "https://example.com"},
    )
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    async with httpx.AsyncClient(transport=transport, base_url="http://internal") as client:
        card = (await client.get("/.well-known/agent-card.json")).json()
    assert card["name"] == "Summarizer"
    assert card["version"] == "2.1.0"
    assert card["url"] == "https://agents.example.com/summarizer/"
    assert card["skills"][0]["id"] == "summarize"
    assert card["provider"]["organization"] == "Example Corp"


async def test_card_url_follows_forwarded_headers(client: httpx.AsyncClient) -> None:
    headers = {"x-forwarded-proto": "https", "x-forwarded-host": "agent.example.org"}
    card = (await client.get("/.well-known/agent.json", headers=headers)).json()
    assert card["url"] == "https://agent.example.org/"


def test_public_url_from_an_api_gateway_stage_and_a_custom_domain() -> None:
    stage_event = {
        "requestContext": {"domainName": "abc.execute-api.eu-west-1.amazonaws.com", "stage": "prod"}
    }
    custom_event = {"requestContext": {"domainName": "agent.example.com", "stage": "prod"}}
    assert (
        public_url(None, {"aws.event": stage_event}, {})
        == "https://abc.execute-api.eu-west-1.amazonaws.com/prod/"
    )
    assert public_url(None, {"aws.event": custom_event}, {}) == "https://agent.example.com/"
    assert public_url("https://x.example/a/", {"aws.event": stage_event}, {}) == "https://x.example/a/"


async def test_healthz_and_index(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).json() == {"status": "ok"}
    index = (await client.get("/")).json()
    assert index["agentCard"] == "http://agent.test/.well-known/agent-card.json"


async def test_unknown_paths_and_methods_answer_json_not_html(client: httpx.AsyncClient) -> None:
    missing = await client.get("/nope")
    wrong_method = await client.delete("/")
    # Paths no other route claims belong to the A2A 1.0 HTTP+JSON binding: its 404 is a google.rpc.Status.
    assert missing.status_code == 404
    assert missing.json()["error"]["status"] == "NOT_FOUND"
    assert wrong_method.status_code == 405
    assert wrong_method.headers["content-type"] == "application/json"


async def test_card_says_streaming_false_when_it_is_turned_off() -> None:
    stack = Stack(echo, streaming_enabled=False)
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    async with httpx.AsyncClient(transport=transport, base_url="http://internal") as client:
        card = (await client.get("/.well-known/agent-card.json")).json()
    assert card["capabilities"]["streaming"] is False
