"""a2a-sdk 1.3 executors hosted unchanged by the worker Lambda handler (``A2A_AGENT`` names them
as they are), fed SQS events built from real messages on moto's queues; the API's side (sends,
cancels) goes through the engine on the same table, as the API function's would."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from types import ModuleType
from typing import Any

import pytest

from a2a_core.aws.resources import ResourceNames
from a2a_core.core.caller import Caller
from a2a_core.core.requests import SendRequest, TaskRef
from a2a_core.domain import Message, Role, Task, TaskState, TextPart
from a2a_core.emulator.moto_server import EmulatedAws
from aws_events import Deployment, lambda_context, load_function, receive, settle, sqs_event
from executors.sdk13 import QUESTION, draft


@pytest.fixture
def deployment(local_aws: EmulatedAws, aws_resources: ResourceNames) -> Deployment:
    return Deployment(local_aws, aws_resources)


def worker_function(monkeypatch: pytest.MonkeyPatch, deployment: Deployment, agent: str) -> ModuleType:
    return load_function(monkeypatch, "worker", deployment.env(A2A_AGENT=f"executors.sdk13:{agent}"))


def run_queued(function: ModuleType, deployment: Deployment) -> dict[str, Any]:
    """One invocation with what the queue holds (the message the API enqueued)."""
    messages = receive(deployment.sqs, deployment.names.queue_url)
    assert messages
    response: dict[str, Any] = function.handler(
        sqs_event(deployment.sqs, deployment.names.queue_url, messages), lambda_context()
    )
    settle(deployment.sqs, deployment.names.queue_url, messages, response)
    return response


def send(deployment: Deployment, text: str, *, task_id: str | None = None) -> tuple[SendRequest, str]:
    """Send a message as the API function would: stored, and its run enqueued. The request and task id."""
    message = Message(
        role=Role.user, parts=[TextPart(text=text)], message_id=str(uuid.uuid4()), task_id=task_id
    )
    request = SendRequest(message=message, blocking=False)
    submission = asyncio.run(deployment.engine.submit(request, Caller()))
    return request, submission.operation.task_id


def texts(task: Task) -> list[str]:
    return [part.text for m in task.history or [] for part in m.parts if isinstance(part, TextPart)]


def chunks(task: Task, name: str) -> list[str]:
    return [
        p.text for a in task.artifacts or [] if a.name == name for p in a.parts if isinstance(p, TextPart)
    ]


def test_the_hello_world_executor_answers_and_its_answer_is_durable(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    worker = worker_function(monkeypatch, deployment, "hello")
    request, _ = send(deployment, "hi")
    assert run_queued(worker, deployment) == {"batchItemFailures": []}
    answer = asyncio.run(deployment.engine.answer_message(request, Caller()))  # the client's retry
    assert isinstance(answer, Message)
    assert answer.parts == [TextPart(text="Hello World")]
    again = asyncio.run(deployment.engine.answer_message(request, Caller()))
    assert again == answer
    assert receive(deployment.sqs, deployment.names.queue_url) == []  # nothing more to run


def test_the_draft_executor_takes_two_turns_through_two_invocations(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    worker = worker_function(monkeypatch, deployment, "draft")
    _, task_id = send(deployment, "story chunks=2")
    assert run_queued(worker, deployment) == {"batchItemFailures": []}
    waiting = deployment.task(task_id)
    assert waiting.status.state == TaskState.input_required
    assert texts(waiting) == ["story chunks=2", "Drafting...", QUESTION]
    assert chunks(waiting, "draft") == ["part 0 ", "part 1 "]

    send(deployment, "children", task_id=task_id)
    worker = worker_function(monkeypatch, deployment, "draft")  # another container, cold
    assert run_queued(worker, deployment) == {"batchItemFailures": []}
    done = deployment.task(task_id)
    assert done.status.state == TaskState.completed
    assert texts(done)[-2:] == ["children", "Done: written for children."]
    assert chunks(done, "final") == ["Final version, for children."]


def test_a_cancel_served_elsewhere_reaches_the_executor_this_invocation_runs(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    worker = worker_function(monkeypatch, deployment, "draft")
    _, task_id = send(deployment, "long chunks=400 delay=0.05")
    invocation = threading.Thread(target=run_queued, args=(worker, deployment))
    invocation.start()
    try:
        deadline = time.monotonic() + 30
        while len(chunks(deployment.task(task_id), "draft")) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        canceled = asyncio.run(deployment.engine.cancel_task(TaskRef(task_id), Caller()))  # the API's
        assert canceled.status.state == TaskState.canceled
    finally:
        invocation.join(30)
    assert not invocation.is_alive()  # the run stopped: not 400 chunks later
    task = deployment.task(task_id)
    assert task.status.state == TaskState.canceled
    assert len(chunks(task, "draft")) < 400
    assert task_id in draft.canceled  # the executor's cancel() ran, in the worker
