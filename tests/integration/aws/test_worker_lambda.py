"""The worker Lambda handler fed SQS events built from real messages on moto's queues."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from types import ModuleType
from typing import Any

import pytest

from a2a_core.aws.resources import ResourceNames
from a2a_core.core.turn.executor import TaskContext
from a2a_core.core.turn.worker import AGENT_FAILED, out_of_time
from a2a_core.domain import TaskState, TextPart
from a2a_core.emulator.lambda_shapes import LocalLambdaContext
from a2a_core.emulator.moto_server import EmulatedAws
from a2a_core.settings import SettingsError
from aws_events import (
    ROOT,
    Deployment,
    failed_ids,
    lambda_context,
    load_function,
    receive,
    receive_count,
    receive_within,
    redeliver,
    settle,
    sqs_event,
)

RUNS: Counter[str] = Counter()


async def counting_agent(ctx: TaskContext) -> str:
    RUNS[ctx.task_id] += 1
    # Long enough for a sibling record of the same batch to arrive mid-run, even when its DynamoDB
    # round trips are slow (a loaded machine running the suite on every core).
    await asyncio.sleep(0.5)
    await ctx.artifact("the result", name="result")
    return f"done: {ctx.text}"


class AgentBaseError(BaseException):
    """Some library's BaseException (not the process's KeyboardInterrupt or SystemExit)."""


async def picky_agent(ctx: TaskContext) -> str:
    if ctx.text == "cancel yourself":
        raise asyncio.CancelledError
    if ctx.text == "raise a BaseException":
        raise AgentBaseError
    return await counting_agent(ctx)


async def slow_agent(ctx: TaskContext) -> str:
    await asyncio.sleep(60)
    return "never"


@pytest.fixture
def deployment(local_aws: EmulatedAws, aws_resources: ResourceNames) -> Deployment:
    return Deployment(local_aws, aws_resources)


def worker_function(monkeypatch: pytest.MonkeyPatch, deployment: Deployment, agent: str) -> ModuleType:
    return load_function(monkeypatch, "worker", deployment.env(A2A_AGENT=f"{__name__}:{agent}"))


def invoke(
    function: ModuleType,
    deployment: Deployment,
    messages: list[Any],
    context: LocalLambdaContext | None = None,
) -> dict[str, Any]:
    event = sqs_event(deployment.sqs, deployment.names.queue_url, messages)
    response: dict[str, Any] = function.handler(event, context or lambda_context())
    settle(deployment.sqs, deployment.names.queue_url, messages, response)
    return response


def assert_ran_once(deployment: Deployment, task_id: str) -> None:
    task = deployment.task(task_id)
    assert RUNS[task_id] == 1
    assert task.status.state == TaskState.completed
    assert len(task.history or []) == 2  # the user's message and the agent's reply
    assert [a.name for a in task.artifacts or []] == ["result"]


def test_a_message_delivered_again_after_its_run_does_not_run_the_agent_again(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    worker = worker_function(monkeypatch, deployment, "counting_agent")
    task_id = deployment.start_task("hi")
    queue = deployment.names.queue_url
    first = receive(deployment.sqs, queue)
    event = sqs_event(deployment.sqs, queue, first)
    assert worker.handler(event, lambda_context()) == {"batchItemFailures": []}
    # The delete never happened (say the invocation froze right after): SQS delivers it again.
    redeliver(deployment.sqs, queue, first)
    again = receive(deployment.sqs, queue)
    assert [m["MessageId"] for m in again] == [m["MessageId"] for m in first]
    assert receive_count(again[0]) == 2
    assert invoke(worker, deployment, again) == {"batchItemFailures": []}
    assert_ran_once(deployment, task_id)
    assert receive(deployment.sqs, queue) == []


def test_a_message_twice_in_one_batch_runs_the_agent_once(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    worker = worker_function(monkeypatch, deployment, "counting_agent")
    task_id = deployment.start_task("hi")
    queue = deployment.names.queue_url
    messages = receive(deployment.sqs, queue)
    response = invoke(worker, deployment, [messages[0], messages[0]])
    # The copy that found its sibling's live lease asks for a later delivery; that one is a no-op.
    assert failed_ids(response) == {messages[0]["MessageId"]}
    redeliver(deployment.sqs, queue, messages)
    assert invoke(worker, deployment, receive(deployment.sqs, queue)) == {"batchItemFailures": []}
    assert_ran_once(deployment, task_id)


# Runs the worker Lambda in its own process, with an agent that is still working when the
# process is SIGKILLed: what Lambda does on a hard timeout or an out-of-memory kill.
CRASHING_INVOCATION = """
import asyncio, importlib.util, json, sys
from aws_events import lambda_context

async def hangs(ctx):
    await asyncio.sleep(3600)

spec = importlib.util.spec_from_file_location("worker_handler", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
module.handler(json.load(sys.stdin), lambda_context())
"""


def test_a_worker_killed_mid_run_is_taken_over_as_soon_as_its_lease_expires(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    """Its message comes back just after the lease, not after the queue's visibility timeout."""
    worker = worker_function(monkeypatch, deployment, "counting_agent")  # cold-started beforehand
    task_id = deployment.start_task("hi")
    queue = deployment.names.queue_url
    messages = receive(deployment.sqs, queue)
    env = {
        **os.environ,
        # Long enough for the duplicate below to find the lease live on a busy machine.
        **deployment.env(A2A_AGENT="__main__:hangs", A2A_LEASE_SECONDS="6"),
        "PYTHONPATH": str(ROOT / "tests"),
    }
    crashing = subprocess.Popen(  # noqa: S603 (our interpreter, our script)
        [
            sys.executable,
            "-c",
            CRASHING_INVOCATION,
            str(ROOT / "src" / "a2a_core" / "functions" / "worker" / "handler.py"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert crashing.stdin is not None
    crashing.stdin.write(json.dumps(sqs_event(deployment.sqs, queue, messages)))
    crashing.stdin.close()
    try:
        wait_for_state(deployment, task_id, TaskState.working, crashing)
    finally:
        crashing.send_signal(signal.SIGKILL)
        crashing.wait()
        assert crashing.stderr is not None
        crashing.stderr.close()

    # The invocation never answered, so the event source mapping deleted nothing.
    attributes = deployment.sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["All"])["Attributes"]
    assert attributes["ApproximateNumberOfMessagesNotVisible"] == "1"
    head = deployment.head(task_id)
    assert head.state == TaskState.working
    assert head.run is not None
    assert head.run.attempt == 1
    assert head.run.lease_until is not None

    redeliver(deployment.sqs, queue, messages)  # a duplicate delivery, while the lease still holds
    early = receive(deployment.sqs, queue)
    assert failed_ids(invoke(worker, deployment, early)) == {early[0]["MessageId"]}
    assert RUNS[task_id] == 0

    # No one makes it visible: it comes back by itself once the lease has run out (the queue's
    # visibility timeout is 5,400 s).
    late: list[Any] = []
    deadline = time.monotonic() + 30
    while not late and time.monotonic() < deadline:
        late = receive_within(deployment.sqs, queue, 5)
    assert late, "the turn's message did not come back after its lease"
    assert time.time() >= head.run.lease_until
    assert receive_count(late[0]) == 3
    assert invoke(worker, deployment, late) == {"batchItemFailures": []}
    assert_ran_once(deployment, task_id)
    taken_over = deployment.head(task_id).run
    assert taken_over is not None
    assert taken_over.attempt == 2
    assert receive(deployment.sqs, queue) == []


def wait_for_state(
    deployment: Deployment, task_id: str, state: TaskState, process: subprocess.Popen[str]
) -> None:
    deadline = time.monotonic() + 20
    while deployment.head(task_id).state != state:
        if process.poll() is not None:
            assert process.stderr is not None
            pytest.fail(f"the worker process exited early:\n{process.stderr.read()}")
        if time.monotonic() > deadline:
            pytest.fail(f"task {task_id} never became {state.value}")
        time.sleep(0.05)


def test_only_the_failing_records_of_a_batch_are_reported(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    worker = worker_function(monkeypatch, deployment, "counting_agent")
    queue = deployment.names.queue_url
    good = deployment.start_task("good")
    busy = deployment.start_task("busy")
    deployment.hold_turn(busy)
    deployment.sqs.send_message(QueueUrl=queue, MessageBody="{not a run operation")
    messages = receive(deployment.sqs, queue)
    assert len(messages) == 3
    ids = {m["Body"]: m["MessageId"] for m in messages}

    response = invoke(worker, deployment, messages)

    busy_id = next(ids[body] for body in ids if busy in body)
    assert failed_ids(response) == {ids["{not a run operation"], busy_id}
    assert_ran_once(deployment, good)
    assert RUNS[busy] == 0
    assert deployment.head(busy).state == TaskState.working
    # The good record was deleted; the two failures wait for their next delivery.
    attributes = deployment.sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["All"])["Attributes"]
    assert attributes["ApproximateNumberOfMessagesNotVisible"] == "2"


def test_an_agent_that_cancels_itself_fails_its_own_task_and_no_other(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    worker = worker_function(monkeypatch, deployment, "picky_agent")
    texts = ["first", "cancel yourself", "raise a BaseException", "last"]
    tasks = {text: deployment.start_task(text) for text in texts}
    messages = receive(deployment.sqs, deployment.names.queue_url)
    assert len(messages) == len(texts)

    # One batch: the healthy records run to the end beside the ones whose agent raised.
    assert invoke(worker, deployment, messages) == {"batchItemFailures": []}

    for text in ("first", "last"):
        assert_ran_once(deployment, tasks[text])
    for text in ("cancel yourself", "raise a BaseException"):
        task = deployment.task(tasks[text])
        assert task.status.state == TaskState.failed
        assert task.status.message is not None
        assert task.status.message.parts == [TextPart(text=AGENT_FAILED)]


def test_an_agent_still_running_near_the_invocation_deadline_fails_its_task_in_time(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    worker = worker_function(monkeypatch, deployment, "slow_agent")
    task_id = deployment.start_task("take your time")
    messages = receive(deployment.sqs, deployment.names.queue_url)
    # 0.3 s left once the worker's 10 s safety margin for recording the outcome is set aside.
    context = lambda_context(remaining_ms=10_300)
    started = time.monotonic()
    assert invoke(worker, deployment, messages, context) == {"batchItemFailures": []}
    # The agent (which would sleep for minutes) was stopped and the outcome written while the
    # invocation still had time: what matters is the deadline, not how fast this machine is.
    assert time.monotonic() - started < 10.3
    assert context.get_remaining_time_in_millis() > 0
    task = deployment.task(task_id)
    assert task.status.state == TaskState.failed
    assert task.status.message is not None
    # The time the turn had (the invocation's, taken when the record started) and the setting.
    (part,) = task.status.message.parts
    assert isinstance(part, TextPart)
    assert part.text.startswith("The agent did not finish within max_turn_seconds = 10.")
    assert part.text.endswith(out_of_time(10.3, None).partition(" s ")[2])


def test_a_worker_without_its_table_fails_the_cold_start_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    env = deployment.env(A2A_AGENT=f"{__name__}:counting_agent")
    del env["A2A_TABLE_NAME"]
    monkeypatch.delenv("A2A_TABLE_NAME", raising=False)
    with pytest.raises(SettingsError, match="A2A_TABLE_NAME"):
        load_function(monkeypatch, "worker", env)
