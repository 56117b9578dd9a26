"""Reading callers: the issuer's JWKS (fetch, rotation, outages), API Gateway's authorizer
context, and API key matching."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from pydantic import SecretStr

from a2a_core.auth import CredentialsMissingError, CredentialsRejectedError, gateway
from a2a_core.auth.api_key import ApiKeyAuthenticator
from a2a_core.auth.base import TokenInvalidError
from a2a_core.auth.bearer import AuthUnavailableError, BearerAuthenticator, Jwks, TokenValidator
from a2a_core.auth.iam import IamAuthenticator
from a2a_core.auth.testing import LocalIssuer

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Issuer:
    """A JWKS endpoint whose document the test changes, counting fetches."""

    def __init__(self, document: Mapping[str, Any] | None) -> None:
        self.document = document
        self.fetches = 0

    async def fetch(self, url: str) -> Mapping[str, Any]:
        self.fetches += 1
        if self.document is None:
            raise OSError("connection refused")
        return self.document


def validator(jwks: Jwks, issuer: LocalIssuer) -> TokenValidator:
    return TokenValidator(jwks, issuer=issuer.issuer, audience=issuer.audience, algorithms=["ES256"])


async def test_keys_are_fetched_once_and_refetched_for_a_rotated_key() -> None:
    old, new = LocalIssuer(), LocalIssuer()
    endpoint = Issuer(old.jwks())
    clock = Clock()
    check = validator(Jwks(url="https://issuer/jwks", fetch=endpoint.fetch, clock=clock), old)
    await check.validate(old.mint("alice"))
    await check.validate(old.mint("bob"))
    assert endpoint.fetches == 1

    endpoint.document = {"keys": [*old.jwks()["keys"], *new.jwks()["keys"]]}  # the issuer rotates
    rotated = LocalIssuer(issuer=old.issuer, audience=old.audience, key=new.key)
    clock.now += 60
    assert (await check.validate(rotated.mint("carol")))["sub"] == "carol"
    assert endpoint.fetches == 2


async def test_unknown_keys_do_not_make_every_request_fetch() -> None:
    issuer, stranger = LocalIssuer(), LocalIssuer()
    endpoint = Issuer(issuer.jwks())
    check = validator(Jwks(url="https://issuer/jwks", fetch=endpoint.fetch, clock=Clock()), issuer)
    await check.validate(issuer.mint("alice"))
    for _ in range(5):
        with pytest.raises(TokenInvalidError):
            await check.validate(stranger.mint("mallory"))
    assert endpoint.fetches == 1  # refreshes are rate limited


async def test_an_issuer_outage_keeps_the_last_good_keys() -> None:
    issuer = LocalIssuer()
    endpoint = Issuer(issuer.jwks())
    clock = Clock()
    check = validator(Jwks(url="https://issuer/jwks", fetch=endpoint.fetch, clock=clock, max_age=10), issuer)
    await check.validate(issuer.mint("alice"))
    endpoint.document = None
    clock.now += 60  # stale: refetch fails
    assert (await check.validate(issuer.mint("alice")))["sub"] == "alice"
    assert endpoint.fetches == 2


async def test_no_keys_at_all_is_503_not_a_verdict() -> None:
    issuer = LocalIssuer()
    check = validator(Jwks(url="https://issuer/jwks", fetch=Issuer(None).fetch), issuer)
    with pytest.raises(AuthUnavailableError) as raised:
        await check.validate(issuer.mint("alice"))
    assert raised.value.status_code == 503


async def test_keys_missing_since_start_up_are_fetched_again_soon() -> None:
    issuer = LocalIssuer()
    endpoint = Issuer(None)
    clock = Clock()
    check = validator(Jwks(url="https://issuer/jwks", fetch=endpoint.fetch, clock=clock), issuer)
    for _ in range(3):
        with pytest.raises(AuthUnavailableError):
            await check.validate(issuer.mint("alice"))
    assert endpoint.fetches == 1  # rate limited while down
    endpoint.document = issuer.jwks()
    clock.now += 30  # well before max_age
    assert (await check.validate(issuer.mint("alice")))["sub"] == "alice"
    assert endpoint.fetches == 2


@pytest.mark.parametrize(
    ("authorizer", "subject", "scopes"),
    [
        ({"claims": {"iss": "https://cognito/", "sub": "u1", "scope": "a b"}}, "u1", {"a", "b"}),
        ({"jwt": {"claims": {"iss": "https://i/", "sub": "u2", "scope": "[x y]"}}}, "u2", {"x", "y"}),
        ({"principalId": "u3", "scope": "z"}, "u3", {"z"}),  # a Lambda authorizer's context
    ],
)
def test_claims_from_each_kind_of_authorizer(
    authorizer: dict[str, Any], subject: str, scopes: set[str]
) -> None:
    claims = gateway.authorizer_claims({"authorizer": authorizer})
    assert (claims.get("sub") or claims.get("principalId")) == subject
    assert gateway.scopes(claims) == scopes


@pytest.mark.parametrize(
    ("jwt", "scopes"),
    [
        ({"claims": {"sub": "u1", "scope": "a b"}, "scopes": ["b", "c"]}, {"a", "b", "c"}),
        ({"claims": {"sub": "u1"}, "scopes": ["c"]}, {"c"}),
        ({"claims": {"sub": "u1", "scp": "[a b]"}, "scopes": None}, {"a", "b"}),
    ],
)
def test_an_http_api_jwt_authorizer_lists_scopes_beside_the_claims(
    jwt: dict[str, Any], scopes: set[str]
) -> None:
    assert gateway.authorizer_scopes({"authorizer": {"jwt": jwt}}) == scopes


NOW = 1_800_000_000


def lambda_authorizer_event(exp: Any) -> dict[str, Any]:
    authorizer = {"principalId": "https://i/|u1", "iss": "https://i/", "sub": "u1", "exp": exp}
    return {"requestContext": {"authorizer": authorizer}}


@pytest.mark.parametrize("exp", [NOW - 31, str(NOW - 31), str(NOW - 3600), float(NOW - 3600)])
async def test_a_cached_authorizer_result_does_not_outlive_its_token(exp: Any) -> None:
    authenticator = BearerAuthenticator(None, now=lambda: NOW)
    with pytest.raises(TokenInvalidError) as raised:
        await authenticator.authenticate({"aws.event": lambda_authorizer_event(exp)}, {})
    assert raised.value.status_code == 401
    assert 'error="invalid_token"' in raised.value.headers()["WWW-Authenticate"]


@pytest.mark.parametrize(
    "exp",
    [
        NOW + 3600,
        str(NOW - 29),  # within the clock-skew leeway
        "Sun Nov 22 11:00:00 UTC 2026",  # how Cognito renders it: left to Cognito
        "-1",
        "",
        True,
        None,
    ],
)
async def test_exp_in_the_authorizer_context_is_checked_only_when_numeric_and_past(exp: Any) -> None:
    principal = await BearerAuthenticator(None, now=lambda: NOW).authenticate(
        {"aws.event": lambda_authorizer_event(exp)}, {}
    )
    assert principal.key == "jwt:https://i/|u1"


def test_a_malformed_request_context_header_is_no_context() -> None:
    headers = {gateway.CONTEXT_HEADER: "{not json"}
    assert gateway.request_context({}, headers, trust_header=True) == {}
    assert gateway.request_context({}, headers, trust_header=False) is None


async def test_api_keys_match_by_value_and_answer_with_the_key_id() -> None:
    keys = {f"k{n}": SecretStr(f"key-number-{n}") for n in range(5)}
    authenticator = ApiKeyAuthenticator(keys)
    assert (await authenticator.authenticate({}, {"x-api-key": "key-number-3"})).id == "k3"
    with pytest.raises(CredentialsRejectedError):
        await authenticator.authenticate({}, {"x-api-key": "key-number-3 "})
    with pytest.raises(CredentialsMissingError):
        await authenticator.authenticate({}, {"x-api-key": ""})


def v2_context_header(**authorizer: Any) -> dict[str, str]:
    """The Lambda Web Adapter's context header behind an HTTP API or a function URL."""
    http = {"method": "POST", "path": "/", "protocol": "HTTP/1.1", "sourceIp": "203.0.113.10"}
    return {gateway.CONTEXT_HEADER: json.dumps({"http": http, "stage": "$default", "authorizer": authorizer})}


async def test_the_iam_caller_of_a_payload_2_context_header() -> None:
    arn = "arn:aws:iam::123456789012:user/alice"
    headers = v2_context_header(iam={"userArn": arn, "accessKey": "AKIAEXAMPLE"})
    principal = await IamAuthenticator(trust_context_header=True).authenticate({}, headers)
    assert principal.key == f"iam:{arn}"


async def test_an_api_key_beside_a_payload_2_context_header_is_refused() -> None:
    headers = {**v2_context_header(), "x-api-key": "key-number-1"}
    authenticator = ApiKeyAuthenticator({"k1": SecretStr("key-number-1")}, trust_context_header=True)
    with pytest.raises(CredentialsRejectedError):
        await authenticator.authenticate({}, headers)
