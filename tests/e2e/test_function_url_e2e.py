"""The app as a function URL deploys it: ``uvicorn a2a_core.functions.api.handler:app`` (the bundle's
run.sh, what the Lambda Web Adapter starts) with ``A2A_FRONT_DOOR=function_url``, on real sockets,
its tasks, keys and rate buckets in moto's DynamoDB (a real moto server), keys made with the
``a2a-serverless keys`` CLI, a worker fed by SQS as the event source mapping would feed it.

The clients talk to uvicorn directly, as the adapter does; the one header the adapter adds,
``x-amzn-request-context`` (the function URL's request context), is added by the tests that need
it (IAM callers), and forged by those that check it is not trusted for API keys.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_core.auth.testing import LocalIssuer
from a2a_core.aws.lambdas import worker_handler
from a2a_core.aws.resources import ResourceNames
from a2a_core.client import A2AClient
from a2a_core.client.errors import A2AClientHTTPError
from a2a_core.compose import build_server
from a2a_core.compose.aws import build_aws_adapters
from a2a_core.core.errors import TaskNotFoundError
from a2a_core.domain import Task, TaskState, TaskStatusUpdateEvent
from a2a_core.emulator.moto_server import EmulatedAws, create_resources
from a2a_core.emulator.pollers import SqsPoller
from a2a_core.examples.echo import agent as echo
from a2a_core.settings import Settings

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "tests" / "events"
_LISTENING = re.compile(r"Uvicorn running on (?P<url>http://\S+)")
STARTUP_TIMEOUT = 20.0


class UrlServer:
    """The bundle's run.sh command in a subprocess, on a free loopback port."""

    def __init__(self, env: dict[str, str]) -> None:
        command = [
            *(sys.executable, "-m", "uvicorn", "a2a_core.functions.api.handler:app"),
            *("--host", "127.0.0.1", "--port", "0", "--lifespan", "off", "--no-access-log"),
        ]
        self.lines: list[str] = []
        self._url: str | None = None
        self._ready = threading.Event()
        # Our interpreter and a fixed module: no untrusted input reaches the command.
        self.process = subprocess.Popen(  # noqa: S603
            command,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._reader = threading.Thread(target=self._drain, name="function-url-app", daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            match = _LISTENING.search(line)
            if match:
                self._url = match.group("url").rstrip("/") + "/"
                self._ready.set()
        self._ready.set()

    def url(self) -> str:
        self._ready.wait(STARTUP_TIMEOUT)
        if self._url is None:
            self.stop()
            pytest.fail("the function URL app did not start:\n" + "".join(self.lines), pytrace=False)
        return self._url

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self._reader.join(5)
        if self.process.stdout is not None:
            self.process.stdout.close()


@pytest.fixture(scope="module")
def names(local_aws: EmulatedAws) -> ResourceNames:
    return create_resources(local_aws.clients, prefix=None, region=local_aws.region)


def environment(aws: EmulatedAws, names: ResourceNames, **extra: str) -> dict[str, str]:
    """The API function's environment as the CDK stack sets it for a function URL, on moto."""
    return {
        "A2A_BACKEND": "aws",
        "A2A_AWS_REGION": aws.region,
        "A2A_AWS_ENDPOINT_URL": aws.endpoint_url,
        "A2A_TABLE_NAME": names.table,
        "A2A_QUEUE_URL": names.queue_url,
        "A2A_DLQ_URL": names.dlq_url,
        "A2A_BUCKET_NAME": names.bucket,
        "A2A_FRONT_DOOR": "function_url",
        # Set by the stack with the Web Adapter: only the adapter can have written this header.
        "A2A_TRUST_REQUEST_CONTEXT_HEADER": "true",
        **extra,
    }


@contextlib.contextmanager
def serve(env: dict[str, str]) -> Iterator[str]:
    server = UrlServer(env)
    try:
        yield server.url()
    finally:
        server.stop()


def keys_cli(aws: EmulatedAws, names: ResourceNames, *args: str) -> subprocess.CompletedProcess[str]:
    where = ("--table", names.table, "--region", aws.region, "--endpoint-url", aws.endpoint_url)
    # Our interpreter and CLI with test-chosen arguments.
    return subprocess.run(  # noqa: S603
        [sys.executable, "-m", "a2a_core.cli", "keys", *where, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def create_key(aws: EmulatedAws, names: ResourceNames, name: str, *limits: str) -> str:
    run = keys_cli(aws, names, "create", name, *limits)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


@pytest.fixture(scope="module")
def worker(local_aws: EmulatedAws, names: ResourceNames) -> Iterator[None]:
    """The worker Lambda's handler fed from the run queue, as its event source mapping feeds it."""
    settings = Settings(
        backend="aws",
        aws_region=local_aws.region,
        aws_endpoint_url=local_aws.endpoint_url,
        table_name=names.table,
        queue_url=names.queue_url,
        bucket_name=names.bucket,
        allow_unauthenticated=True,
    )
    adapters = build_aws_adapters(settings, local_aws.clients)
    service = build_server(settings, store=adapters.store, broker=adapters.broker)
    handler = worker_handler(service.worker(echo))
    poller = SqsPoller(
        local_aws.clients.sqs, names.queue_url, handler, function_name="worker", region=local_aws.region
    )
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            poller.poll_once(wait_seconds=1)

    thread = threading.Thread(target=run, name="worker-poller", daemon=True)
    thread.start()
    yield
    stop.set()
    thread.join(10)


@pytest.fixture(scope="module")
def api_keys(local_aws: EmulatedAws, names: ResourceNames) -> dict[str, str]:
    return {
        "alice": create_key(local_aws, names, "alice"),
        "bob": create_key(local_aws, names, "bob"),
        # One request per 100 s: nothing refills while the test runs, however slow the machine.
        "limited": create_key(local_aws, names, "limited", "--rate-limit", "0.01", "--burst-limit", "2"),
    }


@pytest.fixture(scope="module")
def api_key_url(
    local_aws: EmulatedAws, names: ResourceNames, api_keys: dict[str, str], worker: None
) -> Iterator[str]:
    # Lookups are not cached here, so a revocation shows at once (deployed: within 60 s).
    env = environment(local_aws, names, A2A_AUTH_MODE="api_key", A2A_API_KEY_CACHE_SECONDS="0")
    with serve(env) as url:
        yield url


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


SEND = rpc(
    "message/send",
    {"message": {"role": "user", "messageId": "m-1", "parts": [{"kind": "text", "text": "hi"}]}},
)


async def test_the_card_is_public_and_names_the_url_the_client_used(api_key_url: str) -> None:
    async with httpx.AsyncClient() as http:
        card = (await http.get(f"{api_key_url}.well-known/agent-card.json")).json()
    assert card["url"] == api_key_url
    assert card["securitySchemes"]["apiKey"]["in"] == "header"


async def test_missing_key_is_401_and_wrong_key_is_403(api_key_url: str, api_keys: dict[str, str]) -> None:
    async with httpx.AsyncClient() as http:
        missing = await http.post(api_key_url, json=SEND)
        forged_context = {"x-amzn-request-context": json.dumps({"identity": {"apiKeyId": "alice"}})}
        claimed = await http.post(api_key_url, json=SEND, headers=forged_context)
        wrong = await http.post(api_key_url, json=SEND, headers={"x-api-key": api_keys["alice"][:-1] + "x"})
    assert missing.status_code == claimed.status_code == 401
    assert missing.headers["www-authenticate"] == 'ApiKey realm="a2a", header="x-api-key"'
    assert missing.json()["error"]["code"] == -32600
    assert wrong.status_code == 403
    assert wrong.json()["error"]["message"] == "Access denied: the API key is not valid"


async def test_each_caller_sees_only_its_own_tasks(api_key_url: str, api_keys: dict[str, str]) -> None:
    async with (
        A2AClient(api_key_url, headers={"x-api-key": api_keys["alice"]}) as alice,
        A2AClient(api_key_url, headers={"x-api-key": api_keys["bob"]}) as bob,
    ):
        task = await alice.send_message("hello", blocking=True)
        assert isinstance(task, Task)
        assert task.status.state is TaskState.completed  # the worker ran it
        assert (await alice.get_task(task.id)).id == task.id
        with pytest.raises(TaskNotFoundError) as hidden:
            await bob.get_task(task.id)
        assert hidden.value.code == -32001


async def test_streams_reach_the_client_through_the_adapters_server(
    api_key_url: str, api_keys: dict[str, str]
) -> None:
    async with (
        A2AClient(api_key_url, headers={"x-api-key": api_keys["alice"]}) as alice,
        alice.stream_message("stream me") as stream,
    ):
        events = [event async for event in stream]
    assert events[0].kind == "task"
    last = events[-1]
    assert isinstance(last, TaskStatusUpdateEvent)
    assert (last.status.state, last.final) == (TaskState.completed, True)


async def test_over_the_rate_limit_is_429_with_retry_after(
    api_key_url: str, api_keys: dict[str, str]
) -> None:
    headers = {"x-api-key": api_keys["limited"]}
    async with httpx.AsyncClient() as http:
        allowed = [(await http.post(api_key_url, json=SEND, headers=headers)).status_code for _ in range(2)]
        limited = await http.post(api_key_url, json=SEND, headers=headers)
    assert allowed == [200, 200]
    assert limited.status_code == 429
    assert 90 <= int(limited.headers["retry-after"]) <= 100
    assert limited.json()["error"]["message"].startswith("Rate limit exceeded")
    async with A2AClient(api_key_url, headers=headers) as client:
        with pytest.raises(A2AClientHTTPError) as refused:
            await client.send_message("again", blocking=False)
    assert refused.value.status_code == 429


async def test_keys_are_listed_without_secrets_and_revoked_without_a_redeploy(
    local_aws: EmulatedAws, names: ResourceNames, api_key_url: str
) -> None:
    key = create_key(local_aws, names, "carol")
    second = create_key(local_aws, names, "carol")  # a rotation: both work, for the same caller
    async with httpx.AsyncClient() as http:
        for presented in (key, second):
            assert (
                await http.post(api_key_url, json=SEND, headers={"x-api-key": presented})
            ).status_code == 200

        listing = keys_cli(local_aws, names, "list", "--json")
        assert listing.returncode == 0, listing.stderr
        carols = [json.loads(line) for line in listing.stdout.splitlines() if '"carol"' in line]
        assert len(carols) == 2
        assert key not in listing.stdout
        assert {entry["state"] for entry in carols} == {"live"}

        key_id = key.split("_")[1]
        revoked = keys_cli(local_aws, names, "revoke", key_id)
        assert revoked.returncode == 0, revoked.stderr
        assert (await http.post(api_key_url, json=SEND, headers={"x-api-key": key})).status_code == 403
        assert (await http.post(api_key_url, json=SEND, headers={"x-api-key": second})).status_code == 200


@pytest.fixture(scope="module")
def issuer() -> LocalIssuer:
    return LocalIssuer()


@pytest.fixture(scope="module")
def jwt_url(local_aws: EmulatedAws, names: ResourceNames, issuer: LocalIssuer) -> Iterator[str]:
    with issuer.serve_jwks() as jwks_url:
        env = environment(
            local_aws,
            names,
            A2A_AUTH_MODE="jwt",
            A2A_JWT_ISSUER=issuer.issuer,
            A2A_JWT_AUDIENCE=issuer.audience,
            A2A_JWT_JWKS_URL=jwks_url,  # fetched over the network on first use, then cached
            A2A_JWT_ALGORITHMS='["ES256"]',
        )
        with serve(env) as url:
            yield url


async def test_jwts_missing_401_not_valid_401_invalid_token_and_isolated_per_subject(
    jwt_url: str, issuer: LocalIssuer
) -> None:
    async with httpx.AsyncClient() as http:
        missing = await http.post(jwt_url, json=SEND)
        foreign = await http.post(
            jwt_url, json=SEND, headers={"authorization": f"Bearer {LocalIssuer().mint('alice')}"}
        )
        expired = await http.post(
            jwt_url, json=SEND, headers={"authorization": f"Bearer {issuer.mint('alice', ttl=-120)}"}
        )
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == 'Bearer realm="a2a"'
    assert foreign.status_code == expired.status_code == 401  # RFC 6750: get a new token
    assert 'error="invalid_token"' in foreign.headers["www-authenticate"]
    assert 'error="invalid_token"' in expired.headers["www-authenticate"]

    alice_token, bob_token = issuer.mint("alice"), issuer.mint("bob")
    async with (
        A2AClient(jwt_url, headers={"authorization": f"Bearer {alice_token}"}) as alice,
        A2AClient(jwt_url, headers={"authorization": f"Bearer {bob_token}"}) as bob,
    ):
        task = await alice.send_message("hello", blocking=False)
        assert isinstance(task, Task)
        assert (await alice.get_task(task.id)).id == task.id
        with pytest.raises(TaskNotFoundError):
            await bob.get_task(task.id)


@pytest.fixture(scope="module")
def iam_url(local_aws: EmulatedAws, names: ResourceNames) -> Iterator[str]:
    with serve(environment(local_aws, names, A2A_AUTH_MODE="iam")) as url:
        yield url


def adapter_headers(event_file: str, **changes: str) -> dict[str, str]:
    """The context header the Lambda Web Adapter adds for a function URL event."""
    context = json.loads((EVENTS / event_file).read_text())["requestContext"]
    context["authorizer"]["iam"].update(changes)
    return {"x-amzn-request-context": json.dumps(context)}


async def test_iam_callers_are_the_signer_the_adapter_forwards(iam_url: str) -> None:
    alice = adapter_headers("lambda_url_iam_message_send.json")
    bob = adapter_headers(
        "lambda_url_iam_message_send.json", userArn="arn:aws:sts::123456789012:assumed-role/agent-callers/bob"
    )
    async with httpx.AsyncClient() as http:
        unsigned = await http.post(iam_url, json=SEND)
        sent = await http.post(iam_url, json=SEND, headers=alice)
        task_id = sent.json()["result"]["id"]
        get = rpc("tasks/get", {"id": task_id})
        mine = (await http.post(iam_url, json=get, headers=alice)).json()
        theirs = (await http.post(iam_url, json=get, headers=bob)).json()
    assert unsigned.status_code == 401
    assert unsigned.headers["www-authenticate"] == "AWS4-HMAC-SHA256"
    assert mine["result"]["id"] == task_id
    assert theirs["error"]["code"] == -32001
