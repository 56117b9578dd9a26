"""The adk, strands and agent-framework projects as ``init`` makes them, through the worker Lambda
handler on moto:
each turn in another worker instance (the handler imported afresh, the project's executor built
anew), so only what the store keeps carries over. Runs in a framework's environment
(``FRAMEWORK_TEMPLATE=adk|strands|agent-framework`` picks the project);
``tests/e2e/test_framework_sessions.py`` runs it.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from a2a_core.core.caller import Caller
from a2a_core.core.requests import SendRequest
from a2a_core.domain import DataPart, Message, Part, Role, Task, TaskState, TextPart
from a2a_core.emulator.moto_server import EmulatedAws, create_resources
from aws_events import Deployment, lambda_context, load_function, receive, settle, sqs_event

pytest_plugins = ["frameworks.stores"]  # the emulator
pytestmark = pytest.mark.filterwarnings(r"ignore:\[EXPERIMENTAL\]:UserWarning")

REPO = Path(__file__).resolve().parents[2]
# What each project's scripted model is asked first and later, and its memory's answer.
ASKED = {
    "agent-framework": ("the quick brown fox", "What did I say first?"),
    "adk": ("count the quick brown fox", "What did I ask first?"),
    "strands": ("count the quick brown fox", "What did I ask first?"),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The project ``init`` makes, on the path; its template's name."""
    template = os.environ["FRAMEWORK_TEMPLATE"]
    root = tmp_path_factory.mktemp("project") / "counter"
    subprocess.run(  # noqa: S603 - our interpreter and CLI
        [
            sys.executable,
            "-m",
            "a2a_core.cli",
            "init",
            str(root),
            "--template",
            template,
            "--kit-source",
            str(REPO),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    sys.path[:0] = [str(root / "tests"), str(root / "src")]
    return template


@pytest.fixture
def deployment(emulator: EmulatedAws) -> Deployment:
    return Deployment(emulator, create_resources(emulator.clients, prefix=None, region=emulator.region))


def fresh_worker(monkeypatch: pytest.MonkeyPatch, deployment: Deployment) -> ModuleType:
    """A new worker instance: the handler imported afresh (a cold start), the executor built anew."""
    return load_function(monkeypatch, "worker", deployment.env(A2A_AGENT="scripted:agent"))


def send(
    deployment: Deployment, part: Part, *, task_id: str | None = None, context_id: str | None = None
) -> str:
    """Send as the API function would (stored, its run enqueued); the task's id."""
    message = Message(
        role=Role.user, parts=[part], message_id=str(uuid.uuid4()), task_id=task_id, context_id=context_id
    )
    submission = asyncio.run(deployment.engine.submit(SendRequest(message=message, blocking=False), Caller()))
    return submission.operation.task_id


def run_queued(worker: ModuleType, deployment: Deployment) -> None:
    messages = receive(deployment.sqs, deployment.names.queue_url)
    assert messages
    response: dict[str, Any] = worker.handler(
        sqs_event(deployment.sqs, deployment.names.queue_url, messages), lambda_context()
    )
    settle(deployment.sqs, deployment.names.queue_url, messages, response)
    assert response == {"batchItemFailures": []}


def task(deployment: Deployment, task_id: str) -> Task:
    return asyncio.run(deployment.ledger.view(task_id, history_length=50)).task


def answer(found: Task) -> str:
    assert found.artifacts, found
    return "".join(p.text for p in found.artifacts[-1].parts if isinstance(p, TextPart))


def test_each_turn_on_a_fresh_worker_instance(
    project: str, monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    first_text, later_text = ASKED[project]
    first_id = send(deployment, TextPart(text=first_text))
    run_queued(fresh_worker(monkeypatch, deployment), deployment)
    first = task(deployment, first_id)
    if project == "strands":
        assert first.status.state == TaskState.input_required
        (data,) = [p for p in first.status.message.parts if isinstance(p, DataPart)]  # type: ignore[union-attr]
        (pending,) = data.data["interrupts"]
        approval = {"interruptResponse": {"interruptId": pending["interruptId"], "response": "yes"}}
        send(deployment, DataPart(data=approval), task_id=first_id, context_id=first.context_id)
        run_queued(fresh_worker(monkeypatch, deployment), deployment)  # the reply, in another instance
        first = task(deployment, first_id)
    assert first.status.state == TaskState.completed
    assert answer(first) == "That is 4 words."
    later_id = send(deployment, TextPart(text=later_text), context_id=first.context_id)
    run_queued(fresh_worker(monkeypatch, deployment), deployment)
    later = task(deployment, later_id)
    assert later.status.state == TaskState.completed
    assert answer(later) == f"You first said: {first_text}"
