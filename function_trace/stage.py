"""The world the exercised Lambda functions run in, and what each must answer (`function_trace.runner`).

moto's server (in this process) with the service's resources and a push signing key, a webhook
receiver and a JWT issuer serving its JWKS, all on 127.0.0.1. For each `Variant` the `Stage`
gives the environment the CDK stack would give that function (pointed at moto) and a round of
requests that walks its code paths, lazy imports included, with a check of every answer:

- api (Mangum events from ``tests/events``, or HTTP to uvicorn as the Lambda Web Adapter runs
  it): ``message/send`` first (what a cold start serves), then the card, the docs page, a send
  over the S3 offload threshold, a buffered ``message/stream``, ``tasks/get|cancel`` and bad
  JSON; with push on, the JWKS (KMS on moto) and the four ``pushNotificationConfig`` methods;
- worker: an SQS batch of a run operation (the echo agent runs it) and a malformed record;
- dlq: an SQS batch of a run operation, whose task it fails;
- push: the table's stream records of a completed task with two webhook configs, one created
  through 0.x and one through 1.0 (so both payloads' imports are traced); each notification is
  signed by the KMS key and POSTed to the receiver (the function's URL policy is relaxed to
  allow loopback for this, see `function_trace.child.allow_loopback_webhooks`);
- authorizer: a valid token (its JWKS fetched over loopback HTTP), a forged one, none.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from function_trace.api_round import _body, _send, api_events, check_api
from function_trace.variants import FUNCTION_NAMES, ExerciseError, Variant

AGENT = "a2a_core.examples.echo:agent"
# What `a2a_core.cdk.web_adapter.ENVIRONMENT` gives the app (that module needs CDK, which this one must
# not start): the caller comes in the adapter's request-context header.
WEB_ADAPTER_ENV = {"A2A_TRUST_REQUEST_CONTEXT_HEADER": "true"}


@dataclass(frozen=True)
class Requests:
    """A variant's events (Lambda invocations), the child's patch (`function_trace.child.PATCHES`) and
    the check its answers must pass (raises `ExerciseError`)."""

    events: list[dict[str, Any]]
    check: Callable[[list[dict[str, Any]]], None]
    patch: str | None = None


class Stage(contextlib.AbstractContextManager["Stage"]):
    """moto with the service's resources and a push signing key, a webhook receiver and a JWT
    issuer serving its JWKS, all on 127.0.0.1; builds each variant's environment and requests."""

    def __init__(self) -> None:
        from a2a_core.auth.testing import LocalIssuer
        from a2a_core.aws.clients import client_factory
        from a2a_core.emulator.moto_server import start_emulator

        self._stack = contextlib.ExitStack()
        self.aws = start_emulator()
        self._stack.callback(self.aws.stop)
        make = client_factory(
            self.aws.region, self.aws.endpoint_url, read_timeout=10, credentials=self.aws.credentials
        )
        self.kms = make("kms")
        self.streams = make("dynamodbstreams")
        self.key_id = self.kms.create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"][
            "KeyId"
        ]
        self.receiver = self._stack.enter_context(_receiving())
        self.issuer = LocalIssuer()
        self.jwks_url = self._stack.enter_context(self.issuer.serve_jwks())
        self.completed_task: str | None = None

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def env(self, variant: Variant) -> dict[str, str]:
        names = self.aws.names
        env = {
            "A2A_BACKEND": "aws",
            "A2A_AUTH_MODE": variant.auth,
            "A2A_ALLOW_UNAUTHENTICATED": str(variant.auth == "none").lower(),
            "A2A_AWS_REGION": self.aws.region,
            "A2A_AWS_ENDPOINT_URL": self.aws.endpoint_url,
            "A2A_AGENT": AGENT,
            "A2A_TABLE_NAME": names.table,
            "A2A_BUCKET_NAME": names.bucket,
            "A2A_QUEUE_URL": names.queue_url,
            "A2A_DLQ_URL": names.dlq_url,
            "A2A_RETENTION_DAYS": "30",
            "A2A_LEASE_SECONDS": "900",
            "A2A_PUBLIC_URL": "https://abc123.execute-api.us-east-1.amazonaws.com/prod/",
            "POWERTOOLS_SERVICE_NAME": "a2a-serverless",
            "AWS_LAMBDA_FUNCTION_NAME": FUNCTION_NAMES[variant.function],  # set by Lambda
            # A buffered stream with no worker running would wait 25 s for a final event.
            "A2A_STREAM_BUFFER_SECONDS": "1",
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",  # moto's streams (see BRIEF)
            "AWS_EC2_METADATA_DISABLED": "true",
            "AWS_CONFIG_FILE": os.devnull,  # as in Lambda: no config files, credentials from the environment
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        }
        if variant.push:
            env |= {"A2A_PUSH_ENABLED": "true", "A2A_PUSH_SIGNING_KEY_ID": self.key_id}
        if variant.function == "push":
            env["A2A_PUSH_DLQ_URL"] = names.push_dlq_url
        if variant.function == "authorizer":
            env |= {
                "A2A_JWT_ISSUER": self.issuer.issuer,
                "A2A_JWT_AUDIENCE": self.issuer.audience,
                "A2A_JWT_JWKS_URL": self.jwks_url,
                "A2A_JWT_ALGORITHMS": '["ES256"]',
            }
        if variant.function == "api" and variant.server == "uvicorn":
            env |= WEB_ADAPTER_ENV
        return env

    def requests(self, variant: Variant, *, first_only: bool = False) -> Requests:
        """What the Lambda form of ``variant`` is invoked with (``first_only``: its first event,
        what a cold start serves), and how its answers are checked."""
        if variant.function == "api":
            events = api_events(variant)[: 1 if first_only else None]
            return Requests(
                events,
                lambda rs: check_api(
                    variant,
                    [(r["response"]["statusCode"], _body(r["response"])) for r in rs],
                    count=len(events),
                ),
            )
        if variant.function == "worker":
            event, malformed = self.worker_event()
            return Requests([event], _expect([{"batchItemFailures": [{"itemIdentifier": malformed}]}]))
        if variant.function == "dlq":
            return Requests([self.dlq_event()], _expect([{"batchItemFailures": []}]))
        if variant.function == "push":
            before = self.receiver.count

            def delivered(answers: list[dict[str, Any]]) -> None:
                _expect([{"batchItemFailures": []}])(answers)
                if self.receiver.count < before + 2:
                    raise ExerciseError(
                        f"{variant.label}: not every config's notification reached the webhook"
                    )

            return Requests([self.push_event()], delivered, patch="allow_loopback_webhooks")
        events = self.authorizer_events()[: 1 if first_only else None]
        return Requests(events, _authorized)

    def worker_event(self) -> tuple[dict[str, Any], str]:
        """A batch of one run operation and one malformed record; the operation's task id."""
        message = self._run_operation()
        malformed = {
            **message,
            "MessageId": str(uuid.uuid4()),
            "Body": "{not a run operation",
            "MD5OfBody": None,
        }
        return self._sqs_event([message, malformed], self.aws.names.queue_url), malformed["MessageId"]

    def dlq_event(self) -> dict[str, Any]:
        return self._sqs_event([self._run_operation()], self.aws.names.dlq_url)

    def push_event(self) -> dict[str, Any]:
        """The stream records of a task the echo agent completed, with a config for the receiver."""
        from a2a_core.emulator.stream_poller import stream_event

        task_id = self._completed_task_with_webhook()
        stream_arn = self.aws.clients.dynamodb.describe_table(TableName=self.aws.names.table)["Table"][
            "LatestStreamArn"
        ]
        records = [
            record
            for record in self._stream_records(stream_arn)
            if record["eventName"] == "INSERT"
            and record["dynamodb"]["NewImage"]["pk"]["S"] == f"TASK#{task_id}"
            and record["dynamodb"]["NewImage"]["sk"]["S"].startswith("EVT#")
        ]
        return stream_event(records, stream_arn=stream_arn, region=self.aws.region)

    def authorizer_events(self) -> list[dict[str, Any]]:
        arn = "arn:aws:execute-api:us-east-1:123456789012:abc123xyz0/prod/POST/"
        forged = self.issuer.mint("alice", audience="someone-else")
        return [
            {"type": "TOKEN", "authorizationToken": f"Bearer {self.issuer.mint('alice')}", "methodArn": arn},
            {"type": "TOKEN", "authorizationToken": f"Bearer {forged}", "methodArn": arn},
            {"type": "TOKEN", "authorizationToken": "", "methodArn": arn},
        ]

    def _run_operation(self) -> dict[str, Any]:
        """A run operation on the run queue (a new task's, sent as a client would)."""
        from a2a_core.compose import build_server
        from a2a_core.compose.aws import build_aws_adapters
        from a2a_core.core.caller import Caller
        from a2a_core.core.requests import SendRequest
        from a2a_core.protocol.v0 import MessageSendParams
        from a2a_core.settings import Settings

        settings = Settings.from_env(
            {**self.env(Variant("api")), "A2A_AUTH_MODE": "none", "A2A_ALLOW_UNAUTHENTICATED": "true"}
        )
        adapters = build_aws_adapters(settings, self.aws.clients)
        service = build_server(
            settings, store=adapters.store, broker=adapters.broker, push_store=adapters.push_store
        )
        params = MessageSendParams.model_validate(_send("run me"))
        request = SendRequest(params.message, blocking=False)
        task = asyncio.run(service.engine.send_message(request, Caller()))
        for _ in range(50):
            for message in self.aws.clients.sqs.receive_message(
                QueueUrl=self.aws.names.queue_url, MaxNumberOfMessages=10, AttributeNames=["All"]
            ).get("Messages", []):
                if json.loads(message["Body"])["task_id"] == task.id:
                    return dict(message)
        raise ExerciseError(f"the run operation of task {task.id} never reached the queue")

    def _completed_task_with_webhook(self) -> str:
        from a2a_core.compose.aws import build_push_store, build_task_store
        from a2a_core.core.broker import RunOperation
        from a2a_core.core.tasklog.ledger import TaskLedger
        from a2a_core.core.turn.executor import as_executor
        from a2a_core.core.turn.worker import Worker
        from a2a_core.domain import PushNotificationConfig
        from a2a_core.examples.echo import agent
        from a2a_core.generations import V1_0
        from a2a_core.settings import Settings

        settings = Settings.from_env(self.env(Variant("push")))
        message = self._run_operation()
        operation = RunOperation.model_validate_json(message["Body"])
        worker = Worker(
            TaskLedger(build_task_store(settings, self.aws.clients)), as_executor(agent), lease_seconds=60
        )
        config = PushNotificationConfig(url=self.receiver.url, token="exercise")  # noqa: S106
        store = build_push_store(settings, self.aws.clients)
        asyncio.run(store.put(operation.task_id, config.model_copy(update={"id": "v0"})))
        asyncio.run(
            store.put(operation.task_id, config.model_copy(update={"id": "v1", "generation": V1_0.version}))
        )
        asyncio.run(worker.handle(operation, deadline=time.monotonic() + 60))
        return operation.task_id

    def _stream_records(self, stream_arn: str) -> list[Any]:
        shard = self.streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"][0]
        iterator = self.streams.get_shard_iterator(
            StreamArn=stream_arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        records: list[Any] = []
        while iterator:
            page = self.streams.get_records(ShardIterator=iterator, Limit=1000)
            records += page["Records"]
            iterator = page.get("NextShardIterator") if page["Records"] else None
        return records

    def _sqs_event(self, messages: list[dict[str, Any]], queue_url: str) -> dict[str, Any]:
        from a2a_core.emulator.lambda_shapes import sqs_event

        arn = f"arn:aws:sqs:{self.aws.region}:123456789012:{queue_url.rsplit('/', 1)[-1]}"
        return sqs_event(messages, queue_arn=arn, region=self.aws.region)


def _expect(expected: list[Any]) -> Any:
    def check(answers: list[dict[str, Any]]) -> None:
        got = [a.get("response", a.get("raised")) for a in answers]
        if got != expected:
            raise ExerciseError(f"answered {got}, expected {expected}")

    return check


def _authorized(answers: list[dict[str, Any]]) -> None:
    """Allow for the valid token, Deny for the forged one, 401 (the exception) without one."""
    expected = ["Allow", "Deny", "Exception: Unauthorized"][: len(answers)]
    got = [
        a["response"]["policyDocument"]["Statement"][0]["Effect"] if "response" in a else a.get("raised")
        for a in answers
    ]
    if not answers or got != expected:
        raise ExerciseError(f"the authorizer answered {answers}")


@dataclass
class _Receiver:
    url: str
    count: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


@contextlib.contextmanager
def _receiving() -> Iterator[_Receiver]:
    """A webhook on 127.0.0.1 that answers 204 to every POST and counts them."""
    receiver = _Receiver(url="")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            with receiver.lock:
                receiver.count += 1
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
