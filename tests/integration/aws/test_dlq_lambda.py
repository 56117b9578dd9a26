"""The dead-letter Lambda handler fed SQS events built from real dead letters on moto's queues."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from types import ModuleType
from typing import Any

import pytest

from a2a_core.aws.resources import QUEUE, QueueSpec, ResourceNames, create_queues
from a2a_core.core.broker import RunOperation
from a2a_core.core.turn.executor import TaskContext, as_executor
from a2a_core.core.turn.worker import Worker
from a2a_core.domain import TaskState, TextPart
from a2a_core.emulator.moto_server import EmulatedAws
from a2a_core.examples.echo import agent as echo
from aws_events import (
    Deployment,
    failed_ids,
    lambda_context,
    load_function,
    receive,
    receive_count,
    receive_within,
    settle,
    sqs_event,
)

DEAD_LETTER = "The agent could not finish this task; its run was moved to the dead-letter queue."


async def dies(ctx: TaskContext) -> str:
    # The process exits mid-run: nothing after the claim is written and the event source mapping
    # deletes nothing, as when a worker is killed.
    raise SystemExit(1)


def invoke_dying(function: ModuleType, event: dict[str, Any]) -> None:
    """Invoke ``function`` with an agent that ends the process (outside Lambda, Powertools runs
    each invocation on a loop of its own, so nothing of it goes on after)."""
    with pytest.raises(SystemExit):
        function.handler(event, lambda_context())


@pytest.fixture
def deployment(local_aws: EmulatedAws, aws_resources: ResourceNames) -> Deployment:
    return Deployment(local_aws, aws_resources)


def dlq_function(monkeypatch: pytest.MonkeyPatch, deployment: Deployment) -> ModuleType:
    return load_function(monkeypatch, "dlq", deployment.env())


def invoke_dlq(function: ModuleType, deployment: Deployment, messages: list[Any]) -> dict[str, Any]:
    dlq = deployment.names.dlq_url
    response: dict[str, Any] = function.handler(
        sqs_event(deployment.sqs, dlq, messages), lambda_context("a2a-dlq")
    )
    settle(deployment.sqs, dlq, messages, response)
    return response


def test_a_run_whose_workers_kept_dying_reaches_the_dlq_and_fails_its_task(
    monkeypatch: pytest.MonkeyPatch, local_aws: EmulatedAws, deployment: Deployment
) -> None:
    # The production queue settings, except that a failed receive is visible again at once.
    queue, dlq = create_queues(
        local_aws.clients.sqs, f"runs-{uuid.uuid4().hex[:8]}", QueueSpec(worker_timeout_seconds=0)
    )
    deployment = Deployment(local_aws, replace(deployment.names, queue_url=queue, dlq_url=dlq))
    env = deployment.env(A2A_AGENT=f"{__name__}:dies", A2A_LEASE_SECONDS="0.01")
    worker = load_function(monkeypatch, "worker", env)
    worker.worker.redelivery_margin = 0.0  # each claim has its message back when its lease ends
    task_id = deployment.start_task("hi")

    for receive_number in range(1, QUEUE.max_receive_count + 1):
        messages = receive_within(deployment.sqs, queue, 5)
        assert receive_count(messages[0]) == receive_number
        invoke_dying(worker, sqs_event(deployment.sqs, queue, messages))
        settle(deployment.sqs, queue, messages, None)
    # SQS moves it to the dead-letter queue instead, once it is visible again (the worker timed
    # it to its lease, in whole seconds).
    assert receive_within(deployment.sqs, queue, 3) == []
    head = deployment.head(task_id)
    assert head.state == TaskState.working
    assert head.run is not None
    assert head.run.attempt == QUEUE.max_receive_count

    dead = receive_within(deployment.sqs, dlq, 5)
    assert invoke_dlq(dlq_function(monkeypatch, deployment), deployment, dead) == {"batchItemFailures": []}
    task = deployment.task(task_id)
    assert task.status.state == TaskState.failed
    assert task.status.message is not None
    assert task.status.message.parts == [TextPart(text=DEAD_LETTER)]
    assert receive(deployment.sqs, dlq) == []  # consumed


def test_finished_malformed_and_live_dead_letters(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    finished, live = deployment.start_task("done"), deployment.start_task("busy")
    bodies = {
        RunOperation.model_validate_json(m["Body"]).task_id: m["Body"]
        for m in receive(deployment.sqs, deployment.names.queue_url)
    }
    asyncio.run(
        Worker(deployment.ledger, as_executor(echo)).handle(
            RunOperation.model_validate_json(bodies[finished])
        )
    )
    deployment.hold_turn(live)
    dlq = deployment.names.dlq_url
    for body in (bodies[finished], "{not a run operation", bodies[live]):
        deployment.sqs.send_message(QueueUrl=dlq, MessageBody=body)
    before = deployment.task(finished)

    dead = receive_within(deployment.sqs, dlq, 5)
    response = invoke_dlq(dlq_function(monkeypatch, deployment), deployment, dead)

    # Only the live worker's turn is kept, to be looked at again; the other two are acknowledged.
    assert failed_ids(response) == {m["MessageId"] for m in dead if m["Body"] == bodies[live]}
    assert deployment.task(finished) == before
    assert before.status.state == TaskState.completed
    assert deployment.head(live).state == TaskState.working
