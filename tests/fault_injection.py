"""Two-turn tasks run through the real Lambda handlers (`a2a_core/functions/api`, `a2a_core/functions/worker`,
`functions/dlq`) on moto while their DynamoDB calls fail (`dynamodb_faults`), checked against the
stored logs. Used by ``tests/integration/aws/test_fault_injection.py`` and ``bench/faults.py``.

A client sends each task's first message (0.3 JSON-RPC ``message/send``), the worker runs it until
it asks for input, the client answers, the worker completes it; a request the API answers with an
error is sent again, as a client would. Lambda's part (receive, invoke, delete what succeeded,
leave the failures to come back when the worker set their visibility to; the dead-letter queue to
its function) is played by the run itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from a2a_core.aws import clients as aws_clients
from a2a_core.aws.resources import ResourceNames
from a2a_core.compose.aws import build_task_store
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.lifecycle import is_terminal
from a2a_core.core.tasklog.records import Commit, StatusChanged
from a2a_core.core.turn.executor import TaskContext
from a2a_core.domain import Task, TaskState, TextPart
from a2a_core.emulator.moto_server import EmulatedAws
from a2a_core.protocol.v1.codec import task_to_v1
from a2a_core.protocol.v1.wire.protojson import dump_json
from a2a_core.settings import Settings
from aws_events import ROOT, api_context, api_event, lambda_context, sqs_event
from dynamodb_faults import MODES, DynamoDBFaults, scaled_throttle_backoff
from log_checks import reference_task

if TYPE_CHECKING:
    from mypy_boto3_sqs.type_defs import MessageTypeDef

# --- the agent ------------------------------------------------------------------------------------


async def two_turn_agent(ctx: TaskContext) -> str | None:
    """Turn 1: progress, a two-chunk artifact, a question; turn 2: progress, an artifact, done."""
    if ctx.text.startswith("question"):
        await ctx.update("thinking")
        artifact_id = await ctx.artifact("part 1", name="draft")
        await ctx.artifact("part 2", artifact_id=artifact_id, append=True, last_chunk=True)
        await ctx.ask(f"which format for {ctx.text}?")
        return None
    await ctx.update("writing")
    await ctx.artifact(f"answer in {ctx.text}", name="answer", last_chunk=True)
    return f"done: {ctx.text}"


def expected_history(number: int) -> list[str]:
    question, reply = f"question {number}", f"reply {number}"
    return [question, "thinking", f"which format for {question}?", reply, "writing", f"done: {reply}"]


def expected_artifacts(number: int) -> list[tuple[str | None, list[str]]]:
    return [("draft", ["part 1", "part 2"]), ("answer", [f"answer in reply {number}"])]


# --- a run of tasks -------------------------------------------------------------------------------


@dataclass
class FaultReport:
    tasks: int
    states: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    injected: Counter[str] = field(default_factory=Counter)
    dynamodb_calls: int = 0
    worker_invocations: int = 0
    record_failures: int = 0
    dead_letters: int = 0
    api_retries: int = 0
    retried_turns: int = 0
    superseded_commits: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems and self.states == Counter({"completed": self.tasks})


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"faulted_{name}_handler", ROOT / "src" / "a2a_core" / "functions" / name / "handler.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FaultRun:
    """The handlers of one deployment on moto, their DynamoDB clients under ``faults``."""

    def __init__(
        self, aws: EmulatedAws, names: ResourceNames, faults: DynamoDBFaults, *, lease_seconds: float
    ) -> None:
        self.aws = aws
        self.names = names
        self.faults = faults
        self.env = {
            "A2A_BACKEND": "aws",
            "A2A_AWS_REGION": aws.region,
            "A2A_AWS_ENDPOINT_URL": aws.endpoint_url,
            "A2A_TABLE_NAME": names.table,
            "A2A_QUEUE_URL": names.queue_url,
            "A2A_DLQ_URL": names.dlq_url,
            "A2A_BUCKET_NAME": names.bucket,
            "A2A_ALLOW_UNAUTHENTICATED": "true",
            "A2A_AGENT": f"{__name__}:two_turn_agent",
            "A2A_LEASE_SECONDS": str(lease_seconds),
        }
        original = aws_clients.build_clients

        def faulted(region: str, endpoint_url: str | None = None, **kwargs: Any) -> aws_clients.AwsClients:
            built = original(region, endpoint_url, **kwargs)
            faults.attach(built.dynamodb)
            return built

        aws_clients.build_clients = faulted  # every handler below builds its clients through this
        # The API function's loop (Mangum takes the thread's, from its cold start on).
        self.api_loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.api_loop)
        try:
            with _environment(self.env):
                self.api, self.worker, self.dlq = _load("api"), _load("worker"), _load("dlq")
        finally:
            aws_clients.build_clients = original
        # Lambda's side runs a thread of its own: each batch handler runs its own event loop there.
        self.lambda_thread = ThreadPoolExecutor(1)
        self.ledger = TaskLedger(build_task_store(Settings.from_env(self.env), aws.clients))  # no faults

    def close(self) -> None:
        self.lambda_thread.shutdown()
        asyncio.set_event_loop(None)
        self.api_loop.close()

    # The client's side.

    def call(
        self, body: dict[str, Any], *, version: str | None = None, report: FaultReport
    ) -> dict[str, Any]:
        """One JSON-RPC call through the API function, sent again while it answers an error."""
        for _ in range(20):
            event = api_event("apigw_rest_message_send.json", body)
            if version is not None:
                event["headers"]["A2A-Version"] = version
                event["multiValueHeaders"]["A2A-Version"] = [version]
            answer = json.loads(self.api.handler(event, api_context())["body"])
            if "result" in answer:
                return dict(answer["result"])
            report.api_retries += 1
            time.sleep(0.05)
        raise AssertionError(f"the API kept failing: {answer}")

    def send(self, text: str, report: FaultReport, task_id: str | None = None) -> str:
        message: dict[str, Any] = {
            "role": "user",
            "messageId": str(uuid.uuid4()),
            "parts": [{"kind": "text", "text": text}],
        }
        if task_id is not None:
            message["taskId"] = task_id
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "message/send",
            "params": {"message": message, "configuration": {"blocking": False}},
        }
        return str(self.call(body, report=report)["id"])

    # Lambda's side.

    def drain(
        self, task_ids: Sequence[str], done: Callable[[Commit], bool], report: FaultReport, timeout: float
    ) -> None:
        """Feed the worker (and the dead-letter function) until every task is ``done``."""
        deadline = time.monotonic() + timeout
        waiting = set(task_ids)
        while waiting:
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(waiting)} task(s) never got there, e.g. {sorted(waiting)[:3]}")
            self._feed(self.names.queue_url, self.worker, report, wait=1)
            report.dead_letters += self._feed(self.names.dlq_url, self.dlq, report, wait=0)
            waiting = {task_id for task_id in waiting if not done(self._head(task_id))}

    def _feed(self, queue: str, function: ModuleType, report: FaultReport, *, wait: int) -> int:
        sqs = self.aws.clients.sqs
        messages: list[MessageTypeDef] = sqs.receive_message(
            QueueUrl=queue, MaxNumberOfMessages=10, AttributeNames=["All"], WaitTimeSeconds=wait
        ).get("Messages", [])
        if not messages:
            return 0
        event = sqs_event(sqs, queue, messages)
        response = self.lambda_thread.submit(function.handler, event, lambda_context()).result()
        failed = {failure["itemIdentifier"] for failure in response["batchItemFailures"]}
        if function is self.worker:
            report.worker_invocations += 1
            report.record_failures += len(failed)
        for message in messages:  # failures come back when the function set their visibility to
            if message["MessageId"] not in failed:
                sqs.delete_message(QueueUrl=queue, ReceiptHandle=message["ReceiptHandle"])
        return len(messages)

    def _head(self, task_id: str) -> Commit:
        return self.lambda_thread.submit(asyncio.run, self.ledger.head(task_id)).result()

    def log(self, task_id: str) -> list[Commit]:
        return self.lambda_thread.submit(asyncio.run, self.ledger.store.read(task_id)).result()


def run_faulted_tasks(
    aws: EmulatedAws,
    names: ResourceNames,
    *,
    tasks: int,
    rate: float,
    modes: Sequence[str] = MODES,
    seed: int = 1,
    batch: int = 10,
    lease_seconds: float = 10.0,
    timeout: float = 120.0,
    throttle_backoff: float = 1.0,
) -> FaultReport:
    """``tasks`` two-turn tasks, ``batch`` at a time, under ``rate`` DynamoDB faults; the report
    lists every way a task's end, log or reads break a promise (`FaultReport.problems`).
    ``throttle_backoff`` scales botocore's waits before retrying a throttled call."""
    with scaled_throttle_backoff(throttle_backoff):
        return _run_faulted_tasks(
            aws,
            names,
            tasks=tasks,
            rate=rate,
            modes=modes,
            seed=seed,
            batch=batch,
            lease_seconds=lease_seconds,
            timeout=timeout,
        )


def _run_faulted_tasks(
    aws: EmulatedAws,
    names: ResourceNames,
    *,
    tasks: int,
    rate: float,
    modes: Sequence[str],
    seed: int,
    batch: int,
    lease_seconds: float,
    timeout: float,
) -> FaultReport:
    faults = DynamoDBFaults(rate, modes, seed)
    run = FaultRun(aws, names, faults, lease_seconds=lease_seconds)
    # The function's defaults (a store error retried after 10 s, a dead worker's turn resumed 5 s
    # after its lease) would make the run wait; the logic is the same at 1 s.
    run.worker.worker.store_retry_seconds = 1.0
    run.worker.worker.redelivery_margin = 1.0
    report = FaultReport(tasks)
    started = time.monotonic()
    numbers: dict[str, int] = {}
    try:
        for first in range(0, tasks, batch):
            chunk = range(first, min(first + batch, tasks))
            ids = [run.send(f"question {n}", report) for n in chunk]
            numbers.update(zip(ids, chunk, strict=True))
            run.drain(
                ids,
                lambda head: head.state == TaskState.input_required or is_terminal(head.state),
                report,
                timeout,
            )
            for task_id in ids:
                if run._head(task_id).state == TaskState.input_required:
                    run.send(f"reply {numbers[task_id]}", report, task_id=task_id)
            run.drain(ids, lambda head: is_terminal(head.state), report, timeout)
        faults.enabled = False
        report.seconds = time.monotonic() - started
        report.injected, report.dynamodb_calls = faults.injected, faults.calls
        for task_id, number in numbers.items():
            check_task(run, task_id, number, report)
    finally:
        faults.enabled = False
        run.close()
    return report


def check_task(run: FaultRun, task_id: str, number: int, report: FaultReport) -> None:
    """Exactly one terminal state; the reads of both generations are the fold of the stored log;
    the task holds its two turns' output once."""
    log = run.log(task_id)
    reference = reference_task(log)
    report.states[reference.status.state.value] += 1
    attempts = Counter((c.run.run_id, c.run.attempt) for c in log if c.run is not None and c.run.attempt > 0)
    report.retried_turns += sum(1 for _, attempt in attempts if attempt > 1)
    report.superseded_commits += sum(1 for c in log if c.run is not None and _superseded(c, log))
    endings = [
        e for c in log for e in c.events if isinstance(e, StatusChanged) and is_terminal(e.status.state)
    ]
    if len(endings) != 1:
        report.problems.append(f"{task_id}: {len(endings)} terminal states")
    legacy = run.call(
        {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task_id}}, report=report
    )
    # 0.3 has no generations: the reference's is left out of the comparison.
    if Task.model_validate(legacy) != reference.model_copy(update={"generation": None}):
        report.problems.append(f"{task_id}: 0.3 tasks/get differs from the stored log")
    current = run.call(
        {"jsonrpc": "2.0", "id": 3, "method": "GetTask", "params": {"id": task_id}},
        version="1.0",
        report=report,
    )
    if current != json.loads(dump_json(task_to_v1(reference))):
        report.problems.append(f"{task_id}: 1.0 GetTask differs from the stored log")
    if reference.status.state != TaskState.completed:
        report.problems.append(f"{task_id}: {reference.status.state.value}, not completed")
        return
    history = [p.text for m in reference.history or [] for p in m.parts if isinstance(p, TextPart)]
    if history != expected_history(number):
        report.problems.append(f"{task_id}: history {history}")
    ids = [m.message_id for m in reference.history or []]
    artifacts = [
        (a.name, [p.text for p in a.parts if isinstance(p, TextPart)]) for a in reference.artifacts or []
    ]
    if len(set(ids)) != len(ids) or artifacts != expected_artifacts(number):
        report.problems.append(f"{task_id}: artifacts {artifacts}, message ids {ids}")


def _superseded(commit: Commit, log: list[Commit]) -> bool:
    run = commit.run
    assert run is not None
    return run.attempt >= 1 and any(
        c.run is not None and c.run.run_id == run.run_id and c.run.attempt > run.attempt for c in log
    )
