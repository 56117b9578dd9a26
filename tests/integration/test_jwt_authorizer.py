"""The REST API's JWT ``TOKEN`` authorizer: the Lambda handler loaded as on a cold start, fed the
events API Gateway sends it, checking real tokens against a JWKS served over loopback HTTP; then
its answer, as API Gateway passes it on, fed to the API function."""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import logging
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import OctKey

from a2a_core.auth.testing import LocalIssuer
from a2a_core.aws.authorizer import KeysUnavailableError
from a2a_core.aws.authorizer import logger as authorizer_logger
from a2a_core.settings import SettingsError
from aws_events import EVENTS, lambda_context, load_function
from push_receiver import closed_port

API = "arn:aws:execute-api:us-east-1:123456789012:abc123xyz0"
METHOD_ARN = f"{API}/prod/POST/"
STAGE = f"{API}/prod/*"
COMMON_ENV = {"A2A_AUTH_MODE": "jwt", "A2A_BACKEND": "aws", "POWERTOOLS_SERVICE_NAME": "a2a-authorizer"}
JWT_ENV = (
    "A2A_JWT_ISSUER",
    "A2A_JWT_AUDIENCE",
    "A2A_JWT_JWKS_URL",
    "A2A_JWT_JWKS_FILE",
    "A2A_JWT_ALGORITHMS",
)

Load = Callable[..., ModuleType]


@pytest.fixture
def issuer() -> LocalIssuer:
    return LocalIssuer()


@pytest.fixture
def jwks_url(issuer: LocalIssuer) -> Iterator[str]:
    with issuer.serve_jwks() as url:
        yield url


@pytest.fixture
def load(monkeypatch: pytest.MonkeyPatch) -> Iterator[Load]:
    """Cold-starts ``functions/authorizer`` with the given environment; closes its event loop after."""
    for name in JWT_ENV:
        monkeypatch.delenv(name, raising=False)
    loaded: list[ModuleType] = []

    def load(**env: str) -> ModuleType:
        function = load_function(monkeypatch, "authorizer", {**COMMON_ENV, **env})
        loaded.append(function)
        return function

    yield load
    for function in loaded:
        function.loop.close()


@pytest.fixture
def authorizer(load: Load, issuer: LocalIssuer, jwks_url: str) -> ModuleType:
    return load(**issuer_env(issuer, jwks_url))


def issuer_env(issuer: LocalIssuer, jwks_url: str) -> dict[str, str]:
    return {
        "A2A_JWT_ISSUER": issuer.issuer,
        "A2A_JWT_AUDIENCE": issuer.audience,
        "A2A_JWT_JWKS_URL": jwks_url,
        "A2A_JWT_ALGORITHMS": '["ES256"]',
    }


def authorize(function: ModuleType, header: Any, method_arn: Any = METHOD_ARN) -> dict[str, Any]:
    event = {"type": "TOKEN", "authorizationToken": header, "methodArn": method_arn}
    answer: dict[str, Any] = function.handler(event, lambda_context("a2a-authorizer"))
    return answer


def statement(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["policyDocument"]["Version"] == "2012-10-17"
    [only] = answer["policyDocument"]["Statement"]
    assert only["Action"] == "execute-api:Invoke"
    return dict(only)


def unsigned(claims: dict[str, Any]) -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."


def valid_claims(issuer: LocalIssuer, subject: str = "alice") -> dict[str, Any]:
    now = int(time.time())
    return {"iss": issuer.issuer, "aud": issuer.audience, "sub": subject, "iat": now, "exp": now + 600}


def tampered(issuer: LocalIssuer) -> str:
    header, _, signature = issuer.mint("alice").split(".")
    return ".".join([header, issuer.mint("mallory").split(".")[1], signature])


def stranger(issuer: LocalIssuer) -> str:
    """Right issuer and audience, signed by a key the issuer never published."""
    return LocalIssuer(issuer=issuer.issuer, audience=issuer.audience).mint("alice")


def shared_secret(issuer: LocalIssuer) -> str:
    key = OctKey.import_key(b"a-shared-secret-anyone-could-guess")
    header = {"alg": "HS256", "kid": issuer.key.kid}
    return jwt.encode(header, valid_claims(issuer), key, algorithms=["HS256"])


BAD_TOKENS: dict[str, Callable[[LocalIssuer], str]] = {
    "expired": lambda issuer: issuer.mint("alice", ttl=-3600),
    "not yet valid": lambda issuer: issuer.mint("alice", not_before=time.time() + 3600),
    "another issuer": lambda issuer: issuer.mint("alice", issuer="https://issuer.example.net/"),
    "another audience": lambda issuer: issuer.mint("alice", audience="another-api"),
    "no subject": lambda issuer: issuer.mint(""),
    "payload swapped": tampered,
    "an unknown key": stranger,
    "HS256 with a shared secret": shared_secret,
    "alg none": lambda issuer: unsigned(valid_claims(issuer)),
    "not a JWT": lambda issuer: "not.a.jwt",
}


@pytest.mark.parametrize(
    "header", [None, "", "Bearer", "Bearer ", "Basic YWxpY2U6c2VjcmV0", "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"]
)
def test_no_bearer_token_is_unauthorized(authorizer: ModuleType, header: str | None) -> None:
    with pytest.raises(Exception, match=r"^Unauthorized$") as raised:
        authorize(authorizer, header)
    assert str(raised.value) == "Unauthorized"  # the exact message API Gateway turns into a 401


@pytest.mark.parametrize("make", BAD_TOKENS.values(), ids=BAD_TOKENS.keys())
def test_a_token_that_is_not_valid_is_denied_on_the_whole_stage(
    authorizer: ModuleType, issuer: LocalIssuer, make: Callable[[LocalIssuer], str]
) -> None:
    assert authorize(authorizer, f"Bearer {issuer.mint('warm-up')}")["principalId"].endswith("|warm-up")
    answer = authorize(authorizer, f"Bearer {make(issuer)}")
    assert answer["principalId"] == "anonymous"
    assert statement(answer) == {"Action": "execute-api:Invoke", "Effect": "Deny", "Resource": STAGE}
    assert "context" not in answer


def test_a_valid_token_is_allowed_on_the_whole_stage(authorizer: ModuleType, issuer: LocalIssuer) -> None:
    token = issuer.mint("alice", scopes=["tasks.write", "tasks.read"], ttl=600)
    answer = authorize(authorizer, f"Bearer {token}")
    assert answer["principalId"] == f"{issuer.issuer}|alice"
    assert statement(answer) == {"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": STAGE}
    context = answer["context"]
    assert context == {
        "iss": issuer.issuer,
        "sub": "alice",
        "scope": "tasks.read tasks.write",
        "exp": context["exp"],
    }
    assert isinstance(context["exp"], int)
    assert time.time() + 590 < context["exp"] <= time.time() + 600

    # The cached policy is reused for other methods and paths of the stage: it says so.
    for method_arn in (f"{API}/prod/GET/.well-known/agent.json", f"{API}/prod/GET/a path/with spaces"):
        assert statement(authorize(authorizer, f"Bearer {token}", method_arn))["Resource"] == STAGE


def test_the_context_is_flat_whatever_the_token_carries(authorizer: ModuleType, issuer: LocalIssuer) -> None:
    claims = {"scp": ["tasks.write", "tasks.read"], "groups": ["admins"], "address": {"country": "NL"}}
    answer = authorize(authorizer, f"Bearer {issuer.mint('bob', claims=claims)}")
    assert answer["context"]["scope"] == "tasks.read tasks.write"
    assert set(answer["context"]) == {"iss", "sub", "scope", "exp"}
    assert all(isinstance(value, str | int | float | bool) for value in answer["context"].values())

    no_scopes = authorize(authorizer, f"Bearer {issuer.mint('bob')}")
    assert no_scopes["context"]["scope"] == ""


@pytest.mark.parametrize(
    "method_arn",
    [
        None,
        42,
        "",
        "not-an-arn",
        API,
        f"{API}/prod",
        "arn:aws:s3:::abc123xyz0/prod/POST/",
        f"{API}/prod/",
        f"{API}/../POST/",
    ],
)
def test_a_malformed_method_arn_is_denied(
    authorizer: ModuleType, issuer: LocalIssuer, method_arn: Any
) -> None:
    answer = authorize(authorizer, f"Bearer {issuer.mint('alice')}", method_arn)
    assert answer["principalId"] == "anonymous"
    assert statement(answer)["Effect"] == "Deny"


def test_an_unreachable_jwks_is_an_authorizer_failure_not_a_verdict(
    load: Load, issuer: LocalIssuer, caplog: pytest.LogCaptureFixture
) -> None:
    function = load(**issuer_env(issuer, f"http://127.0.0.1:{closed_port()}/.well-known/jwks.json"))
    with pytest.raises(KeysUnavailableError) as raised:
        authorize(function, f"Bearer {issuer.mint('alice')}")
    assert str(raised.value) != "Unauthorized"  # API Gateway answers 500, not 401
    assert "cannot load the JWKS from http://127.0.0.1" in caplog.text


def test_a_rotated_key_is_accepted_once_the_keys_are_fetched_again(
    authorizer: ModuleType, issuer: LocalIssuer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert statement(authorize(authorizer, f"Bearer {issuer.mint('alice')}"))["Effect"] == "Allow"
    issuer.key = LocalIssuer().key  # the issuer signs with a new key, under a new kid, from now on
    # Past the refresh rate limit (30 s), well inside the cache's max age (10 min).
    jwks = authorizer.validator.jwks
    monkeypatch.setattr(jwks, "_clock", lambda: time.monotonic() + 60)
    answer = authorize(authorizer, f"Bearer {issuer.mint('alice')}")
    assert statement(answer)["Effect"] == "Allow"
    assert answer["principalId"] == f"{issuer.issuer}|alice"


@pytest.mark.parametrize(
    ("env", "missing"),
    [
        ({}, "A2A_JWT_ISSUER, A2A_JWT_AUDIENCE, A2A_JWT_JWKS_URL"),
        ({"A2A_JWT_ISSUER": "https://i/", "A2A_JWT_AUDIENCE": "a"}, "A2A_JWT_JWKS_URL"),
        (
            {"A2A_JWT_ISSUER": "https://i/", "A2A_JWT_JWKS_FILE": "/tmp/jwks.json"},
            "A2A_JWT_AUDIENCE, A2A_JWT_JWKS_URL",
        ),
    ],
)
def test_missing_configuration_fails_the_cold_start(load: Load, env: dict[str, str], missing: str) -> None:
    with pytest.raises(SettingsError, match=f"missing: {missing}$"):
        load(**env)


def test_a_shared_secret_algorithm_fails_the_cold_start(load: Load, issuer: LocalIssuer) -> None:
    env = issuer_env(issuer, "https://issuer.example/jwks")
    with pytest.raises(SettingsError, match="A2A_JWT_ALGORITHMS"):
        load(**{**env, "A2A_JWT_ALGORITHMS": '["HS256"]'})


# The API function behind the authorizer.


def through_the_gateway(token: str, answer: dict[str, Any], body: dict[str, Any] | None) -> dict[str, Any]:
    """The REST proxy event API Gateway sends the API function once the authorizer allowed the
    call: the context flattened into ``requestContext.authorizer``, every value a string."""
    event: dict[str, Any] = json.loads((EVENTS / "apigw_rest_message_send.json").read_text())
    event["headers"]["Authorization"] = f"Bearer {token}"
    event["multiValueHeaders"]["Authorization"] = [f"Bearer {token}"]
    context = {name: str(value) for name, value in answer["context"].items()}
    event["requestContext"]["authorizer"] = {
        "principalId": answer["principalId"],
        **context,
        "integrationLatency": 12,
    }
    if body is not None:
        event["body"] = json.dumps(body)
    return event


def call(api: ModuleType, event: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = api.handler(event, lambda_context("a2a-api"))
    return response["statusCode"], json.loads(response["body"])


def test_the_api_function_serves_the_caller_the_authorizer_allowed(
    authorizer: ModuleType,
    issuer: LocalIssuer,
    monkeypatch: pytest.MonkeyPatch,
    loop: asyncio.AbstractEventLoop,
) -> None:
    alice_token = issuer.mint("alice", scopes=["tasks.write"])
    alice = authorize(authorizer, f"Bearer {alice_token}")
    for name in JWT_ENV:  # the API function trusts the gateway; it validates no token itself
        monkeypatch.delenv(name, raising=False)
    api = load_function(monkeypatch, "api", {"A2A_AUTH_MODE": "jwt", "A2A_BACKEND": "memory"})

    status, answer = call(api, through_the_gateway(alice_token, alice, None))
    assert status == 200
    task_id = answer["result"]["id"]
    assert loop.run_until_complete(api.adapters.store.head(task_id)).owner == f"jwt:{issuer.issuer}|alice"

    get = {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task_id}}
    assert call(api, through_the_gateway(alice_token, alice, get))[1]["result"]["id"] == task_id
    bob_token = issuer.mint("bob", scopes=["tasks.write"])
    bob = authorize(authorizer, f"Bearer {bob_token}")
    status, answer = call(api, through_the_gateway(bob_token, bob, get))
    assert status == 200
    assert answer["error"] == {"code": -32001, "message": f"Task {task_id} not found"}

    # API Gateway replays a cached Allow for as long as its TTL: not past the token's exp.
    replayed = copy.deepcopy(alice)
    replayed["context"]["exp"] = int(time.time()) - 60
    status, answer = call(api, through_the_gateway(alice_token, replayed, get))
    assert status == 401  # invalid_token: the client gets a new one
    assert answer["error"]["code"] == -32600


# Logs.


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> Iterator[Callable[[], str]]:
    """Everything logged, the authorizer's Powertools logger (which does not propagate) included,
    with each record's extra fields, plus whatever reached stdout and stderr."""
    powertools = logging.getLogger(authorizer_logger.name)
    level = powertools.level
    powertools.addHandler(caplog.handler)
    powertools.setLevel(logging.DEBUG)
    caplog.set_level(logging.DEBUG)

    def text() -> str:
        records = "\n".join(f"{record.getMessage()} {record.__dict__!r}" for record in caplog.records)
        out, err = capsys.readouterr()
        return f"{records}\n{out}\n{err}"

    yield text
    powertools.removeHandler(caplog.handler)
    powertools.setLevel(level)


def test_the_token_never_reaches_the_logs(
    load: Load,
    issuer: LocalIssuer,
    jwks_url: str,
    monkeypatch: pytest.MonkeyPatch,
    logs: Callable[[], str],
) -> None:
    monkeypatch.setenv("POWERTOOLS_LOGGER_LOG_EVENT", "true")  # what someone debugging might set
    function = load(**issuer_env(issuer, jwks_url))
    valid = issuer.mint("alice")
    expired = issuer.mint("alice", ttl=-3600)
    forged = tampered(issuer)
    assert statement(authorize(function, f"Bearer {valid}"))["Effect"] == "Allow"
    assert statement(authorize(function, f"Bearer {expired}"))["Effect"] == "Deny"
    assert statement(authorize(function, f"Bearer {forged}"))["Effect"] == "Deny"
    assert statement(authorize(function, f"Bearer {valid}", "arn:nonsense"))["Effect"] == "Deny"
    with pytest.raises(Exception, match=r"^Unauthorized$"):
        authorize(function, f"Basic {valid}")

    unreachable = load(**issuer_env(issuer, f"http://127.0.0.1:{closed_port()}/jwks"))
    with pytest.raises(KeysUnavailableError):
        authorize(unreachable, f"Bearer {valid}")

    text = logs()
    for seen in (
        "allowed",
        "denied: the token is not valid",
        "bearer token refused",
        "JWKS) are unavailable",
    ):
        assert seen in text  # the capture saw each path
    secrets = [valid, expired, forged, *(token.rsplit(".", 1)[1] for token in (valid, expired, forged))]
    assert [secret for secret in secrets if secret in text] == []
