"""The cards as clients fetch them (issue 22 items 10, 11 and 14): cacheable on every card route
(spec 8.6.1: ``Cache-Control`` with a ``max-age``, an ``ETag``, ``If-None-Match`` answered 304),
an HTTP+JSON interface URL a client can append its paths to, and a skill even when none is
configured.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
from a2a.client.card_resolver import parse_agent_card
from a2a.utils.proto_utils import warn_on_missing_required_fields

from a2a_core.compose import build_server
from a2a_core.compose.app import compose_app
from a2a_core.core.broker import InMemoryBroker
from a2a_core.core.tasklog.store import InMemoryTaskStore
from a2a_core.domain import AgentSkill
from a2a_core.push.signing import LocalSigner
from a2a_core.settings import Settings
from auth_support import API_KEYS, KEYS

pytestmark = pytest.mark.anyio

BASE = "https://agent.example"
PUBLIC_CARDS = ["/.well-known/agent-card.json", "/.well-known/agent.json"]
VIP = AgentSkill(id="vip", name="VIP", description="For callers with a key", tags=["vip"])


def app(signer: LocalSigner | None = None, **settings: Any) -> httpx.AsyncClient:
    settings.setdefault("allow_unauthenticated", True)
    server = build_server(
        Settings(**settings),
        store=InMemoryTaskStore(),
        broker=InMemoryBroker(),
        push_signers=[signer] if signer else None,
    )
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=compose_app(server)), base_url=BASE)


@pytest.mark.parametrize("path", PUBLIC_CARDS)
async def test_a_public_card_is_cacheable_and_revalidates_with_304(path: str) -> None:
    async with app(card_cache_seconds=120) as client:
        first = await client.get(path)
        assert first.status_code == 200
        assert first.headers["cache-control"] == "public, max-age=120"
        tag = first.headers["etag"]
        assert tag.startswith('W/"')
        for held in (tag, tag.removeprefix("W/"), f'"other", {tag}', "*"):
            again = await client.get(path, headers={"if-none-match": held})
            assert (again.status_code, again.content) == (304, b"")
            assert again.headers["etag"] == tag
            assert again.headers["cache-control"] == "public, max-age=120"
        stale = await client.get(path, headers={"if-none-match": '"an-old-card"'})
        assert (stale.status_code, stale.content) == (200, first.content)


async def test_the_extended_card_is_cacheable_by_its_caller_only() -> None:
    settings: dict[str, Any] = {"auth_mode": "api_key", "api_keys": API_KEYS, "extended_skills": [VIP]}
    async with app(**settings) as client:
        key = {"x-api-key": KEYS["alice"]}
        first = await client.get("/agent/authenticatedExtendedCard", headers=key)
        assert first.status_code == 200
        assert first.headers["cache-control"] == "private, max-age=300"
        held = {**key, "if-none-match": first.headers["etag"]}
        assert (await client.get("/agent/authenticatedExtendedCard", headers=held)).status_code == 304
        # The tag says nothing to a caller without a key: the refusal comes first.
        refused = await client.get("/agent/authenticatedExtendedCard", headers={"if-none-match": "*"})
        assert refused.status_code == 401


async def test_instances_that_sign_the_same_card_give_it_the_same_tag() -> None:
    # Each instance signs its card itself, with its own signature (ES256 is randomized): the tag
    # covers the card, not the signature, so a client revalidates against any instance.
    settings: dict[str, Any] = {"push_enabled": True, "push_signing_key_id": None}
    signer = LocalSigner()
    async with app(signer, **settings) as one, app(signer, **settings) as other:
        first = await one.get("/.well-known/agent-card.json")
        second = await other.get("/.well-known/agent-card.json")
    assert first.json()["signatures"] != second.json()["signatures"]
    assert first.headers["etag"] == second.headers["etag"]
    async with app(signer, **settings) as third:
        held = {"if-none-match": first.headers["etag"]}
        assert (await third.get("/.well-known/agent-card.json", headers=held)).status_code == 304


async def test_the_http_json_interface_takes_a_path_appended_naively() -> None:
    async with app() as client:
        card = (await client.get("/.well-known/agent-card.json")).json()
        [rest, draft] = [i for i in card["supportedInterfaces"] if i["protocolBinding"] == "HTTP+JSON"]
        assert (rest["protocolVersion"], draft) == ("1.0", {**rest, "protocolVersion": "1.1"})
        assert rest["url"] == BASE  # no trailing slash: base + "/message:send" is one slash
        message = {"role": "ROLE_USER", "messageId": "m1", "parts": [{"text": "hi"}]}
        send = {"message": message, "configuration": {"returnImmediately": True}}
        headers = {"A2A-Version": "1.0"}
        for url in (rest["url"] + "/message:send", rest["url"] + "//message:send"):
            sent = await client.post(url, json=send, headers=headers)
            assert sent.status_code == 200, sent.text
            assert sent.json()["task"]["status"]["state"]


async def test_a_card_without_configured_skills_describes_the_agent_as_one() -> None:
    async with app(name="Trip Planner", description="Plans trips end to end") as client:
        v1 = (await client.get("/.well-known/agent-card.json")).json()
        v0 = (await client.get("/.well-known/agent.json")).json()
    modes = ["text/plain", "application/json"]  # the card's own
    skill: dict[str, Any] = {
        "id": "trip-planner",
        "name": "Trip Planner",
        "description": "Plans trips end to end",
    }
    skill |= {"tags": ["trip-planner"], "inputModes": modes, "outputModes": modes}
    assert v1["skills"] == v0["skills"] == [skill]


async def test_a2a_sdk_1_3_finds_every_required_field_of_the_default_card(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with app() as client:
        document = (await client.get("/.well-known/agent-card.json")).json()
    card = parse_agent_card(json.loads(json.dumps(document)))
    with caplog.at_level(logging.WARNING):
        assert warn_on_missing_required_fields(card, "the default card:")
    assert "not spec-compliant" not in caplog.text
