"""The hand-off on moto: the worker Lambda's handler, for a project whose turns are longer than
its invocation, launches the long-turn worker and leaves the message on the queue; the long-turn
worker (``python -m a2a_core.functions.long_worker``, a real process) runs the turn from the
launch's environment and deletes the message through its receipt."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from a2a_core.aws.lambdas import worker_handler
from a2a_core.aws.resources import ResourceNames
from a2a_core.compose import compose_worker
from a2a_core.compose.agent import load_agent
from a2a_core.compose.backends import build_adapters
from a2a_core.compose.long_turns import compose_hand_off
from a2a_core.core.broker import RunOperation
from a2a_core.core.turn.long_turns import LongTurnLaunch, TurnLauncher
from a2a_core.domain import TaskState
from a2a_core.emulator.moto_server import EmulatedAws
from a2a_core.settings import Settings
from aws_events import Deployment, failed_ids, lambda_context, receive, sqs_event

ECHO = "a2a_core.examples.echo:agent"
TESTS = Path(__file__).resolve().parents[2]


class Launches(TurnLauncher):
    def __init__(self) -> None:
        self.launched: list[LongTurnLaunch] = []

    async def launch(self, launch: LongTurnLaunch) -> None:
        self.launched.append(launch)


@pytest.fixture
def deployment(local_aws: EmulatedAws, aws_resources: ResourceNames) -> Deployment:
    return Deployment(local_aws, aws_resources)


def _messages_on(deployment: Deployment) -> int:
    attributes = deployment.sqs.get_queue_attributes(
        QueueUrl=deployment.names.queue_url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return sum(int(value) for value in attributes.values())


def _handler(deployment: Deployment, launcher: TurnLauncher, **env: str) -> Any:
    settings = Settings.from_env(deployment.env(A2A_AGENT=ECHO, **env))
    adapters = build_adapters(settings, deployment.aws.clients)
    worker = compose_worker(adapters, load_agent(ECHO))
    return worker_handler(worker, adapters.run_queue_messages, compose_hand_off(adapters, worker, launcher))


def test_a_long_turn_is_launched_left_on_the_queue_and_run_and_deleted_by_the_long_worker(
    deployment: Deployment,
) -> None:
    launcher = Launches()
    handler = _handler(deployment, launcher, A2A_MAX_TURN_SECONDS="3600")
    task_id = deployment.start_task("hello")
    messages = receive(deployment.sqs, deployment.names.queue_url)
    event = sqs_event(deployment.sqs, deployment.names.queue_url, messages)
    response = handler(event, lambda_context(remaining_ms=60_000))
    # Not run here, not deleted: the record is reported so the event source leaves its message.
    assert failed_ids(response) == {messages[0]["MessageId"]}
    assert deployment.task(task_id).status.state == TaskState.submitted
    (launch,) = launcher.launched
    assert launch.operation.task_id == task_id
    assert launch.receipt == messages[0]["ReceiptHandle"]
    assert launch.source is not None
    assert launch.source.endswith(deployment.names.queue_url.rsplit("/", 1)[1])
    assert _messages_on(deployment) == 1
    # The long-turn worker, as ECS (or dev) starts it: the launch in its environment.
    env = {**os.environ, **deployment.env(A2A_AGENT=ECHO, A2A_MAX_TURN_SECONDS="3600"), **launch.to_env()}
    done = subprocess.run(
        [sys.executable, "-m", "a2a_core.functions.long_worker"], env=env, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode()
    task = deployment.task(task_id)
    assert task.status.state == TaskState.completed
    assert _messages_on(deployment) == 0  # deleted through the launch's receipt


def test_a_project_whose_turns_fit_the_invocation_runs_them_on_the_lambda_worker(
    deployment: Deployment,
) -> None:
    launcher = Launches()
    handler = _handler(deployment, launcher, A2A_MAX_TURN_SECONDS="30")
    task_id = deployment.start_task("hello")
    messages = receive(deployment.sqs, deployment.names.queue_url)
    event = sqs_event(deployment.sqs, deployment.names.queue_url, messages)
    assert handler(event, lambda_context(remaining_ms=60_000)) == {"batchItemFailures": []}
    assert launcher.launched == []
    assert deployment.task(task_id).status.state == TaskState.completed


def test_the_long_worker_refuses_a_launch_it_cannot_read(deployment: Deployment) -> None:
    env = {**os.environ, **deployment.env(A2A_AGENT=ECHO), "A2A_LONG_TURN": "{not json"}
    done = subprocess.run(
        [sys.executable, "-m", "a2a_core.functions.long_worker"], env=env, capture_output=True, timeout=60
    )
    assert done.returncode == 2
    assert b"A2A_LONG_TURN is not a long-turn launch" in done.stderr


def test_launch_env_round_trips() -> None:
    launch = LongTurnLaunch(
        RunOperation(task_id="t", run_id="r"), source="arn:aws:sqs:us-east-1:1:q", receipt="x"
    )
    assert LongTurnLaunch.from_env(launch.to_env()) == launch
    asyncio.run(Launches().launch(launch))


def test_a_long_worker_told_to_stop_gives_its_turn_back_for_the_next_attempt_at_once(
    deployment: Deployment, tmp_path: Path
) -> None:
    """SIGTERM (ECS stopping the task: a Spot interruption, a scale-in) stops the agent, releases
    the lease and makes the message visible: the next delivery takes over without waiting a lease."""
    task_id = deployment.start_task("work 30")
    (message,) = receive(deployment.sqs, deployment.names.queue_url)
    queue_arn = deployment.sqs.get_queue_attributes(
        QueueUrl=deployment.names.queue_url, AttributeNames=["QueueArn"]
    )["Attributes"]["QueueArn"]
    launch = LongTurnLaunch(
        RunOperation.model_validate_json(message["Body"]), source=queue_arn, receipt=message["ReceiptHandle"]
    )
    log = tmp_path / "agent.log"
    env = {
        **os.environ,
        **deployment.env(A2A_AGENT="long_agent:agent", A2A_MAX_TURN_SECONDS="3600"),
        **launch.to_env(),
        "LONG_AGENT_LOG": str(log),
        "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
    }
    child = subprocess.Popen(
        [sys.executable, "-m", "a2a_core.functions.long_worker"], env=env, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 30
        while not (log.exists() and '"started"' in log.read_text()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert deployment.head(task_id).run.lease_until is not None  # type: ignore[union-attr]
        child.send_signal(signal.SIGTERM)
        _, stderr = child.communicate(timeout=30)
    finally:
        child.kill()
    assert child.returncode == 143, stderr.decode()
    assert '"stopped"' in log.read_text()
    head = deployment.head(task_id)
    assert head.state == TaskState.working
    assert head.run is not None
    assert (head.run.attempt, head.run.lease_until) == (1, None)  # given back, attempt kept
    (again,) = receive(deployment.sqs, deployment.names.queue_url)  # visible at once
    assert again["MessageId"] == message["MessageId"]
