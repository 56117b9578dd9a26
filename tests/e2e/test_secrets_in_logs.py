"""No secret in any log line, at any level (issue 22 item 9).

The flows that carry secrets run with every logger at DEBUG and Powertools' event logging on
(``POWERTOOLS_LOGGER_LOG_EVENT=true``): API keys, bearer JWTs (good, tampered, expired), push
tokens and webhook credentials, in headers, in bodies, in push configs stored and read back, and
in query strings (where a client may put a key). Then every line captured is searched for each
secret used:

- `a2a-serverless dev` on the local backend, as a developer runs it with ``--log-level debug``:
  its whole output (our loggers, botocore's debug output of every emulated AWS call, uvicorn's
  access log, the emulator's pollers, the push function on the table's stream);
- the Lambda handlers on moto (the API behind the REST API with an API key and with a Cognito
  JWT, behind a function URL with a stored key and with JWTs it checks itself; the worker; the
  push function fed the table's stream, config items and all): every record of every logger,
  and what Powertools wrote on stdout.

Each part also checks that the capture saw the lines that would have carried a secret (the
request bodies botocore logs, the access log lines with their query strings, the logged events),
so the search cannot pass for seeing nothing.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from a2a_core.auth.key_store import generate_key
from a2a_core.auth.testing import LocalIssuer
from a2a_core.aws.dynamodb.api_keys import DynamoDBApiKeyStore
from a2a_core.aws.resources import ResourceNames
from a2a_core.compose.aws import build_kms_client
from a2a_core.emulator.moto_server import EmulatedAws
from a2a_core.emulator.stream_poller import stream_event
from a2a_core.push.urls import UrlPolicy
from aws_events import (
    Deployment,
    api_context,
    api_event,
    lambda_context,
    load_function,
    receive,
    settle,
    sqs_event,
)
from push_receiver import Receiver, closed_port, receiving

API_KEY = "dev-api-key-5f0e8c1b2a7d"
WRONG_KEY = "wrong-api-key-9a8b7c6d"
PUSH_TOKEN = "push-token-4e3d2c1b0a99"
PUSH_CREDENTIALS = "push-credentials-8f7e6d5c"
PUSH_TOKEN_V1 = "push-token-v1-1a2b3c4d5e"
PUSH_CREDENTIALS_V1 = "push-credentials-v1-6f7a8b"
EVENT_LOGGING = {"POWERTOOLS_LOGGER_LOG_EVENT": "true", "POWERTOOLS_LOG_LEVEL": "DEBUG"}


def leaked(text: str, secrets: list[str]) -> list[str]:
    return [secret for secret in secrets if secret in text]


def push_config(receiver: Receiver, token: str, credentials: str) -> dict[str, Any]:
    return {
        "url": receiver.url(),
        "token": token,
        "authentication": {"schemes": ["Bearer"], "credentials": credentials},
    }


def notification_jwts(receiver: Receiver) -> list[str]:
    """The agent's signatures on what the receiver got (bearer JWTs themselves)."""
    found = []
    for request in receiver.requests:
        headers = {name.lower(): value for name, value in request.headers.items()}
        for name in ("x-a2a-signature", "authorization"):
            value = headers.get(name, "")
            if value.count(".") == 2:
                found.append(value.removeprefix("Bearer "))
    return found


# --- a2a-serverless dev, local backend ---------------------------------------------------------


class Dev:
    """`a2a-serverless dev --log-level debug` on the local backend, its output kept whole."""

    def __init__(self, log: Path, *args: str, **env: str) -> None:
        self.port = closed_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log = log
        command = [sys.executable, "-m", "a2a_core.cli", "dev", "--port", str(self.port), "--fresh"]
        command += ["--backend", "local", "--log-level", "debug", *args]
        variables = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "A2A_PUBLIC_URL": self.url,
            **EVENT_LOGGING,
            **env,
        }
        with log.open("w") as output:
            # A fixed argv of our own interpreter and module.
            self.process = subprocess.Popen(  # noqa: S603
                command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, env=variables
            )
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"dev exited ({self.process.returncode}):\n{self.log.read_text()}")
            try:
                if httpx.get(f"{self.url}healthz", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.1)
        self.stop()
        pytest.fail(f"dev did not start:\n{self.log.read_text()}")

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        return self.log.read_text()


def rpc(url: str, method: str, params: Any, headers: dict[str, str], *, path: str = "") -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return httpx.post(url + path, json=body, headers=headers, timeout=30)


def message(text: str = "hi") -> dict[str, Any]:
    return {"role": "user", "messageId": str(uuid.uuid4()), "parts": [{"kind": "text", "text": text}]}


def test_dev_with_api_keys_and_push_logs_no_secret(tmp_path: Path) -> None:
    env = {"A2A_API_KEYS": json.dumps({"alice": API_KEY}), "A2A_PUSH_ENABLED": "true"}
    with receiving() as receiver:
        dev = Dev(tmp_path / "dev.log", "--auth", "api_key", **env)
        try:
            alice = {"x-api-key": API_KEY}
            config = push_config(receiver, PUSH_TOKEN, PUSH_CREDENTIALS)
            params = {
                "message": message(),
                "configuration": {"blocking": False, "pushNotificationConfig": config},
            }
            task_id = rpc(dev.url, "message/send", params, alice).json()["result"]["id"]
            receiver.wait_for(1)  # the echo agent finished: the push function notified
            listed = rpc(dev.url, "tasks/pushNotificationConfig/list", {"id": task_id}, alice)
            assert PUSH_TOKEN in listed.text  # the owner reads its configs back; logs never do
            v1 = {**push_config(receiver, PUSH_TOKEN_V1, ""), "authentication": {"scheme": "Bearer"}}
            v1["authentication"]["credentials"] = PUSH_CREDENTIALS_V1
            created = httpx.post(
                f"{dev.url}tasks/{task_id}/pushNotificationConfigs",
                json={"taskId": task_id, **v1},
                headers={**alice, "A2A-Version": "1.0"},
            )
            assert created.status_code == 200, created.text
            # Keys where clients should not put them: the query string (and the access log).
            assert httpx.get(f"{dev.url}tasks?api_key={API_KEY}&A2A-Version=1.0").status_code == 401
            assert httpx.get(f"{dev.url}tasks?token={PUSH_TOKEN}", headers=alice).status_code == 400
            assert rpc(dev.url, "tasks/get", {"id": task_id}, {"x-api-key": WRONG_KEY}).status_code == 403
        finally:
            output = dev.stop()
    jwts = notification_jwts(receiver)
    assert jwts
    secrets = [API_KEY, WRONG_KEY, PUSH_TOKEN, PUSH_CREDENTIALS, PUSH_TOKEN_V1, PUSH_CREDENTIALS_V1, *jwts]
    assert leaked(output, secrets) == []
    # The capture saw what would have carried them: DynamoDB request and response bodies (the
    # configs), the access log's query strings, the push function's logged stream events.
    assert "Making request for OperationModel(name=PutItem)" in output
    assert "Response body:" in output
    assert "GET /tasks?api_key=[REDACTED]&A2A-Version=1.0 HTTP/1.1" in output
    assert '"eventSource": "aws:dynamodb"' in output or '"eventSource":"aws:dynamodb"' in output


def test_dev_with_jwts_logs_no_token(tmp_path: Path) -> None:
    issuer = LocalIssuer()
    settings = issuer.settings(tmp_path / "issuer")
    env = {
        "A2A_JWT_ISSUER": settings["jwt_issuer"],
        "A2A_JWT_AUDIENCE": settings["jwt_audience"],
        "A2A_JWT_JWKS_FILE": settings["jwt_jwks_file"],
    }
    token, expired = issuer.mint("alice"), issuer.mint("alice", ttl=-3600)
    tampered = token[:-8] + "AAAAAAAA"
    dev = Dev(tmp_path / "dev.log", "--auth", "jwt", **env)
    try:
        sent = rpc(dev.url, "message/send", {"message": message()}, {"authorization": f"Bearer {token}"})
        assert "result" in sent.json()
        for bad in (tampered, expired):
            assert (
                rpc(dev.url, "tasks/get", {"id": "x"}, {"authorization": f"Bearer {bad}"}).status_code == 401
            )
        assert httpx.get(f"{dev.url}tasks?access_token={token}&A2A-Version=1.0").status_code == 401
    finally:
        output = dev.stop()
    assert leaked(output, [token, tampered, expired, token.rsplit(".", 1)[1]]) == []
    assert "GET /tasks?access_token=[REDACTED]&A2A-Version=1.0 HTTP/1.1" in output
    assert "bearer token refused" in output


# --- the Lambda handlers, on moto --------------------------------------------------------------


class Capture(logging.Handler):
    """Every record of every logger: message, arguments, extra fields, exception text."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.text = io.StringIO()

    def emit(self, record: logging.LogRecord) -> None:
        self.text.write(f"{record.getMessage()} {record.__dict__!r} {self.format(record)}\n")


@pytest.fixture
def everything(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[Capture]:
    """Every logger at DEBUG, captured at the root and at each logger that does not propagate
    (Powertools' write to stdout: what they print is captured too, by ``capsys``)."""
    for name, value in EVENT_LOGGING.items():
        monkeypatch.setenv(name, value)
    factory = logging.getLogRecordFactory()
    capture = Capture()
    loggers = [logging.getLogger()] + [
        item for item in logging.root.manager.loggerDict.values() if isinstance(item, logging.Logger)
    ]
    saved = [(logger, logger.level) for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.DEBUG)
        if logger is logging.root or not logger.propagate:
            logger.addHandler(capture)
    yield capture
    for logger in loggers:
        logger.removeHandler(capture)
    for logger, level in saved:
        logger.setLevel(level)
    logging.setLogRecordFactory(factory)  # the handlers installed redaction for this process


def lambda_function(monkeypatch: pytest.MonkeyPatch, name: str, env: dict[str, str]) -> ModuleType:
    """The function loaded cold, and every logger its import made at DEBUG too."""
    module = load_function(monkeypatch, name, env)
    for item in logging.root.manager.loggerDict.values():
        if isinstance(item, logging.Logger):
            item.setLevel(logging.DEBUG)
    return module


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """The Lambda process's event loop: Mangum runs each invocation on the thread's loop."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield loop
    asyncio.set_event_loop(None)
    loop.close()


def test_the_lambda_handlers_log_no_secret(
    everything: Capture,
    loop: asyncio.AbstractEventLoop,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    local_aws: EmulatedAws,
    aws_resources: ResourceNames,
    tmp_path: Path,
) -> None:
    deployment = Deployment(local_aws, aws_resources)
    kms = build_kms_client(deployment.settings)
    key_id = kms.create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["KeyId"]
    push = {
        "A2A_PUSH_ENABLED": "true",
        "A2A_PUSH_SIGNING_KEY_ID": key_id,
        "A2A_PUSH_DLQ_URL": aws_resources.push_dlq_url,
        "A2A_PUBLIC_URL": "https://agent.example.com/",
    }
    issuer = LocalIssuer()
    jwt = issuer.settings(tmp_path)
    with receiving() as receiver:
        # The API behind the REST API, API key mode: a send carrying a push config, its list.
        api = lambda_function(
            monkeypatch,
            "api",
            deployment.env(A2A_AUTH_MODE="api_key", A2A_PUSH_ALLOW_INSECURE_LOOPBACK="true", **push),
        )
        config = push_config(receiver, PUSH_TOKEN, PUSH_CREDENTIALS)
        event = api_event("apigw_rest_api_key_message_send.json")
        gateway_key = event["requestContext"]["identity"]["apiKey"]
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send"}
        body["params"] = {
            "message": message(),
            "configuration": {"blocking": False, "pushNotificationConfig": config},
        }
        event["body"] = json.dumps(body)
        sent = json.loads(api.handler(event, api_context())["body"])
        task_id = sent["result"]["id"]
        event["body"] = json.dumps(
            {**body, "method": "tasks/pushNotificationConfig/list", "params": {"id": task_id}}
        )
        assert PUSH_TOKEN in api.handler(event, api_context())["body"]
        # Behind the REST API with Cognito: the bearer JWT rides in the event's headers.
        cognito = api_event("apigw_rest_cognito_message_send.json")
        gateway_jwt = cognito["headers"]["Authorization"].split()[1]
        jwt_api = lambda_function(monkeypatch, "api", deployment.env(A2A_AUTH_MODE="jwt"))
        assert jwt_api.handler(cognito, api_context())["statusCode"] == 200
        # Behind a function URL: a stored API key, and JWTs the app checks itself.
        new = generate_key("carol", now=time.time())
        loop.run_until_complete(
            DynamoDBApiKeyStore(local_aws.clients.dynamodb, aws_resources.table).add(new.stored)
        )
        url_api = lambda_function(
            monkeypatch, "api", deployment.env(A2A_FRONT_DOOR="function_url", A2A_AUTH_MODE="api_key")
        )
        unblocked = {"message": message(), "configuration": {"blocking": False}}
        url_event = api_event("lambda_url_message_send.json", {**body, "params": unblocked})
        url_event["headers"]["x-api-key"] = new.key
        assert url_api.handler(url_event, api_context())["statusCode"] == 200
        url_event["headers"]["x-api-key"] = WRONG_KEY
        assert url_api.handler(url_event, api_context())["statusCode"] in (401, 403)
        jwt_env = {
            "A2A_AUTH_MODE": "jwt",
            "A2A_JWT_ISSUER": jwt["jwt_issuer"],
            "A2A_JWT_AUDIENCE": jwt["jwt_audience"],
            "A2A_JWT_JWKS_FILE": jwt["jwt_jwks_file"],
        }
        jwt_url_api = lambda_function(
            monkeypatch, "api", deployment.env(A2A_FRONT_DOOR="function_url", **jwt_env)
        )
        token, tampered = issuer.mint("alice"), issuer.mint("alice")[:-8] + "AAAAAAAA"
        del url_event["headers"]["x-api-key"]
        for bearer, status in ((token, 200), (tampered, 401)):
            url_event["headers"]["authorization"] = f"Bearer {bearer}"
            assert jwt_url_api.handler(url_event, api_context())["statusCode"] == status

        # The worker runs the turns; the push function gets the table's stream, unfiltered.
        worker = lambda_function(monkeypatch, "worker", deployment.env())
        while messages := receive(deployment.sqs, aws_resources.queue_url):
            answer = worker.handler(
                sqs_event(deployment.sqs, aws_resources.queue_url, messages), lambda_context()
            )
            settle(deployment.sqs, aws_resources.queue_url, messages, dict(answer))
        push_function = lambda_function(
            monkeypatch, "push", deployment.env(A2A_PUSH_ALLOW_INSECURE_LOOPBACK="false", **push)
        )
        arn, records = stream_records(local_aws, aws_resources)
        assert any("PUSH#" in str(record["dynamodb"]) for record in records)  # configs too
        # The function refuses dev's loopback allowance; the receiver listens on loopback.
        push_function.notifier.sender.policy = UrlPolicy(allow_insecure_loopback=True)
        event = stream_event(records, stream_arn=arn, region=local_aws.region)
        assert push_function.handler(event, lambda_context("a2a-push")) == {"batchItemFailures": []}
        receiver.wait_for(1)
    printed = capsys.readouterr()
    text = everything.text.getvalue() + printed.out + printed.err
    secrets = [PUSH_TOKEN, PUSH_CREDENTIALS, gateway_key, gateway_jwt, new.key, WRONG_KEY, token, tampered]
    secrets += notification_jwts(receiver)
    assert leaked(text, secrets) == []
    assert "Making request for OperationModel(name=PutItem)" in text  # botocore's debug output
    assert '"Records"' in text or "'Records'" in text  # the logged stream and SQS events


def stream_records(aws: EmulatedAws, names: ResourceNames) -> tuple[str, list[Any]]:
    """The table's stream ARN, and every record on it so far (commits and configs alike)."""
    import boto3

    arn = str(aws.clients.dynamodb.describe_table(TableName=names.table)["Table"]["LatestStreamArn"])
    streams = boto3.session.Session(region_name=aws.region).client(
        "dynamodbstreams", endpoint_url=aws.endpoint_url
    )
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
    iterator = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
    )
    return arn, list(streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"])
