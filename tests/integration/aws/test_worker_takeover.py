"""Two worker Lambdas on one turn: the first one's lease (1 s) runs out while its agent (longer)
still works, a redelivery of the message takes the turn over, and the first worker's later writes
are refused: the task ends with the second run's output only."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType
from typing import Any

import pytest

from a2a_core.aws.resources import ResourceNames
from a2a_core.core.tasklog.records import ArtifactUpdated
from a2a_core.core.turn.executor import TaskContext
from a2a_core.domain import TaskState, TextPart
from a2a_core.emulator.moto_server import EmulatedAws
from aws_events import Deployment, failed_ids, lambda_context, load_function, receive, redeliver, sqs_event


class Runs:
    """What the agent's runs do, in the order the test lets them: run 1 writes a chunk and waits
    for run 2 to have started; run 2 writes its first chunk and waits for run 1's worker to end."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0
        self.first_wrote = threading.Event()
        self.second_wrote = threading.Event()
        self.first_ended = threading.Event()
        self.first_refused: list[str] = []


RUNS = Runs()


async def story_agent(ctx: TaskContext) -> str:
    with RUNS.lock:
        RUNS.count += 1
        run = RUNS.count
    artifact_id = await ctx.artifact(f"run {run}, chunk 1", name="story")
    if run == 1:
        RUNS.first_wrote.set()
        await asyncio.to_thread(RUNS.second_wrote.wait, 30)
        try:
            await ctx.artifact("run 1, chunk 2", artifact_id=artifact_id, append=True)
        except Exception as error:
            RUNS.first_refused.append(type(error).__name__)
            raise
    else:
        RUNS.second_wrote.set()
        await asyncio.to_thread(RUNS.first_ended.wait, 30)
        await ctx.artifact(f"run {run}, chunk 2", artifact_id=artifact_id, append=True, last_chunk=True)
    return f"run {run}'s story"


@pytest.fixture
def deployment(local_aws: EmulatedAws, aws_resources: ResourceNames) -> Deployment:
    return Deployment(local_aws, aws_resources)


def _worker(monkeypatch: pytest.MonkeyPatch, deployment: Deployment) -> ModuleType:
    env = deployment.env(A2A_AGENT=f"{__name__}:story_agent", A2A_LEASE_SECONDS="1")
    return load_function(monkeypatch, "worker", env)


def _wait(condition: Any, what: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"never happened: {what}")
        time.sleep(0.02)


def test_a_late_writer_is_refused_once_a_redelivery_took_its_turn_over(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    # Two containers of the worker function, each with its own clients.
    first, second = _worker(monkeypatch, deployment), _worker(monkeypatch, deployment)
    task_id = deployment.start_task("tell me a story")
    queue = deployment.names.queue_url
    messages = receive(deployment.sqs, queue)

    with ThreadPoolExecutor(2) as lambdas:
        one = lambdas.submit(first.handler, sqs_event(deployment.sqs, queue, messages), lambda_context())
        assert RUNS.first_wrote.wait(30)
        lease = deployment.head(task_id).run
        assert lease is not None
        assert lease.lease_until is not None
        _wait(lambda: time.time() > lease.lease_until, "the first lease ran out")
        redeliver(deployment.sqs, queue, messages)  # as if its visibility had run out too
        again = receive(deployment.sqs, queue)
        two = lambdas.submit(second.handler, sqs_event(deployment.sqs, queue, again), lambda_context())
        first_answer: dict[str, Any] = one.result(timeout=60)
        RUNS.first_ended.set()
        second_answer: dict[str, Any] = two.result(timeout=60)

    assert RUNS.first_refused == ["TurnLostError"]
    # The first worker keeps the message (the turn was the second's, not over yet); the second,
    # done, has it deleted.
    assert failed_ids(first_answer) == {messages[0]["MessageId"]}
    assert second_answer == {"batchItemFailures": []}
    task = deployment.task(task_id)
    assert task.status.state == TaskState.completed
    assert task.status.message is not None
    assert task.status.message.parts == [TextPart(text="run 2's story")]
    texts = [[p.text for p in a.parts if isinstance(p, TextPart)] for a in task.artifacts or []]
    assert texts == [["run 2, chunk 1", "run 2, chunk 2"]]
    # The log holds run 1's first chunk (replaced), never its second.
    log = asyncio.run(deployment.ledger.store.read(task_id))
    chunks = [
        p.text
        for c in log
        for e in c.events
        if isinstance(e, ArtifactUpdated)
        for p in e.artifact.parts
        if isinstance(p, TextPart)
    ]
    assert chunks == ["run 1, chunk 1", "run 2, chunk 1", "run 2, chunk 2"]
