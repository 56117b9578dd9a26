"""Secrets never reach the logs: API keys, bearer JWTs, SigV4 headers, push tokens and webhook
credentials travel through every path (accepted and refused calls, the Lambda handlers behind API
Gateway, the worker Lambda, push delivery that succeeds and fails) while every logger, the
Powertools ones included, records at DEBUG; then the log text is searched for each secret."""

from __future__ import annotations

import asyncio
import importlib.util
import io
import json
import logging
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest

from a2a_core.auth.testing import LocalIssuer
from a2a_core.aws.lambdas import worker_handler
from a2a_core.emulator import lambda_shapes
from a2a_core.emulator.lambda_shapes import LocalLambdaContext
from a2a_core.examples.echo import agent as echo
from a2a_core.push.dead_letters import InMemoryPushDeadLetters
from a2a_core.push.notifier import CommitRef, PushNotifier
from a2a_core.push.signing import LocalSigner
from a2a_core.push.urls import UrlPolicy
from a2a_core.push.webhooks import RetryPolicy, WebhookSender
from auth_support import API_KEYS, KEYS, client_for, message, rpc, send
from aws_events import EVENTS, ROOT
from push_receiver import closed_port, receiving
from support import Stack

WRONG_KEY = "leaked-key-9d8c7b6a5f4e3d2c"
PUSH_TOKEN = "push-token-3c2b1a0f9e8d7c6b"
PUSH_CREDENTIALS = "push-credentials-7e6d5c4b3a29"
T = TypeVar("T")


class Capture(logging.Handler):
    """Everything a log record carries: message, arguments, extra fields, exception text."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.text = io.StringIO()

    def emit(self, record: logging.LogRecord) -> None:
        self.text.write(f"{record.getMessage()} {record.__dict__!r} {self.format(record)}\n")


@pytest.fixture
def logs() -> Iterator[Capture]:
    """Every logger at DEBUG, captured at the root and at each logger that does not propagate."""
    capture = Capture()
    loggers = [logging.getLogger()] + [
        item for item in logging.root.manager.loggerDict.values() if isinstance(item, logging.Logger)
    ]
    saved = [(logger, logger.level) for logger in loggers]
    hooked = [logger for logger in loggers if logger is logging.root or not logger.propagate]
    for logger in loggers:
        logger.setLevel(logging.DEBUG)
    for logger in hooked:
        logger.addHandler(capture)
    yield capture
    for logger in hooked:
        logger.removeHandler(capture)
    for logger, level in saved:
        logger.setLevel(level)


@pytest.fixture
def run(loop: asyncio.AbstractEventLoop) -> Callable[[Coroutine[Any, Any, T]], T]:
    """Runs a coroutine on the test's event loop, which Mangum also runs the invocations on."""
    return loop.run_until_complete


def _event(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((EVENTS / name).read_text())
    return loaded


def _gateway_secrets() -> list[str]:
    api_key = _event("apigw_rest_api_key_message_send.json")["requestContext"]["identity"]["apiKey"]
    bearer = _event("apigw_rest_cognito_message_send.json")["headers"]["Authorization"].split()[1]
    sigv4 = _event("apigw_rest_iam_message_send.json")["headers"]
    signature = sigv4["Authorization"].rsplit("Signature=", 1)[1]
    return [api_key, bearer, signature, sigv4["X-Amz-Security-Token"]]


def _through_the_lambda_handler(monkeypatch: pytest.MonkeyPatch) -> None:
    context = SimpleNamespace(
        function_name="a2a-api",
        aws_request_id="c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
        invoked_function_arn="arn:aws:lambda:us-east-1:123456789012:function:a2a-api",
        get_remaining_time_in_millis=lambda: 29_000,
    )
    calls = {"api_key": "apigw_rest_api_key_message_send.json", "jwt": "apigw_rest_cognito_message_send.json"}
    calls["iam"] = "apigw_rest_iam_message_send.json"
    for mode, name in calls.items():
        monkeypatch.setenv("A2A_AUTH_MODE", mode)
        spec = importlib.util.spec_from_file_location(
            "api_handler", ROOT / "src" / "a2a_core" / "functions" / "api" / "handler.py"
        )
        assert spec is not None
        assert spec.loader is not None
        api = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(api)
        assert api.handler(_event(name), context)["statusCode"] == 200
        refused = _event(name)
        refused["requestContext"] = {"identity": {}}
        assert api.handler(refused, context)["statusCode"] == 401


def test_no_secret_reaches_the_logs(
    logs: Capture,
    run: Callable[[Coroutine[Any, Any, Any]], Any],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    stack = Stack(
        echo, auth_mode="api_key", api_keys=API_KEYS, push_enabled=True, push_allow_insecure_loopback=True
    )
    issuer = LocalIssuer()
    jwt_stack = Stack(echo, **issuer.settings(tmp_path))
    token = issuer.mint("alice")
    tampered = token[:-8] + "AAAAAAAA"
    expired = issuer.mint("alice", ttl=-3600)
    secrets = [KEYS["alice"], WRONG_KEY, token, token.rsplit(".", 1)[1], tampered, expired]
    secrets += [PUSH_TOKEN, PUSH_CREDENTIALS, *_gateway_secrets()]

    with receiving() as receiver:
        push = {
            "url": receiver.url(),
            "token": PUSH_TOKEN,
            "authentication": {"schemes": ["Bearer"], "credentials": PUSH_CREDENTIALS},
        }
        failing = {**push, "url": f"http://127.0.0.1:{closed_port()}/hook", "id": "down"}

        async def api_calls() -> str:
            async with client_for(stack.service, **{"x-api-key": KEYS["alice"]}) as alice:
                configuration = {"blocking": False, "pushNotificationConfig": push}
                request = rpc("message/send", {"message": message(), "configuration": configuration})
                task_id: str = (await alice.post("/", json=request)).json()["result"]["id"]
                params = {"taskId": task_id, "pushNotificationConfig": failing}
                assert (
                    "result"
                    in (await alice.post("/", json=rpc("tasks/pushNotificationConfig/set", params))).json()
                )
                listed = await alice.post("/", json=rpc("tasks/pushNotificationConfig/list", {"id": task_id}))
                assert PUSH_TOKEN in listed.text  # the owner reads its configs back; logs never do
            async with client_for(stack.service, **{"x-api-key": WRONG_KEY}) as mallory:
                assert (await mallory.post("/", json=send())).status_code == 403
            for bearer, status in ((token, 200), (tampered, 401), (expired, 401)):
                async with client_for(jwt_stack.service, authorization=f"Bearer {bearer}") as client:
                    assert (await client.post("/", json=send())).status_code == status
            return task_id

        task_id = run(api_calls())
        _through_the_lambda_handler(monkeypatch)
        # Last: outside Lambda, Powertools runs the batch with asyncio.run, which unsets the loop.
        _through_the_worker_lambda(stack, run)
        _deliver_push(stack, task_id, run)
        receiver.wait_for(1)
    headers = {name.lower(): value for name, value in receiver.requests[0].headers.items()}
    assert headers["x-a2a-notification-token"] == PUSH_TOKEN
    assert headers["authorization"] == f"Bearer {PUSH_CREDENTIALS}"

    text = logs.text.getvalue()
    assert "push to 127.0.0.1 failed" in text  # the capture saw the failing delivery
    assert "bearer token refused" in text
    leaked = [secret for secret in secrets if secret in text]
    assert leaked == []


def _through_the_worker_lambda(stack: Stack, run: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
    operation = run(stack.broker.receive(timeout=0))
    message = {"MessageId": "m-1", "ReceiptHandle": "r-1", "Body": operation.model_dump_json()}
    event = lambda_shapes.sqs_event(
        [message], queue_arn="arn:aws:sqs:us-east-1:123456789012:runs", region="us-east-1"
    )
    assert worker_handler(stack.worker)(event, LocalLambdaContext("a2a-worker")) == {"batchItemFailures": []}


def _deliver_push(stack: Stack, task_id: str, run: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
    push = stack.service.push
    assert push is not None

    async def no_wait(seconds: float) -> None:
        pass

    sender = WebhookSender(
        policy=UrlPolicy(allow_insecure_loopback=True),
        signer=LocalSigner(),
        issuer="https://agent.example/",
        retry=RetryPolicy(max_attempts=2, timeout=2.0),
        sleep=no_wait,
    )
    notifier = PushNotifier(stack.ledger, push.store, sender, InMemoryPushDeadLetters())
    head = run(stack.ledger.head(task_id))
    assert head.state.value == "completed"
    run(notifier.on_commit(CommitRef(task_id, head.first_seq, head.state, head)))


def test_the_capture_would_see_a_leak(logs: Capture) -> None:
    logging.getLogger("a2a_core.anything").debug("header was %s", WRONG_KEY)
    from a2a_core.aws.lambdas import logger as powertools_logger

    powertools_logger.debug("token", token=PUSH_TOKEN)
    assert WRONG_KEY in logs.text.getvalue()
    assert PUSH_TOKEN in logs.text.getvalue()
