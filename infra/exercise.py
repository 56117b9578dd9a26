"""Cold-start each Lambda function in a fresh interpreter and serve it real requests, on moto.

For every `Variant` (a function under one deployment's settings) a child interpreter
(`infra/exercise_child.py`, ``python -S``) sees only a bundle-like site (`install_site`: the
locked runtime wheels for this machine, boto3's family included, compiled as bundles are) and
the project's sources, with the environment the CDK stack gives that function pointed at moto's
server running here. It imports the handler, then handles a round of requests that walk its code
paths, lazy imports included:

- api (Mangum events from ``tests/events``, or HTTP to uvicorn as the Lambda Web Adapter runs
  it): the card, the docs page, ``message/send`` (one small, one over the S3 offload
  threshold), a buffered ``message/stream``, ``tasks/get|cancel|resubscribe`` and bad JSON;
  with push on, the JWKS (KMS on moto) and the four ``pushNotificationConfig`` methods;
- worker: an SQS batch of a run operation (the echo agent runs it) and a malformed record;
- dlq: an SQS batch of a run operation, whose task it fails;
- push: the table's stream records of a completed task with a webhook config; the notification
  is signed by the KMS key and POSTed to a receiver on 127.0.0.1 (the function's URL policy is
  relaxed to allow loopback for this, see `exercise_child.allow_loopback_webhooks`);
- authorizer: a valid token (JWKS fetched over loopback HTTP), a forged one, none.

Every answer is checked, so a trace never stands for a run that failed half-way. Used by
``infra.trace_imports`` (what each function imports) and ``bench/cold_start.py`` (timings).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infra import wheels

ROOT = wheels.ROOT
CHILD = Path(__file__).resolve().parent / "exercise_child.py"
EVENTS = ROOT / "tests" / "events"
AGENT = "a2a_core.examples.echo:agent"
AUTH_MODES = ("api_key", "jwt", "iam", "none")
SERVERS = ("mangum", "uvicorn")
# The REST API's proxy event per auth mode: API Gateway has checked the credential and says who
# the caller is in the request context.
TEMPLATES = {
    "api_key": "apigw_rest_api_key_message_send.json",
    "jwt": "apigw_rest_cognito_message_send.json",
    "iam": "apigw_rest_iam_message_send.json",
    "none": "apigw_rest_message_send.json",
}
FUNCTION_NAMES = {
    "api": "Api",
    "worker": "Worker",
    "dlq": "DeadLetter",
    "push": "Push",
    "authorizer": "Authorizer",
}
TIMEOUTS = {"api": 29.0, "worker": 900.0, "dlq": 60.0, "push": 60.0, "authorizer": 10.0}
# Two parts, each under the per-part limit, over A2A_OFFLOAD_THRESHOLD_BYTES (300 KB) together:
# the commit goes to S3.
OFFLOADED_PARTS = [{"kind": "text", "text": "x" * 160_000} for _ in range(2)]


# What `infra.web_adapter.ENVIRONMENT` gives the app (that module needs CDK, which this one must
# not start): the caller comes in the adapter's request-context header.
WEB_ADAPTER_ENV = {"A2A_TRUST_REQUEST_CONTEXT_HEADER": "true"}


class ExerciseError(AssertionError):
    """A function did not answer as it should; the message has its answer."""


@dataclass(frozen=True)
class Variant:
    """A function under one deployment's settings; ``server`` matters to the API only (uvicorn:
    response streaming behind the Lambda Web Adapter)."""

    function: str
    auth: str = "api_key"
    push: bool = True
    server: str = "mangum"

    @property
    def settings(self) -> dict[str, str]:
        """The settings that tell its traces apart (see `infra.closures`)."""
        settings = {"push": "on" if self.push else "off"} if self.function in ("api", "worker", "dlq") else {}
        if self.function == "api":
            settings |= {"auth": self.auth, "server": self.server}
        return settings

    @property
    def label(self) -> str:
        return " ".join([self.function, *(f"{k}={v}" for k, v in sorted(self.settings.items()))])


# Every choice that can change what a function imports. Only the API reads the auth mode (the
# authorizer exists only for JWT) and serves through uvicorn; push adds the API's push methods.
VARIANTS: tuple[Variant, ...] = (
    *(
        Variant("api", auth, push, server)
        for auth in AUTH_MODES
        for push in (False, True)
        for server in SERVERS
    ),
    Variant("worker", push=False),
    Variant("worker"),
    Variant("dlq", push=False),
    Variant("dlq"),
    Variant("push"),
    Variant("authorizer", auth="jwt"),
)


@dataclass
class Run:
    variant: Variant
    import_seconds: float
    request_seconds: list[float]
    # Every module imported by the end: [is a package, came from a file].
    modules: dict[str, list[bool]]
    modules_after_import: dict[str, list[bool]]
    imports: list[tuple[str, str]]  # (importer, imported), when recorded
    wall_seconds: float  # the whole child process, interpreter start-up and exit included


def host_platform() -> str:
    return {"x86_64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}[platform.machine()]


def install_site(output: Path, root: Path = ROOT) -> Path:
    """Every locked runtime wheel any function could import, for this machine, compiled."""
    requirements = wheels.locked_requirements(("aws", "web"), root=root)
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    python = wheels.install_wheels(output, requirements, host_platform(), version, root)
    wheels.compile_bytecode(output, python)
    return output


class Stage(contextlib.AbstractContextManager["Stage"]):
    """moto with the service's resources and a push signing key, a webhook receiver and a JWT
    issuer serving its JWKS, all on 127.0.0.1; builds each variant's environment and requests."""

    def __init__(self) -> None:
        from a2a_core.auth.testing import LocalIssuer
        from a2a_core.aws.clients import client_factory
        from a2a_core.local.moto_server import start_local_aws

        self._stack = contextlib.ExitStack()
        self.aws = start_local_aws()
        self._stack.callback(self.aws.stop)
        make = client_factory(self.aws.region, self.aws.endpoint_url, read_timeout=10)
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

    # --- the requests of each function, and what their answers must be -----------------------

    def api_requests(self, variant: Variant) -> list[tuple[str, str, Any, set[int]]]:
        """(HTTP method, path, JSON-RPC body or None, JSON-RPC error codes allowed)."""
        unknown = {"id": str(uuid.uuid4())}
        requests: list[tuple[str, str, Any, set[int]]] = [
            ("GET", "/.well-known/agent-card.json", None, set()),
            ("GET", "/docs", None, set()),
            ("POST", "/", _rpc("message/send", _send("hello")), set()),
            ("POST", "/", _rpc("message/send", _send(parts=OFFLOADED_PARTS)), set()),
            ("POST", "/", _rpc("message/stream", {"message": _message("stream")}), set()),
            ("POST", "/", _rpc("tasks/get", unknown), {-32001}),
            ("POST", "/", _rpc("tasks/cancel", unknown), {-32001}),
            ("POST", "/", "{not json", {-32700}),
        ]
        if variant.push:
            hook = {"url": "https://127.0.0.1/hook", "token": "t"}  # refused: a loopback address
            requests += [
                ("GET", "/.well-known/jwks.json", None, set()),
                (
                    "POST",
                    "/",
                    _rpc(
                        "tasks/pushNotificationConfig/set",
                        {"taskId": unknown["id"], "pushNotificationConfig": hook},
                    ),
                    {-32602},
                ),
                ("POST", "/", _rpc("tasks/pushNotificationConfig/get", unknown), {-32001}),
                ("POST", "/", _rpc("tasks/pushNotificationConfig/list", unknown), {-32001}),
                (
                    "POST",
                    "/",
                    _rpc("tasks/pushNotificationConfig/delete", {**unknown, "pushNotificationConfigId": "c"}),
                    {-32001},
                ),
            ]
        return requests

    def api_events(self, variant: Variant) -> list[dict[str, Any]]:
        template = json.loads((EVENTS / TEMPLATES[variant.auth]).read_text())
        events = []
        for method, path, body, _ in self.api_requests(variant):
            event = json.loads(json.dumps(template))
            event |= {"httpMethod": method, "path": path}
            event["requestContext"] |= {
                "httpMethod": method,
                "path": f"/prod{path}",
                "requestId": str(uuid.uuid4()),
            }
            event["body"] = body if isinstance(body, str) or body is None else json.dumps(body)
            for headers in (event.get("headers") or {}, event.get("multiValueHeaders") or {}):
                headers.pop("content-length", None)
                headers.pop("Content-Length", None)
            events.append(event)
        return events

    def check_api(self, variant: Variant, answers: Sequence[tuple[int, str]]) -> None:
        for (method, path, body, allowed), (status, text) in zip(
            self.api_requests(variant), answers, strict=True
        ):
            rpc_method = body if isinstance(body, str) else (body or {}).get("method", "")
            what = f"{variant.label}: {method} {path} {rpc_method}"
            if status != 200:
                raise ExerciseError(f"{what} answered {status}: {text[:500]}")
            if body is None:
                continue
            replies = [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")] or [
                json.loads(text)
            ]
            for reply in replies:
                error = reply.get("error")
                if (error is None) != (not allowed) or (error is not None and error["code"] not in allowed):
                    raise ExerciseError(f"{what} answered {reply}, expected errors {allowed or 'none'}")

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
        from a2a_core.local.stream_poller import stream_event

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
        from a2a_core.aws.compose import build_broker, build_task_store
        from a2a_core.engine import Caller
        from a2a_core.service import build_service
        from a2a_core.settings import Settings
        from a2a_core.types import MessageSendParams

        settings = Settings.from_env(
            {**self.env(Variant("api")), "A2A_AUTH_MODE": "none", "A2A_ALLOW_UNAUTHENTICATED": "true"}
        )
        clients = self.aws.clients
        service = build_service(
            settings, store=build_task_store(settings, clients), broker=build_broker(settings, clients)
        )
        params = MessageSendParams.model_validate(_send("run me"))
        task = asyncio.run(service.engine.send_message(params, Caller()))
        for _ in range(50):
            for message in self.aws.clients.sqs.receive_message(
                QueueUrl=self.aws.names.queue_url, MaxNumberOfMessages=10, AttributeNames=["All"]
            ).get("Messages", []):
                if json.loads(message["Body"])["task_id"] == task.id:
                    return dict(message)
        raise ExerciseError(f"the run operation of task {task.id} never reached the queue")

    def _completed_task_with_webhook(self) -> str:
        from a2a_core.aws.compose import build_push_store, build_task_store
        from a2a_core.broker import RunOperation
        from a2a_core.examples.echo import agent
        from a2a_core.executor import as_executor
        from a2a_core.ledger import TaskLedger
        from a2a_core.settings import Settings
        from a2a_core.types import PushNotificationConfig
        from a2a_core.worker import Worker

        settings = Settings.from_env(self.env(Variant("push")))
        message = self._run_operation()
        operation = RunOperation.model_validate_json(message["Body"])
        worker = Worker(
            TaskLedger(build_task_store(settings, self.aws.clients)), as_executor(agent), lease_seconds=60
        )
        config = PushNotificationConfig(url=self.receiver.url, token="exercise")  # noqa: S106
        asyncio.run(build_push_store(settings, self.aws.clients).put(operation.task_id, config))
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
        from a2a_core.local.lambda_shapes import sqs_event

        arn = f"arn:aws:sqs:{self.aws.region}:123456789012:{queue_url.rsplit('/', 1)[-1]}"
        return sqs_event(messages, queue_arn=arn, region=self.aws.region)


def exercise(
    stage: Stage,
    variant: Variant,
    paths: Sequence[Path],
    *,
    record_imports: bool = False,
    timeout: float = 120.0,
) -> Run:
    """Cold-start ``variant`` in a fresh interpreter that imports from ``paths`` only (a bundle,
    or `source_paths`), serve its requests, check every answer; ``record_imports`` records who
    imports what (slower: not for timing)."""
    if variant.function == "api" and variant.server == "uvicorn":
        return _exercise_web(stage, variant, paths, record_imports, timeout)
    spec: dict[str, Any] = {
        "mode": "lambda",
        "record_imports": record_imports,
        "module": f"functions.{variant.function}.handler",
        "context": {
            "function_name": FUNCTION_NAMES[variant.function],
            "timeout_seconds": TIMEOUTS[variant.function],
            "memory_mb": 256,
        },
        "patch": None,
    }
    check: Any
    if variant.function == "api":
        spec["events"] = stage.api_events(variant)
        check = lambda rs: stage.check_api(  # noqa: E731
            variant, [(r["response"]["statusCode"], _body(r["response"])) for r in rs]
        )
    elif variant.function == "worker":
        event, malformed = stage.worker_event()
        spec["events"] = [event]
        check = _expect([{"batchItemFailures": [{"itemIdentifier": malformed}]}])
    elif variant.function == "dlq":
        spec["events"] = [stage.dlq_event()]
        check = _expect([{"batchItemFailures": []}])
    elif variant.function == "push":
        spec |= {"events": [stage.push_event()], "patch": "allow_loopback_webhooks"}
        before = stage.receiver.count

        def check(rs: list[dict[str, Any]]) -> None:
            _expect([{"batchItemFailures": []}])(rs)
            if stage.receiver.count <= before:
                raise ExerciseError(f"{variant.label}: no notification reached the webhook")

    else:
        spec["events"] = stage.authorizer_events()
        check = _authorized
    result, wall = _run_child(spec, stage.env(variant), paths, timeout)
    try:
        check(result["requests"])
    except (KeyError, TypeError) as error:
        raise ExerciseError(f"{variant.label}: unexpected answers {result['requests']}") from error
    return Run(
        variant=variant,
        import_seconds=result["import_seconds"],
        request_seconds=[r["seconds"] for r in result["requests"]],
        modules=result["modules"],
        modules_after_import=result["modules_after_import"],
        imports=[(a, b) for a, b in result["imports"]],
        wall_seconds=wall,
    )


def _exercise_web(
    stage: Stage, variant: Variant, paths: Sequence[Path], record_imports: bool, timeout: float
) -> Run:
    import httpx

    port = _free_port()
    spec = {
        "mode": "web",
        "record_imports": record_imports,
        "module": "functions.api.handler",
        "args": ["--host", "127.0.0.1", "--port", str(port), *wheels.UVICORN_OPTIONS],
    }
    template = json.loads((EVENTS / TEMPLATES[variant.auth]).read_text())
    headers = {
        "x-amzn-request-context": json.dumps(template["requestContext"]),
        "content-type": "application/json",
    }
    started = time.perf_counter()
    with _child(spec, stage.env(variant), paths) as (process, result):
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, timeout=30, headers=headers) as client:
            _wait_healthy(client, process, timeout)
            answers = []
            for method, path, body, _ in stage.api_requests(variant):
                content = body if isinstance(body, str) or body is None else json.dumps(body)
                with client.stream(method, path, content=content) as response:
                    if response.headers.get("content-type", "").startswith("text/event-stream"):
                        text = _first_event(response.iter_lines())  # incremental: it would wait for the agent
                    else:
                        text = response.read().decode()
                    answers.append((response.status_code, text))
        process.send_signal(signal.SIGTERM)
        process.wait(timeout)
    stage.check_api(variant, answers)
    return Run(
        variant=variant,
        import_seconds=float("nan"),
        request_seconds=[],
        modules=result["modules"],
        modules_after_import=result["modules"],
        imports=[(a, b) for a, b in result["imports"]],
        wall_seconds=time.perf_counter() - started,
    )


def source_paths(site: Path) -> tuple[Path, ...]:
    """A site, then our sources (``a2a_core``, ``functions``): what a bundle would hold."""
    return (site, ROOT / "src", ROOT)


def child_env(env: Mapping[str, str], paths: Sequence[Path]) -> dict[str, str]:
    """What the child sees: ``paths`` and the standard library, nothing else."""
    path = os.pathsep.join(str(p) for p in paths)
    return {**env, "PATH": os.environ.get("PATH", ""), "PYTHONPATH": path, "PYTHONHASHSEED": "0"}


def _run_child(
    spec: dict[str, Any], env: Mapping[str, str], paths: Sequence[Path], timeout: float
) -> tuple[dict[str, Any], float]:
    started = time.perf_counter()
    with _child(spec, env, paths) as (process, result):
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise ExerciseError(f"{spec['module']} did not finish within {timeout} s") from None
        wall = time.perf_counter() - started
    return result, wall


@contextlib.contextmanager
def _child(
    spec: Mapping[str, Any], env: Mapping[str, str], paths: Sequence[Path]
) -> Iterator[tuple[subprocess.Popen[bytes], dict[str, Any]]]:
    """The child running ``spec``; once it has ended, the dict holds what it wrote. Raises
    `ExerciseError` with its stderr if it fails."""
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="a2a-exercise-") as scratch:
        spec_file, out, errors = (Path(scratch) / name for name in ("spec.json", "out.json", "stderr"))
        spec_file.write_text(json.dumps(spec))
        command = [sys.executable, "-S", "-P", str(CHILD), str(spec_file), str(out)]
        with (
            errors.open("wb") as stderr,
            subprocess.Popen(  # noqa: S603
                command, env=child_env(env, paths), cwd=scratch, stdout=subprocess.DEVNULL, stderr=stderr
            ) as process,
        ):
            try:
                yield process, result
            except ExerciseError as error:
                process.kill()
                process.wait()
                raise ExerciseError(f"{error}; its stderr:\n{errors.read_text()[-3000:]}") from None
            finally:
                if process.poll() is None:
                    process.kill()
                process.wait()
        if process.returncode != 0 or not out.exists():
            raise ExerciseError(
                f"{spec['module']} exited with {process.returncode}:\n{errors.read_text()[-3000:]}"
            )
        result.update(json.loads(out.read_text()))


def _wait_healthy(client: Any, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ExerciseError("uvicorn exited before serving /healthz")
        with contextlib.suppress(OSError, Exception):
            if client.get("/healthz").status_code == 200:
                return
        time.sleep(0.05)
    raise ExerciseError("uvicorn did not serve /healthz in time")


def _first_event(lines: Iterator[str]) -> str:
    for line in lines:
        if line.startswith("data:"):
            return line
    raise ExerciseError("the stream ended before its first event")


def _body(response: Mapping[str, Any]) -> str:
    import base64

    body = response.get("body") or ""
    return base64.b64decode(body).decode() if response.get("isBase64Encoded") else str(body)


def _expect(expected: list[Any]) -> Any:
    def check(answers: list[dict[str, Any]]) -> None:
        got = [a.get("response", a.get("raised")) for a in answers]
        if got != expected:
            raise ExerciseError(f"answered {got}, expected {expected}")

    return check


def _authorized(answers: list[dict[str, Any]]) -> None:
    allow, deny, missing = answers
    effects = [a["response"]["policyDocument"]["Statement"][0]["Effect"] for a in (allow, deny)]
    if effects != ["Allow", "Deny"] or missing.get("raised") != "Exception: Unauthorized":
        raise ExerciseError(f"the authorizer answered {answers}")


def _rpc(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params}


def _message(text: str = "", parts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    parts = parts or [{"kind": "text", "text": text}]
    return {"role": "user", "messageId": str(uuid.uuid4()), "parts": parts}


def _send(text: str = "", parts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"message": _message(text, parts), "configuration": {"blocking": False}}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


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
