"""Lambda's side of SQS for the integration tests, on moto's real server.

Real messages are received from a queue and turned into the event the SQS event source mapping
sends a function; `settle` then does what the mapping does with the function's answer: delete
the messages that succeeded, keep the reported failures (and everything, if the invocation
raised) for a later delivery. `redeliver` stands for the visibility timeout running out.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from a2a_core.aws.resources import ResourceNames
from a2a_core.compose import build_server
from a2a_core.compose.aws import build_aws_adapters, build_task_store
from a2a_core.core.caller import Caller
from a2a_core.core.engine import TaskEngine
from a2a_core.core.requests import SendRequest
from a2a_core.core.tasklog.changes import Change, status
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.records import Commit, RunLease
from a2a_core.domain import Message, Role, Task, TaskState, TextPart
from a2a_core.emulator import lambda_shapes
from a2a_core.emulator.lambda_shapes import LocalLambdaContext
from a2a_core.emulator.moto_server import EmulatedAws
from a2a_core.settings import Settings

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient
    from mypy_boto3_sqs.type_defs import MessageTypeDef

ROOT = Path(__file__).resolve().parents[1]


def lambda_context(function_name: str = "a2a-worker", remaining_ms: int = 900_000) -> LocalLambdaContext:
    """A Lambda context whose invocation has ``remaining_ms`` left from now."""
    return LocalLambdaContext(function_name, timeout_seconds=remaining_ms / 1000)


def api_context() -> LocalLambdaContext:
    """The API function's context: 29 s, API Gateway's integration timeout."""
    return lambda_context("a2a-api", 29_000)


EVENTS = ROOT / "tests" / "events"


def api_event(name: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """The API Gateway event in ``tests/events/<name>``, with ``body`` as its JSON body."""
    loaded: dict[str, Any] = json.loads((EVENTS / name).read_text())
    if body is not None:
        loaded["body"] = json.dumps(body)
        if "content-length" in loaded.get("headers", {}):
            loaded["headers"]["content-length"] = str(len(loaded["body"]))
    return loaded


@dataclass
class Deployment:
    """The service's resources on moto, seen as the API sees them (to create tasks) and as a
    Lambda function sees them (through its environment)."""

    aws: EmulatedAws
    names: ResourceNames

    def env(self, **overrides: str) -> dict[str, str]:
        return {
            "A2A_BACKEND": "aws",
            "A2A_AWS_REGION": self.aws.region,
            "A2A_AWS_ENDPOINT_URL": self.aws.endpoint_url,
            "A2A_TABLE_NAME": self.names.table,
            "A2A_QUEUE_URL": self.names.queue_url,
            "A2A_DLQ_URL": self.names.dlq_url,
            "A2A_BUCKET_NAME": self.names.bucket,
            "A2A_ALLOW_UNAUTHENTICATED": "true",
            **overrides,
        }

    @property
    def settings(self) -> Settings:
        return Settings.from_env(self.env())

    @property
    def sqs(self) -> SQSClient:
        return self.aws.clients.sqs

    @property
    def ledger(self) -> TaskLedger:
        return TaskLedger(build_task_store(self.settings, self.aws.clients))

    @property
    def engine(self) -> TaskEngine:
        settings = self.settings
        adapters = build_aws_adapters(settings, self.aws.clients)
        return build_server(
            settings, store=adapters.store, broker=adapters.broker, push_store=adapters.push_store
        ).engine

    def start_task(self, text: str = "hi") -> str:
        """Send a message as a client would: the task is stored and its run op enqueued on SQS."""
        params = SendRequest(
            message=Message(role=Role.user, parts=[TextPart(text=text)], message_id=str(uuid.uuid4())),
            blocking=False,
        )
        return asyncio.run(self.engine.send_message(params, Caller())).id

    def hold_turn(self, task_id: str) -> None:
        """Claim the task's turn the way a live worker elsewhere would."""

        def decide(head: Commit) -> Change:
            assert head.run is not None
            lease = RunLease(run_id=head.run.run_id, lease_until=time.time() + 600, attempt=1)
            return Change([status(TaskState.working)], run=lease)

        asyncio.run(self.ledger.write(task_id, decide))

    def head(self, task_id: str) -> Commit:
        return asyncio.run(self.ledger.head(task_id))

    def task(self, task_id: str) -> Task:
        return asyncio.run(self.ledger.load(task_id))


def load_function(monkeypatch: pytest.MonkeyPatch, name: str, env: dict[str, str]) -> ModuleType:
    """Import ``functions/<name>/handler.py`` afresh: a cold start with ``env``."""
    for variable, value in env.items():
        monkeypatch.setenv(variable, value)
    spec = importlib.util.spec_from_file_location(
        f"{name}_handler", ROOT / "src" / "a2a_core" / "functions" / name / "handler.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def receive(sqs: SQSClient, queue_url: str) -> list[MessageTypeDef]:
    """One receive of up to 10 messages, with the attributes the event source mapping asks for."""
    return sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, AttributeNames=["All"]).get(
        "Messages", []
    )


def receive_within(sqs: SQSClient, queue_url: str, seconds: int) -> list[MessageTypeDef]:
    """A long-polling receive: the messages that are or become visible within ``seconds``."""
    return sqs.receive_message(
        QueueUrl=queue_url, MaxNumberOfMessages=10, AttributeNames=["All"], WaitTimeSeconds=seconds
    ).get("Messages", [])


def sqs_event(sqs: SQSClient, queue_url: str, messages: Sequence[MessageTypeDef]) -> dict[str, Any]:
    """The event Lambda's SQS event source mapping sends for ``messages``."""
    arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return lambda_shapes.sqs_event(messages, queue_arn=arn, region=arn.split(":")[3])  # type: ignore[arg-type]


def failed_ids(response: dict[str, Any]) -> set[str]:
    return {failure["itemIdentifier"] for failure in response["batchItemFailures"]}


def settle(
    sqs: SQSClient, queue_url: str, messages: Sequence[MessageTypeDef], response: dict[str, Any] | None
) -> None:
    """Delete what the invocation finished; ``response`` None means the invocation itself failed."""
    keep = {m["MessageId"] for m in messages} if response is None else failed_ids(response)
    for message in messages:
        if message["MessageId"] not in keep:
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])


def redeliver(sqs: SQSClient, queue_url: str, messages: Sequence[MessageTypeDef]) -> None:
    """Make in-flight messages visible now, as if their visibility timeout had run out."""
    for message in messages:
        sqs.change_message_visibility(
            QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
        )


def receive_count(message: MessageTypeDef) -> int:
    return int(message.get("Attributes", {})["ApproximateReceiveCount"])
