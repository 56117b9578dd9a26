"""`A2AClient.get_extended_card` against our `dev` server over real sockets, in every generation.

The server (`extended_card_server`) has API keys on and ``A2A_EXTENDED_SKILLS`` set, so its public
card offers an extended card with one more skill; push is on, so both cards are signed. Each
generation carries the call its own way (1.0 JSON-RPC ``GetExtendedAgentCard`` with
``A2A-Version: 1.0``, 1.0 ``GET /extendedAgentCard``, 0.3 ``agent/getAuthenticatedExtendedCard``,
0.2.5 ``GET /agent/authenticatedExtendedCard``), which the recorded requests show. An agent whose
card offers none (`api_key_server`) is refused before anything is sent; a card that claims one the
server does not have gets the server's own error, typed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from joserfc.jwk import ECKey

from a2a_core.client import A2AClient, A2AClientCardError, A2AClientHTTPError, A2AClientUnsupportedError
from a2a_core.core.errors import A2AError, ExtendedAgentCardNotConfiguredError, UnsupportedOperationError
from a2a_core.domain import AgentCapabilities, AgentCard

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

EXTRA_SKILL = "payroll"  # the id of the one skill in `extended_card_server`'s A2A_EXTENDED_SKILLS

# (binding, protocol_version) -> the request that carries the call: method, path, A2A-Version, RPC method.
GENERATIONS: dict[tuple[str, str], tuple[str, str, str | None, str | None]] = {
    ("jsonrpc", "1.0"): ("POST", "/", "1.0", "GetExtendedAgentCard"),
    ("rest", "1.0"): ("GET", "/extendedAgentCard", "1.0", None),
    ("jsonrpc", "0.3"): ("POST", "/", None, "agent/getAuthenticatedExtendedCard"),
    ("jsonrpc", "0.2.5"): ("GET", "/agent/authenticatedExtendedCard", None, None),
}


@pytest.fixture(params=list(GENERATIONS), ids=lambda g: f"{g[0]}-{g[1]}")
def generation(request: pytest.FixtureRequest) -> tuple[str, str]:
    value: tuple[str, str] = request.param
    return value


def _call(request: httpx.Request) -> tuple[str, str, str | None, str | None]:
    rpc = json.loads(request.content).get("method") if request.method == "POST" else None
    return request.method, request.url.path, request.headers.get("a2a-version"), rpc


@asynccontextmanager
async def recording(url: str | AgentCard, **options: Any) -> AsyncIterator[tuple[A2AClient, list[Any]]]:
    """A client whose requests (other than for the public card) are recorded as `_call`s."""
    calls: list[Any] = []

    async def record(request: httpx.Request) -> None:
        if "/.well-known/" not in request.url.path:
            calls.append(_call(request))

    async with (
        httpx.AsyncClient(timeout=30, event_hooks={"request": [record]}) as http,
        A2AClient(url, httpx_client=http, **options) as client,
    ):
        yield client, calls


def skill_ids(card: AgentCard) -> list[str]:
    return [skill.id for skill in card.skills]


async def test_each_generation_returns_the_card_with_the_extra_skills(
    extended_card_server: str, api_keys: dict[str, str], generation: tuple[str, str]
) -> None:
    binding, version = generation
    key = {"x-api-key": api_keys["alice"]}
    options: dict[str, Any] = {"headers": key, "binding": binding, "protocol_version": version}
    async with recording(extended_card_server, **options) as (client, calls):
        public = await client.get_card()
        assert public.supports_authenticated_extended_card is True
        assert EXTRA_SKILL not in skill_ids(public)
        extended = await client.get_extended_card()
    assert isinstance(extended, AgentCard)
    assert skill_ids(extended) == [*skill_ids(public), EXTRA_SKILL]
    assert extended.name == public.name
    assert extended.url == extended_card_server
    assert calls == [GENERATIONS[generation]]
    assert client.extended is not None
    assert client.extended.signature is None  # not asked to verify


async def test_the_extended_card_needs_the_credential(
    extended_card_server: str, api_keys: dict[str, str], generation: tuple[str, str]
) -> None:
    binding, version = generation
    async with A2AClient(extended_card_server, binding=binding, protocol_version=version) as client:
        with pytest.raises(A2AClientHTTPError) as anonymous:
            await client.get_extended_card()
    assert anonymous.value.status_code == 401
    assert "x-api-key" in anonymous.value.body
    wrong = {"x-api-key": "not-a-key"}
    async with A2AClient(
        extended_card_server, headers=wrong, binding=binding, protocol_version=version
    ) as client:
        with pytest.raises(A2AClientHTTPError) as refused:
            await client.get_extended_card()
    assert refused.value.status_code == 403


async def test_a_card_that_offers_none_is_refused_before_calling(
    api_key_server: str, api_keys: dict[str, str], generation: tuple[str, str]
) -> None:
    binding, version = generation
    key = {"x-api-key": api_keys["alice"]}
    options: dict[str, Any] = {"headers": key, "binding": binding, "protocol_version": version}
    async with recording(api_key_server, **options) as (client, calls):
        with pytest.raises(A2AClientUnsupportedError, match="offers no extended card"):
            await client.get_extended_card()
    assert calls == []


def claiming(url: str, version: str, transport: str) -> AgentCard:
    """A card for the agent at ``url`` that claims an extended card the agent does not have."""
    return AgentCard(
        name="claims an extended card",
        description="it has none",
        url=url,
        version="1",
        protocol_version=version,
        preferred_transport=transport,
        capabilities=AgentCapabilities(),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[],
        supports_authenticated_extended_card=True,
    )


@pytest.mark.parametrize(
    ("version", "transport", "error", "code"),
    [
        ("1.0", "JSONRPC", UnsupportedOperationError, -32004),
        ("1.0", "HTTP+JSON", UnsupportedOperationError, -32004),
        ("0.3.0", "JSONRPC", ExtendedAgentCardNotConfiguredError, -32007),
    ],
)
async def test_the_servers_refusal_is_its_typed_error(
    api_key_server: str,
    api_keys: dict[str, str],
    version: str,
    transport: str,
    error: type[A2AError],
    code: int,
) -> None:
    card = claiming(api_key_server, version, transport)
    async with A2AClient(card, headers={"x-api-key": api_keys["alice"]}) as client:
        with pytest.raises(error) as refused:
            await client.get_extended_card()
    assert refused.value.code == code
    assert "extended" in refused.value.message


async def test_a_0_2_5_agent_without_the_endpoint_is_an_http_error(
    api_key_server: str, api_keys: dict[str, str]
) -> None:
    card = claiming(api_key_server, "0.2.5", "JSONRPC")
    async with A2AClient(card, headers={"x-api-key": api_keys["alice"]}) as client:
        with pytest.raises(A2AClientHTTPError) as missing:
            await client.get_extended_card()
    assert missing.value.status_code == 404
    assert missing.value.url == f"{api_key_server}agent/authenticatedExtendedCard"


@pytest.mark.parametrize("binding", ["jsonrpc", "rest"])
async def test_the_extended_cards_signature_verifies_like_the_public_one(
    extended_card_server: str, api_keys: dict[str, str], binding: str
) -> None:
    key = {"x-api-key": api_keys["alice"]}
    jwks_url = f"{extended_card_server}.well-known/jwks.json"
    async with A2AClient(extended_card_server, headers=key, binding=binding, card_jwks=jwks_url) as client:
        extended = await client.get_extended_card()
        assert client.card_signature is not None
        assert client.extended is not None
        assert client.extended.signature is not None
        assert client.extended.signature["jku"] == jwks_url
        assert EXTRA_SKILL in skill_ids(extended)
        assert client.extended.document["signatures"] != (client.card_document or {})["signatures"]

    stranger = {"keys": [ECKey.generate_key("P-256", parameters={"kid": "stranger"}).as_dict(private=False)]}
    async with A2AClient(extended_card_server, headers=key, binding=binding) as client:
        await client.get_card()  # unverified: only the extended card meets the stranger's key
        client.card_jwks = stranger
        with pytest.raises(A2AClientCardError, match="does not verify"):
            await client.get_extended_card()
