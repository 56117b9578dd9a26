"""Each auth mode over HTTP: no credentials (401 + challenge), wrong ones (403), right ones (200).

A refused call never reaches the dispatcher: nothing is parsed, stored or queued. Cards stay
public; the extended card needs the same credentials as the JSON-RPC endpoint.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import OctKey

from a2a_core.auth.testing import LocalIssuer
from a2a_core.domain import AgentSkill
from a2a_core.examples.echo import agent as echo
from auth_support import API_KEYS, KEYS, client_for, send
from support import Stack

pytestmark = pytest.mark.anyio

SECRET_SKILL = AgentSkill(id="payroll", name="Payroll", description="Internal only", tags=["hr"])
ALICE_ARN = "arn:aws:iam::123456789012:user/alice"


@dataclass
class Mode:
    name: str
    settings: dict[str, Any]
    right: dict[str, str]
    challenge: str
    wrong: dict[str, str] | None = None

    def stack(self, **settings: Any) -> Stack:
        return Stack(echo, **self.settings, **settings)


def _gateway_context(**identity: str) -> dict[str, str]:
    return {"x-amzn-request-context": json.dumps({"identity": identity})}


@pytest.fixture(params=["api_key", "jwt", "iam"])
def mode(request: pytest.FixtureRequest, tmp_path: Path) -> Mode:
    if request.param == "api_key":
        return Mode(
            "api_key",
            {"auth_mode": "api_key", "api_keys": API_KEYS},
            right={"x-api-key": KEYS["alice"]},
            wrong={"x-api-key": "not-a-key"},
            challenge='ApiKey realm="a2a", header="x-api-key"',
        )
    if request.param == "jwt":
        issuer = LocalIssuer()
        return Mode(
            "jwt",
            issuer.settings(tmp_path),
            right={"authorization": f"Bearer {issuer.mint('alice')}"},
            wrong={"authorization": f"Bearer {LocalIssuer().mint('alice')}"},  # another issuer's key
            challenge='Bearer realm="a2a"',
        )
    # Served directly, IAM is only what API Gateway's context says (behind the Web Adapter).
    return Mode(
        "iam",
        {"auth_mode": "iam", "trust_request_context_header": True},
        right=_gateway_context(userArn=ALICE_ARN),
        challenge="AWS4-HMAC-SHA256",
    )


def _untouched(stack: Stack) -> bool:
    return not stack.store._logs and len(stack.broker) == 0


async def test_no_credentials_is_401_with_a_challenge(mode: Mode) -> None:
    stack = mode.stack()
    async with client_for(stack.service) as client:
        response = await client.post("/", json=send())
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == mode.challenge
    answer = response.json()
    assert answer["jsonrpc"] == "2.0"
    assert answer["id"] is None
    assert answer["error"]["code"] == -32600
    assert "Authentication required" in answer["error"]["message"]
    assert _untouched(stack)


async def test_credentials_are_checked_before_the_body_is_parsed(mode: Mode) -> None:
    stack = mode.stack()
    async with client_for(stack.service) as client:
        response = await client.post("/", content=b"{not json")
    assert response.status_code == 401


# IAM is absent: API Gateway refuses a bad SigV4 signature itself; the app never sees one.
@pytest.mark.parametrize("mode", ["api_key", "jwt"], indirect=True)
async def test_wrong_credentials_are_refused(mode: Mode) -> None:
    # A wrong API key is 403; a bearer token that is not valid is 401 invalid_token (RFC 6750).
    assert mode.wrong is not None
    stack = mode.stack()
    async with client_for(stack.service, **mode.wrong) as client:
        response = await client.post("/", json=send())
    bearer = "authorization" in mode.wrong
    assert response.status_code == (401 if bearer else 403)
    answer = response.json()
    assert answer["id"] is None
    assert ("not valid" if bearer else "Access denied") in answer["error"]["message"]
    assert _untouched(stack)


async def test_right_credentials_are_served(mode: Mode) -> None:
    stack = mode.stack()
    async with client_for(stack.service, **mode.right) as client:
        response = await client.post("/", json=send())
        task = response.json()["result"]
        fetched = await client.post("/", json={**send(), "method": "tasks/get", "params": {"id": task["id"]}})
    assert response.status_code == 200
    assert task["status"]["state"] == "submitted"
    assert fetched.json()["result"]["id"] == task["id"]


async def test_cards_and_health_stay_public(mode: Mode) -> None:
    async with client_for(mode.stack().service) as client:
        for path in ("/.well-known/agent.json", "/.well-known/agent-card.json", "/healthz", "/"):
            assert (await client.get(path)).status_code == 200


async def test_the_extended_card_needs_credentials(mode: Mode) -> None:
    stack = mode.stack(extended_skills=[SECRET_SKILL])
    async with client_for(stack.service) as anonymous:
        public = (await anonymous.get("/.well-known/agent.json")).json()
        refused = await anonymous.get("/agent/authenticatedExtendedCard")
    async with client_for(stack.service, **mode.right) as authenticated:
        extended = await authenticated.get("/agent/authenticatedExtendedCard")
    assert public["supportsAuthenticatedExtendedCard"] is True
    assert "payroll" not in [skill["id"] for skill in public["skills"]]
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == mode.challenge
    assert extended.status_code == 200
    card = extended.json()
    # The public card's skills (none configured: the agent itself), then the extended ones.
    assert card["skills"] == [*public["skills"], card["skills"][-1]]
    assert card["skills"][-1]["id"] == "payroll"
    assert card["securitySchemes"] == public["securitySchemes"]


async def test_the_extended_card_refuses_wrong_credentials() -> None:
    stack = Stack(echo, auth_mode="api_key", api_keys=API_KEYS, extended_skills=[SECRET_SKILL])
    async with client_for(stack.service, **{"x-api-key": "wrong"}) as client:
        response = await client.get("/agent/authenticatedExtendedCard")
    assert response.status_code == 403


async def test_without_auth_there_is_no_extended_card() -> None:
    stack = Stack(echo, extended_skills=[SECRET_SKILL])
    async with client_for(stack.service) as client:
        card = (await client.get("/.well-known/agent.json")).json()
        response = await client.get("/agent/authenticatedExtendedCard")
    assert "supportsAuthenticatedExtendedCard" not in card
    assert response.status_code == 404
    assert "payroll" not in response.text


async def test_the_request_context_header_is_ignored_unless_trusted() -> None:
    # Served directly, anyone could send the header: it must not stand in for credentials.
    for settings in ({"auth_mode": "api_key", "api_keys": API_KEYS}, {"auth_mode": "iam"}):
        stack = Stack(echo, **settings)
        headers = _gateway_context(apiKeyId="alice", userArn=ALICE_ARN)
        async with client_for(stack.service, **headers) as client:
            response = await client.post("/", json=send())
        assert response.status_code == 401
        assert _untouched(stack)


# JWT validated in the app: every way a token can be wrong is a 403, and never stores anything.


@pytest.fixture
def issuer() -> LocalIssuer:
    return LocalIssuer()


def _unsigned(claims: dict[str, Any]) -> str:
    def encode(part: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(part).encode()).rstrip(b"=").decode()

    return f"{encode({'alg': 'none', 'typ': 'JWT'})}.{encode(claims)}."


def _hs256(issuer: LocalIssuer) -> str:
    # The classic confusion attack: HMAC "signed" with the issuer's public key as the secret.
    secret = OctKey.import_key(json.dumps(issuer.jwks()["keys"][0]).encode())
    claims = {"iss": issuer.issuer, "aud": issuer.audience, "sub": "mallory", "exp": int(time.time()) + 60}
    return jwt.encode({"alg": "HS256", "kid": issuer.key.kid}, claims, secret, algorithms=["HS256"])


BAD_TOKENS: dict[str, Callable[[LocalIssuer], str]] = {
    "expired": lambda i: i.mint("alice", ttl=-120),
    "not yet valid": lambda i: i.mint("alice", not_before=time.time() + 600),
    "wrong audience": lambda i: i.mint("alice", audience="someone-else"),
    "wrong issuer": lambda i: i.mint("alice", issuer="https://evil.example/"),
    "no subject": lambda i: i.mint("", claims={"sub": None}),
    "empty subject": lambda i: i.mint(""),
    "numeric subject": lambda i: i.mint("", claims={"sub": 42}),
    "alg none": lambda i: _unsigned({"iss": i.issuer, "aud": i.audience, "sub": "mallory", "exp": 2**40}),
    "hs256 with the public key": _hs256,
    "garbage": lambda i: "not.a.token",
    "tampered": lambda i: i.mint("alice")[:-6] + "AAAAAA",
}


@pytest.mark.parametrize("kind", list(BAD_TOKENS))
async def test_a_bad_token_is_401_invalid_token(issuer: LocalIssuer, tmp_path: Path, kind: str) -> None:
    # RFC 6750 3.1 (issue 22 item 15): the client should get a new token, which 403 never said.
    stack = Stack(echo, **issuer.settings(tmp_path))
    token = BAD_TOKENS[kind](issuer)
    async with client_for(stack.service, authorization=f"Bearer {token}") as client:
        response = await client.post("/", json=send())
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == (
        'Bearer realm="a2a", error="invalid_token", error_description="The access token is not valid"'
    )
    assert token not in response.text
    assert _untouched(stack)


@pytest.mark.parametrize("header", ["Basic YWxpY2U6cHc=", "Bearer", "Bearer   ", "token abc"])
async def test_a_non_bearer_authorization_is_401(issuer: LocalIssuer, tmp_path: Path, header: str) -> None:
    stack = Stack(echo, **issuer.settings(tmp_path))
    async with client_for(stack.service, authorization=header) as client:
        response = await client.post("/", json=send())
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == 'Bearer realm="a2a"'


async def test_a_token_just_past_its_expiry_is_within_the_leeway(issuer: LocalIssuer, tmp_path: Path) -> None:
    stack = Stack(echo, **issuer.settings(tmp_path))
    async with client_for(stack.service, authorization=f"Bearer {issuer.mint('alice', ttl=-5)}") as client:
        assert (await client.post("/", json=send())).status_code == 200


@pytest.fixture
def served_jwks(issuer: LocalIssuer) -> Iterator[str]:
    with issuer.serve_jwks() as url:
        yield url


async def test_jwks_from_a_url(issuer: LocalIssuer, tmp_path: Path, served_jwks: str) -> None:
    settings = {**issuer.settings(tmp_path), "jwt_jwks_file": None, "jwt_jwks_url": served_jwks}
    stack = Stack(echo, **settings)
    async with client_for(stack.service, authorization=f"Bearer {issuer.mint('alice')}") as client:
        response = await client.post("/", json=send())
    assert response.status_code == 200
