"""The API Lambda handler behind a function URL (``A2A_FRONT_DOOR=function_url``), fed the
payload 2.0 events a function URL sends (tests/events/lambda_url_*), with the key store and rate
buckets in moto's DynamoDB. Nothing in front checked the caller: the app does, and ignores any
request context that claims otherwise."""

from __future__ import annotations

import asyncio
import copy
import json
import time
from types import ModuleType
from typing import Any

import pytest

from a2a_core.auth.key_store import NewKey, generate_key
from a2a_core.auth.testing import LocalIssuer
from a2a_core.aws.dynamodb.api_keys import DynamoDBApiKeyStore
from a2a_core.aws.resources import ResourceNames
from a2a_core.emulator.moto_server import EmulatedAws
from auth_support import rpc, send
from aws_events import Deployment, api_context, api_event, load_function

ALICE_IAM = "iam:arn:aws:sts::123456789012:assumed-role/agent-callers/alice"


@pytest.fixture
def deployment(local_aws: EmulatedAws, aws_resources: ResourceNames) -> Deployment:
    return Deployment(local_aws, aws_resources)


INVALID_TOKEN = 'Bearer realm="a2a", error="invalid_token", error_description="The access token is not valid"'


def keys(deployment: Deployment) -> DynamoDBApiKeyStore:
    return DynamoDBApiKeyStore(deployment.aws.clients.dynamodb, deployment.names.table)


def add_key(deployment: Deployment, name: str, **limits: float) -> NewKey:
    """A key stored as `a2a-serverless keys create` stores it (on the handler's event loop,
    which Mangum runs each invocation on)."""
    new = generate_key(name, now=time.time(), **limits)  # type: ignore[arg-type]
    asyncio.get_event_loop().run_until_complete(keys(deployment).add(new.stored))
    return new


def revoke(deployment: Deployment, key: NewKey) -> None:
    asyncio.get_event_loop().run_until_complete(keys(deployment).revoke(key.stored.key_id, at=time.time()))


def api_function(monkeypatch: pytest.MonkeyPatch, deployment: Deployment, **env: str) -> ModuleType:
    return load_function(
        monkeypatch,
        "api",
        deployment.env(A2A_FRONT_DOOR="function_url", A2A_API_KEY_CACHE_SECONDS="0", **env),
    )


def url_event(body: dict[str, Any], **headers: str | None) -> dict[str, Any]:
    event = api_event("lambda_url_message_send.json", body)
    for name, value in headers.items():
        name = name.replace("_", "-")
        if value is None:
            event["headers"].pop(name, None)
        else:
            event["headers"][name] = value
    return event


def call(api: ModuleType, event: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any]]:
    response = api.handler(event, api_context())
    return response["statusCode"], response.get("headers", {}), json.loads(response["body"])


def owner(deployment: Deployment, task_id: str) -> str:
    return str(asyncio.get_event_loop().run_until_complete(deployment.ledger.head(task_id)).owner)


def test_an_api_key_from_the_table_owns_its_tasks_and_others_cannot_see_them(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment, loop: asyncio.AbstractEventLoop
) -> None:
    alice, bob = add_key(deployment, "alice"), add_key(deployment, "bob")
    api = api_function(monkeypatch, deployment, A2A_AUTH_MODE="api_key")

    status, _, answer = call(api, url_event(send("hello"), x_api_key=alice.key))
    assert status == 200
    task_id = answer["result"]["id"]
    assert owner(deployment, task_id) == "api_key:alice"

    get = rpc("tasks/get", {"id": task_id}, 2)
    assert call(api, url_event(get, x_api_key=alice.key))[2]["result"]["id"] == task_id
    _, _, answer = call(api, url_event(get, x_api_key=bob.key))
    assert answer["error"] == {"code": -32001, "message": f"Task {task_id} not found"}


def test_missing_is_401_wrong_or_revoked_is_403_and_nothing_is_stored(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment, loop: asyncio.AbstractEventLoop
) -> None:
    alice = add_key(deployment, "alice")
    api = api_function(monkeypatch, deployment, A2A_AUTH_MODE="api_key")

    status, headers, answer = call(api, url_event(send(), x_api_key=None))
    assert status == 401
    assert headers["www-authenticate"] == 'ApiKey realm="a2a", header="x-api-key"'
    assert answer["error"]["code"] == -32600

    forged = alice.key[:-1] + ("A" if alice.key[-1] != "A" else "B")
    gone = add_key(deployment, "gone")
    revoke(deployment, gone)
    for wrong in ("not-a-key", forged, gone.key):
        status, _, answer = call(api, url_event(send(), x_api_key=wrong))
        assert (status, answer["error"]["message"]) == (403, "Access denied: the API key is not valid")

    assert not deployment.sqs.receive_message(QueueUrl=deployment.names.queue_url).get("Messages")


def test_a_revoked_key_is_refused(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment, loop: asyncio.AbstractEventLoop
) -> None:
    alice = add_key(deployment, "alice")
    api = api_function(monkeypatch, deployment, A2A_AUTH_MODE="api_key")
    assert call(api, url_event(send(), x_api_key=alice.key))[0] == 200
    revoke(deployment, alice)
    assert call(api, url_event(send(), x_api_key=alice.key))[0] == 403  # cache off: at once


def test_a_request_context_claiming_a_gateway_checked_the_key_is_ignored(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment, loop: asyncio.AbstractEventLoop
) -> None:
    api = api_function(
        monkeypatch, deployment, A2A_AUTH_MODE="api_key", A2A_TRUST_REQUEST_CONTEXT_HEADER="true"
    )
    event = url_event(send(), x_api_key=None)
    event["requestContext"]["identity"] = {"apiKeyId": "alice"}  # what a REST API would put there
    event["headers"]["x-amzn-request-context"] = json.dumps({"identity": {"apiKeyId": "alice"}})
    assert call(api, event)[0] == 401


def test_over_the_keys_limit_is_429_with_retry_after(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment, loop: asyncio.AbstractEventLoop
) -> None:
    # One request per 100 s: the bucket cannot refill while the test runs, however slow the machine.
    limited = add_key(deployment, "limited", rate_limit=0.01, burst_limit=2)
    api = api_function(monkeypatch, deployment, A2A_AUTH_MODE="api_key")
    assert [call(api, url_event(send(), x_api_key=limited.key))[0] for _ in range(2)] == [200, 200]

    status, headers, answer = call(api, url_event(send(), x_api_key=limited.key))
    assert status == 429
    assert 90 <= int(headers["retry-after"]) <= 100
    assert answer["error"]["code"] == -32600
    assert answer["error"]["message"].startswith("Rate limit exceeded")


def test_jwts_are_validated_by_the_app(
    monkeypatch: pytest.MonkeyPatch,
    deployment: Deployment,
    loop: asyncio.AbstractEventLoop,
    tmp_path: Any,
) -> None:
    issuer = LocalIssuer()
    settings = issuer.settings(tmp_path)
    env = {
        "A2A_AUTH_MODE": "jwt",
        "A2A_JWT_ISSUER": settings["jwt_issuer"],
        "A2A_JWT_AUDIENCE": settings["jwt_audience"],
        "A2A_JWT_JWKS_FILE": settings["jwt_jwks_file"],
        "A2A_JWT_ALGORITHMS": json.dumps(settings["jwt_algorithms"]),
    }
    api = api_function(monkeypatch, deployment, **env)
    status, _, answer = call(
        api, url_event(send(), x_api_key=None, authorization=f"Bearer {issuer.mint('alice')}")
    )
    assert status == 200
    assert owner(deployment, answer["result"]["id"]) == f"jwt:{issuer.issuer}|alice"

    # A token that is not valid (another issuer's key) is 401 invalid_token (RFC 6750), in the
    # shape of each binding: a JSON-RPC error, a google.rpc.Status.
    wrong = f"Bearer {LocalIssuer().mint('alice')}"
    status, headers, answer = call(api, url_event(send(), x_api_key=None, authorization=wrong))
    assert (status, answer["id"], answer["error"]["code"]) == (401, None, -32600)
    assert headers["www-authenticate"] == INVALID_TOKEN
    rest = api_event("lambda_url_v1_message_send.json")
    rest["headers"]["authorization"] = wrong
    status, headers, answer = call(api, rest)
    assert (status, answer["error"]["code"], answer["error"]["status"]) == (401, 401, "UNAUTHENTICATED")
    assert headers["www-authenticate"] == INVALID_TOKEN
    forged = url_event(send(), x_api_key=None)
    forged["requestContext"]["authorizer"] = {"jwt": {"claims": {"sub": "alice", "iss": issuer.issuer}}}
    status, headers, _ = call(api, forged)
    assert status == 401
    assert headers["www-authenticate"] == 'Bearer realm="a2a"'


def test_iam_callers_are_the_urls_sigv4_signer(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment, loop: asyncio.AbstractEventLoop
) -> None:
    api = api_function(monkeypatch, deployment, A2A_AUTH_MODE="iam")
    event = api_event("lambda_url_iam_message_send.json")
    status, _, answer = call(api, event)
    assert status == 200
    assert owner(deployment, answer["result"]["id"]) == ALICE_IAM

    unsigned = copy.deepcopy(event)
    del unsigned["requestContext"]["authorizer"]
    assert call(api, unsigned)[0] == 401
