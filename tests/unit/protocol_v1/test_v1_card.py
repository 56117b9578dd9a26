"""The 1.0 agent card: built from the 0.2.5 builder's inputs, 0.3 fields merged in as a2a-sdk 1.3 does,
readable by 1.x parsers and by a2a-sdk 0.3's card model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from a2a.compat.v0_3.types import AgentCard as Sdk03AgentCard
from a2a.compat.v0_3.types import HTTPAuthSecurityScheme as Sdk03HttpScheme

from a2a_core.domain import (
    AgentCapabilities,
    AgentCard,
    AgentSkill,
    APIKeySecurityScheme,
    AuthorizationCodeOAuthFlow,
    ClientCredentialsOAuthFlow,
    HTTPAuthSecurityScheme,
    OAuth2SecurityScheme,
    OAuthFlows,
    OpenIdConnectSecurityScheme,
)
from a2a_core.protocol.card import CardBuilder
from a2a_core.protocol.v1.card_builder import (
    CardDocuments,
    card_document,
    card_to_v1,
    legacy_fields,
    merge,
    security_scheme_to_v1,
    supported_interfaces,
)
from a2a_core.protocol.v1.card_signing import verify_card
from a2a_core.protocol.v1.wire import card as wc
from a2a_core.protocol.v1.wire.protojson import dump
from a2a_core.push.signing import LocalSigner, jwks
from a2a_core.settings import Settings

FIXTURES = Path(__file__).parents[2] / "fixtures" / "a2a_v1"
URL = "https://agent.example.com/"
ECHO = AgentSkill(id="echo", name="Echo", description="Echoes", tags=["echo"])


def settings(**overrides: Any) -> Settings:
    return Settings(skills=[ECHO], **overrides)


def test_interfaces_prefer_json_rpc_1_0_then_rest_then_json_rpc_0_3_then_the_1_1_draft() -> None:
    # HTTP+JSON's without a trailing slash: clients append /message:send (some naively).
    assert [dump(i) for i in supported_interfaces(URL)] == [
        {"url": URL, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": URL.rstrip("/"), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
        {"url": URL, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        {"url": URL, "protocolBinding": "JSONRPC", "protocolVersion": "1.1"},
        {"url": URL.rstrip("/"), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.1"},
    ]


def test_the_1_0_card_has_the_builders_content_in_1_0_form() -> None:
    builder = CardBuilder(
        settings(auth_mode="api_key", extended_skills=[ECHO]), streaming=True, push_notifications=False
    )
    card = dump(card_to_v1(builder.card(URL)))
    extension = {
        "uri": "urn:a2a-serverless:file-uri-schemes:v1",
        "description": "FilePart uri values must use one of these schemes: http, https, s3",
        "params": {"fileUriSchemes": ["http", "https", "s3"]},
    }
    assert card["capabilities"] == {
        "streaming": True,
        "pushNotifications": False,
        "extendedAgentCard": True,
        "extensions": [extension],
    }
    assert card["securitySchemes"] == {
        "apiKey": {
            "apiKeySecurityScheme": {
                "location": "header",
                "name": "x-api-key",
                "description": "API key in the x-api-key header",
            }
        }
    }
    assert card["securityRequirements"] == [{"schemes": {"apiKey": {}}}]
    assert card["skills"] == [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["echo"]}]
    assert card["supportedInterfaces"][0]["protocolVersion"] == "1.0"
    assert "url" not in card
    assert "protocolVersion" not in card


def test_without_an_extended_card_neither_generation_claims_one() -> None:
    card = CardBuilder(settings(), streaming=False, push_notifications=False).card(URL)
    document = card_document(card)
    assert "extendedAgentCard" not in document["capabilities"]
    assert "supportsAuthenticatedExtendedCard" not in document
    assert "securitySchemes" not in document
    assert "security" not in document


def _sdk_shaped_card() -> AgentCard:
    """The domain card of the one a2a-sdk's agent_card_to_dict printed in sdk13_merged_card.json."""
    return AgentCard(
        name="Echo",
        description="Echoes",
        url=URL,
        version="0.1.0",
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[ECHO],
        security_schemes={"apiKey": APIKeySecurityScheme(name="x-api-key", in_="header", description="Key")},
        security=[{"apiKey": []}],
        supports_authenticated_extended_card=True,
    )


def test_the_merged_document_is_a2a_sdk_1_3s_plus_0_3_best_practice() -> None:
    sdk = json.loads((FIXTURES / "sdk13_merged_card.json").read_text())
    ours = card_document(_sdk_shaped_card())
    # Deliberate differences: the card-level version 0.3 clients see is the 0.3.0 schema's
    # default, additionalInterfaces lists the preferred interface as 0.3 recommends, and the
    # HTTP+JSON interface's URL has no trailing slash, and the A2A 1.1 draft's interfaces follow.
    interfaces = [
        {**i, "url": URL.rstrip("/")} if i["protocolBinding"] == "HTTP+JSON" else i
        for i in sdk["supportedInterfaces"]
    ]
    interfaces += [
        {"url": URL, "protocolBinding": "JSONRPC", "protocolVersion": "1.1"},
        {"url": URL.rstrip("/"), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.1"},
    ]
    assert ours == sdk | {
        "protocolVersion": "0.3.0",
        "additionalInterfaces": [{"url": URL, "transport": "JSONRPC"}],
        "supportedInterfaces": interfaces,
    }


def test_a2a_sdk_0_3_reads_the_document_as_a_0_3_card() -> None:
    builder = CardBuilder(
        settings(auth_mode="jwt", extended_skills=[ECHO]), streaming=True, push_notifications=True
    )
    document = card_document(builder.card(URL))
    card = Sdk03AgentCard.model_validate(document)
    assert (card.url, card.preferred_transport, card.protocol_version) == (URL, "JSONRPC", "0.3.0")
    assert card.supports_authenticated_extended_card is True
    assert card.security_schemes is not None
    scheme = card.security_schemes["bearer"].root
    assert isinstance(scheme, Sdk03HttpScheme)
    assert (scheme.type, scheme.scheme, scheme.bearer_format) == ("http", "bearer", "JWT")
    assert card.security == [{"bearer": []}]
    assert [(i.url, i.transport) for i in card.additional_interfaces or []] == [(URL, "JSONRPC")]


def test_a2a_sdk_0_3_reads_the_signed_fixture_too() -> None:
    document = json.loads((FIXTURES / "signed_card.json").read_text())
    card = Sdk03AgentCard.model_validate(document)
    assert card.signatures is not None
    assert card.signatures[0].protected == document["signatures"][0]["protected"]


def test_a_1_x_parser_finds_the_1_0_interfaces_and_ignores_the_0_3_fields() -> None:
    builder = CardBuilder(settings(auth_mode="api_key"), streaming=True, push_notifications=False)
    parsed = wc.AgentCard.model_validate(card_document(builder.card(URL)))
    assert {(i.protocol_binding, i.protocol_version) for i in parsed.supported_interfaces} == {
        ("JSONRPC", "1.0"),
        ("HTTP+JSON", "1.0"),
        ("JSONRPC", "0.3"),
        ("JSONRPC", "1.1"),
        ("HTTP+JSON", "1.1"),
    }
    assert dump(parsed) == dump(card_to_v1(builder.card(URL)))


@pytest.mark.parametrize(
    ("scheme", "expected"),
    [
        (
            HTTPAuthSecurityScheme(scheme="bearer", bearer_format="JWT"),
            {"httpAuthSecurityScheme": {"scheme": "bearer", "bearerFormat": "JWT"}},
        ),
        (
            OpenIdConnectSecurityScheme(open_id_connect_url="https://id/.well-known/openid-configuration"),
            {
                "openIdConnectSecurityScheme": {
                    "openIdConnectUrl": "https://id/.well-known/openid-configuration"
                }
            },
        ),
        (
            OAuth2SecurityScheme(
                flows=OAuthFlows(
                    client_credentials=ClientCredentialsOAuthFlow(token_url="https://t", scopes={}),
                    authorization_code=AuthorizationCodeOAuthFlow(
                        authorization_url="https://a", token_url="https://t", scopes={"read": "Read"}
                    ),
                ),
                description="OAuth",
            ),
            # 1.0 allows one flow per scheme: the first, in the proto's order.
            {
                "oauth2SecurityScheme": {
                    "flows": {
                        "authorizationCode": {
                            "authorizationUrl": "https://a",
                            "tokenUrl": "https://t",
                            "scopes": {"read": "Read"},
                        }
                    },
                    "description": "OAuth",
                }
            },
        ),
    ],
)
def test_0x_security_schemes_become_the_1_0_oneof(scheme: Any, expected: dict[str, Any]) -> None:
    assert dump(security_scheme_to_v1(scheme)) == expected


def test_an_oauth_scheme_without_flows_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one flow"):
        security_scheme_to_v1(OAuth2SecurityScheme(flows=OAuthFlows()))


def test_legacy_fields_are_the_0_2_5_card_relabelled_0_3() -> None:
    card = CardBuilder(settings(), streaming=True, push_notifications=False).card(URL)
    legacy = legacy_fields(card)
    assert legacy["protocolVersion"] == "0.3.0"
    assert legacy["capabilities"]["stateTransitionHistory"] is True
    assert "supportsAuthenticatedExtendedCard" not in legacy


def test_merge_adds_missing_keys_and_merges_objects_and_lists_by_position() -> None:
    target: dict[str, Any] = {"a": 1, "o": {"x": 1}, "l": [{"p": 1}, {"p": 2}], "s": [1]}
    merge(target, {"a": 2, "b": 3, "o": {"x": 2, "y": 3}, "l": [{"q": 1}], "s": [5, 6]})
    assert target == {"a": 1, "b": 3, "o": {"x": 1, "y": 3}, "l": [{"p": 1, "q": 1}, {"p": 2}], "s": [1]}


@pytest.mark.anyio
async def test_documents_are_built_once_per_url_and_signed_with_the_push_key() -> None:
    signer = LocalSigner()
    builder = CardBuilder(
        settings(
            auth_mode="api_key", extended_skills=[AgentSkill(id="vip", name="VIP", description="d", tags=[])]
        ),
        streaming=True,
        push_notifications=True,
    )
    documents = CardDocuments(builder, signer=signer)
    first = await documents.card_json(URL)
    assert await documents.card_json(URL) is first
    public = json.loads(first)
    header = verify_card(public, await jwks([signer]))
    assert header == {"alg": "ES256", "typ": "JOSE", "kid": signer.kid, "jku": URL + ".well-known/jwks.json"}
    extended = json.loads(await documents.extended_card_json(URL))
    assert [s["id"] for s in extended["skills"]] == ["echo", "vip"]
    verify_card(extended, await jwks([signer]))
    other_host = json.loads(await documents.card_json("https://other.example.com/prod/"))
    assert other_host["url"] == "https://other.example.com/prod/"
    assert other_host["signatures"][0] != public["signatures"][0]


@pytest.mark.anyio
async def test_without_a_signer_the_document_is_unsigned() -> None:
    documents = CardDocuments(CardBuilder(settings(), streaming=True, push_notifications=False))
    assert "signatures" not in json.loads(await documents.card_json(URL))
