"""fasta2a workers hosted unchanged (`a2a_core.adapters.fasta2a`), in ``.venv-executors/fasta2a``
(``tests/e2e/test_hosted_fasta2a.py`` runs this file there, with ``--noconftest``): on the testing
harness with every turn on a freshly imported worker, and through the worker Lambda handler on
moto with a cancel served by another instance of the API function.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from fasta2a import Worker
from fasta2a.broker import InMemoryBroker
from fasta2a.pydantic_ai import AgentWorker
from fasta2a.schema import Message
from fasta2a.storage import InMemoryStorage
from pydantic_ai.messages import ModelMessage

# Imported here, before any test starts threads: a first import of it racing another thread's
# import can fail in CPython 3.11's module locks (a KeyError), as a cold-started handler did here.
import a2a_core.aws.lambdas  # noqa: F401
from a2a_core.adapters.fasta2a import TurnBroker, TurnStorage, WorkerAgent, context_type_of
from a2a_core.adapters.fasta2a.turn import HostedTurn, entered
from a2a_core.adapters.fasta2a.turn_storage import ENVELOPE
from a2a_core.adapters.resolve import is_agent, resolve_agent
from a2a_core.domain import DataPart, Task, TaskState, TaskStatus, TextPart
from a2a_core.emulator.moto_server import EmulatedAws, create_resources
from a2a_core.testing import AgentHarness
from aws_events import (
    Deployment,
    api_context,
    api_event,
    lambda_context,
    load_function,
    receive,
    redeliver,
    settle,
    sqs_event,
)
from executors.fasta2a_workers import ContextWorker, pydantic_ai_app

pytest_plugins = ["frameworks.stores"]  # the emulator
pytestmark = pytest.mark.anyio

WORKER = "executors.fasta2a_workers:ContextWorker"
PYDANTIC_AI = "executors.fasta2a_workers:pydantic_ai_app"


@pytest.fixture(autouse=True)
def cancel_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    log = tmp_path / "canceled.txt"
    monkeypatch.setenv("CANCEL_LOG", str(log))
    return log


# --- on the harness, each turn on a fresh worker ----------------------------------------------


async def test_the_readme_worker_carries_its_context_to_the_next_task() -> None:
    async with AgentHarness(WORKER, fresh_worker=True) as agent:
        first = await agent.send("hello there")
        later = await agent.send("again", context_id=first.context_id)
    assert (first.state, first.text) == (
        "completed",
        "Your context is 2 messages long; it began: hello there",
    )
    assert later.text == "Your context is 4 messages long; it began: hello there"
    assert _data(later.task) == {"messages": 4}
    assert [m.role.value for m in later.history] == ["user", "agent"]


async def test_agent_to_a2a_keeps_the_conversation_across_fresh_workers() -> None:
    async with AgentHarness(PYDANTIC_AI, fresh_worker=True) as agent:
        first = await agent.send("hello there")
        later = await agent.send("and again", context_id=first.context_id)
    assert first.text == "1 prompts; the first: hello there"
    assert later.text == "2 prompts; the first: hello there"
    assert later.task.artifacts is not None
    assert _text(later.task.artifacts[-1].parts) == "2 prompts; the first: hello there"


def test_a_worker_is_named_as_an_instance_its_class_a_factory_or_an_agent_to_a2a_app() -> None:
    instance = ContextWorker(broker=InMemoryBroker(), storage=InMemoryStorage())  # type: ignore[no-untyped-call]
    for named in (instance, ContextWorker, lambda: instance, pydantic_ai_app):
        hosted = resolve_agent(named)
        assert isinstance(hosted, WorkerAgent)
        assert isinstance(hosted.worker.storage, TurnStorage)
        assert isinstance(hosted.worker.broker, TurnBroker)
    assert is_agent(ContextWorker)
    assert is_agent(instance)
    assert not is_agent(Worker)  # fasta2a's abstract base, imported into a module, is no agent
    assert not is_agent(AgentWorker)  # nor its pydantic-ai worker (name the app, or a factory)
    assert context_type_of(ContextWorker) == list[Message]
    assert context_type_of(AgentWorker) == list[ModelMessage]


def test_a_worker_class_that_needs_more_than_a_broker_and_storage_says_how_to_name_it() -> None:
    with pytest.raises(TypeError, match="name an instance of it, or a function"):
        resolve_agent(AgentWorker)


class Twice(ContextWorker):
    """Says its ending twice, as fasta2a's loop does after a run_task that failed its task."""

    async def run_task(self, params: Any) -> None:
        await self.storage.update_task(params["id"], state="failed")
        await self.storage.update_task(params["id"], state="failed")


class Changes(ContextWorker):
    """Writes after the task ended: refused, and the task keeps its ending."""

    async def run_task(self, params: Any) -> None:
        await self.storage.update_task(params["id"], state="completed", new_messages=[_agent("done")])
        await self.storage.update_task(params["id"], state="working", new_messages=[_agent("more")])


async def test_saying_the_ending_again_writes_nothing() -> None:
    async with AgentHarness(Twice) as agent:
        task = await agent.send("hi")
    assert task.state == TaskState.failed


async def test_a_write_after_the_ending_is_refused_and_changes_nothing() -> None:
    async with AgentHarness(Changes, raise_agent_errors=False) as agent:
        task = await agent.send("hi")
    assert (task.state, task.text) == (TaskState.completed, "done")
    assert "has ended" in str(task.error)


FOUND = Task(id="task", context_id="ctx", status=TaskStatus(state=TaskState.working))


class Echoes(ContextWorker):
    """Says what its params carried besides the message."""

    async def run_task(self, params: Any) -> None:
        said = f"metadata={params.get('metadata')} modes={params.get('accepted_output_modes')}"
        await self.storage.update_task(params["id"], state="completed", new_messages=[_agent(said)])


async def test_run_task_gets_the_params_fasta2as_task_manager_would_give() -> None:
    async with AgentHarness(Echoes) as agent:
        task = await agent.send("hi", metadata={"trace": "t-1"})
    assert task.text == "metadata={'trace': 't-1'} modes=None"


class GivesUp(ContextWorker):
    """Cancels its own task through its broker, then says its cancel_task again (a no-op)."""

    async def run_task(self, params: Any) -> None:
        await self.broker.run_task(params)  # already running: nothing to schedule
        await self.broker.cancel_task({"id": params["id"]})
        await self.storage.update_task(params["id"], state="canceled")


async def test_a_worker_cancels_its_own_task_through_its_broker() -> None:
    async with AgentHarness(GivesUp) as agent:
        task = await agent.send("hi")
    assert task.state == TaskState.canceled


# A message with a part that holds nothing (no text, raw, url or data).
EMPTY_PART: Any = {"role": "agent", "parts": [{}], "message_id": "empty"}


class Strays(ContextWorker):
    """Writes what it may not, then ends its task: each refused write changes nothing."""

    async def run_task(self, params: Any) -> None:
        refused = []
        for call in (
            self.storage.update_task("another-task", state="completed"),
            self.storage.update_task(params["id"], state="bogus"),  # type: ignore[arg-type]
            self.storage.update_task(params["id"], state="working", new_messages=[EMPTY_PART]),
            self.storage.update_task(params["id"], state="submitted", new_messages=[_agent("again")]),
            self.storage.load_context("another-context"),
        ):
            try:
                await call
            except ValueError as error:
                refused.append(type(error).__name__)
        assert await self.storage.load_task("another-task") is None
        task = await self.storage.load_task(params["id"])
        assert task is not None
        assert task["status"]["state"] == "submitted"
        await self.storage.update_task(
            params["id"], state="completed", new_messages=[_agent(" ".join(refused))]
        )


async def test_writes_a_worker_may_not_make_are_refused_and_change_nothing() -> None:
    async with AgentHarness(Strays) as agent:
        task = await agent.send("hi")
    assert (task.state, task.text) == (TaskState.completed, " ".join(["ValueError"] * 5))
    assert [m.role.value for m in task.history] == ["user", "agent"]


class FakeTurn:
    """The parts of a turn's context the storage's context calls use: one context, in memory."""

    def __init__(self, run_id: str, stored: dict[str, Any]) -> None:
        self.run_id, self.context_id, self.task_id, self._stored = run_id, "ctx", "task", stored

    async def load_context(self) -> Any:
        return self._stored.get("value")

    async def change_context(self, fn: Any) -> Any:
        self._stored["value"] = fn(self._stored.get("value"))
        return self._stored["value"]


async def test_a_retried_turn_loads_the_context_as_the_turn_found_it() -> None:
    storage: TurnStorage[list[str]] = TurnStorage(list[str])
    stored: dict[str, Any] = {}
    for run, said in (("run-1", ["a"]), ("run-2", ["a", "b"])):
        with entered(HostedTurn(FakeTurn(run, stored), FOUND)):  # type: ignore[arg-type]
            await storage.update_context("ctx", said)
    # run-2's worker died after storing; its retry (the same run) starts from run-1's context.
    with entered(HostedTurn(FakeTurn("run-2", stored), FOUND)):  # type: ignore[arg-type]
        assert await storage.load_context("ctx") == ["a"]
        await storage.update_context("ctx", ["a", "b2"])
        with pytest.raises(ValueError, match="of context ctx"):
            await storage.load_context("another")
    assert stored["value"][ENVELOPE]["before"] == ["a"]
    with entered(HostedTurn(FakeTurn("run-3", stored), FOUND)):  # type: ignore[arg-type]
        assert await storage.load_context("ctx") == ["a", "b2"]


# --- through the worker Lambda handler on moto -----------------------------------------------


# The emulator's child process pipes and a loop of the API function's are collected during these
# tests (found with PYTHONTRACEMALLOC): not what they test.
LEAKS_OF_THE_EMULATOR_PROCESS = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


@pytest.fixture
def deployment(emulator: EmulatedAws) -> Deployment:
    return Deployment(emulator, create_resources(emulator.clients, prefix=None, region=emulator.region))


def fresh_worker(monkeypatch: pytest.MonkeyPatch, deployment: Deployment) -> ModuleType:
    """A new worker instance: the handler imported afresh (a cold start), the worker built anew."""
    return load_function(monkeypatch, "worker", deployment.env(A2A_AGENT=WORKER))


def run_queued(worker: ModuleType, deployment: Deployment) -> None:
    messages = receive(deployment.sqs, deployment.names.queue_url)
    assert messages
    response: dict[str, Any] = worker.handler(
        sqs_event(deployment.sqs, deployment.names.queue_url, messages), lambda_context()
    )
    settle(deployment.sqs, deployment.names.queue_url, messages, response)
    assert response == {"batchItemFailures": []}


def send(api: ModuleType, text: str, context_id: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {
        "kind": "message",
        "role": "user",
        "parts": [{"kind": "text", "text": text}],
        "messageId": str(uuid.uuid4()),
    }
    if context_id:
        message["contextId"] = context_id
    params = {"message": message, "configuration": {"blocking": False}}
    return call(api, "message/send", params)


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """The API Lambda process's event loop (Mangum runs each invocation on the thread's loop)."""
    loop = asyncio.new_event_loop()
    _LOOPS.append(loop)
    yield loop
    _LOOPS.remove(loop)
    loop.close()


_LOOPS: list[asyncio.AbstractEventLoop] = []


def call(api: ModuleType, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    asyncio.set_event_loop(_LOOPS[-1])  # a worker's asyncio.run (or a read's) left none set
    response = api.handler(api_event("apigw_rest_message_send.json", body), api_context())
    answer: dict[str, Any] = json.loads(response["body"])
    assert "result" in answer, answer
    result: dict[str, Any] = answer["result"]
    return result


@pytest.mark.usefixtures("loop")
@LEAKS_OF_THE_EMULATOR_PROCESS
def test_each_turn_on_a_fresh_worker_lambda(monkeypatch: pytest.MonkeyPatch, deployment: Deployment) -> None:
    api = load_function(monkeypatch, "api", deployment.env())
    first = send(api, "count me in")
    run_queued(fresh_worker(monkeypatch, deployment), deployment)
    later = send(api, "and me", context_id=first["contextId"])
    run_queued(fresh_worker(monkeypatch, deployment), deployment)
    done = deployment.task(later["id"])
    assert done.status.state == TaskState.completed
    assert done.status.message is not None
    assert _text(done.status.message.parts) == "Your context is 4 messages long; it began: count me in"


@pytest.mark.usefixtures("loop")
@LEAKS_OF_THE_EMULATOR_PROCESS
def test_a_turn_retried_after_its_worker_died_stores_its_context_once(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment, tmp_path: Path
) -> None:
    monkeypatch.setenv("DIED_ONCE", str(tmp_path / "died"))
    api = load_function(monkeypatch, "api", deployment.env())
    started = send(api, "count me once")
    dying = load_function(
        monkeypatch, "worker", deployment.env(A2A_AGENT="executors.fasta2a_workers:DiesOnce")
    )
    messages = receive(deployment.sqs, deployment.names.queue_url)
    response = dying.handler(
        sqs_event(deployment.sqs, deployment.names.queue_url, messages), lambda_context()
    )
    assert response["batchItemFailures"], response  # the run operation goes back to the queue
    assert (tmp_path / "died").read_text() == started["id"]
    redeliver(deployment.sqs, deployment.names.queue_url, messages)
    run_queued(fresh_worker(monkeypatch, deployment), deployment)  # the retry, on another worker
    done = deployment.task(started["id"])
    assert done.status.state == TaskState.completed
    assert done.status.message is not None
    assert _text(done.status.message.parts) == "Your context is 2 messages long; it began: count me once"
    later = send(api, "and again", context_id=started["contextId"])
    run_queued(fresh_worker(monkeypatch, deployment), deployment)
    answer = deployment.task(later["id"]).status.message
    assert answer is not None
    assert _text(answer.parts) == "Your context is 4 messages long; it began: count me once"


@pytest.mark.usefixtures("loop")
@LEAKS_OF_THE_EMULATOR_PROCESS
def test_a_cancel_served_by_another_api_instance_reaches_cancel_task(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment, cancel_log: Path
) -> None:
    api = load_function(monkeypatch, "api", deployment.env())
    started = send(api, "long 400")
    worker = fresh_worker(monkeypatch, deployment)
    running = threading.Thread(target=run_queued, args=(worker, deployment))
    running.start()
    _until(lambda: len(_chunks(deployment.task(started["id"]))) >= 2)
    other_api = load_function(monkeypatch, "api", deployment.env())  # another instance serves it
    canceled = call(other_api, "tasks/cancel", {"id": started["id"]})
    running.join(timeout=30)
    assert not running.is_alive()
    assert canceled["status"]["state"] == "canceled"
    assert cancel_log.read_text().split() == [started["id"]]
    task = deployment.task(started["id"])
    assert task.status.state == TaskState.canceled
    assert 2 <= len(_chunks(task)) < 400


@pytest.mark.usefixtures("loop")
@LEAKS_OF_THE_EMULATOR_PROCESS
def test_a_fasta2a_app_on_the_kits_storage_serves_a_task_through_mangum(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    app = load_app(monkeypatch, deployment)
    message = {"role": "user", "parts": [{"text": "hi from FastA2A"}], "messageId": str(uuid.uuid4())}
    sent = rpc(app, "message/send", {"message": message})["task"]
    assert sent["status"]["state"] == "submitted"
    run_worker_elsewhere(deployment)
    done = rpc(load_app(monkeypatch, deployment), "tasks/get", {"id": sent["id"]})  # a fresh API instance
    assert done["status"]["state"] == "completed"
    assert done["status"]["message"]["parts"] == [
        {"text": "Your context is 2 messages long; it began: hi from FastA2A"}
    ]
    assert done["artifacts"][0]["parts"] == [{"data": {"messages": 2}}]
    canceled = rpc(app, "tasks/cancel", {"id": sent["id"]})  # over: left as it is
    assert canceled["status"]["state"] == "completed"


@pytest.mark.usefixtures("loop")
@LEAKS_OF_THE_EMULATOR_PROCESS
def test_a_fasta2a_apps_stream_follows_the_task_the_worker_lambda_runs(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment
) -> None:
    app = load_app(monkeypatch, deployment)
    message = {"role": "user", "parts": [{"text": "long 3"}], "messageId": str(uuid.uuid4())}
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": {"message": message}}
    answers: list[dict[str, Any]] = []

    def stream() -> None:  # the API Lambda's invocation, answered once the stream ends
        asyncio.set_event_loop(asyncio.new_event_loop())
        answers.append(app.handler(api_event("apigw_rest_message_send.json", body), api_context()))
        asyncio.get_event_loop().close()

    streaming = threading.Thread(target=stream)
    streaming.start()
    _until(lambda: bool(receive_count_of(deployment)))
    run_worker_elsewhere(deployment)
    streaming.join(timeout=30)
    events = [json.loads(line[len("data: ") :])["result"] for line in answers[0]["body"].splitlines() if line]
    assert next(iter(events[0])) == "task"
    states = [e["statusUpdate"]["status"]["state"] for e in events if "statusUpdate" in e]
    assert states[-1] == "completed"
    final = [e for e in events if "statusUpdate" in e][-1]["statusUpdate"]["status"]["message"]
    assert final["parts"] == [{"text": "Your context is 2 messages long; it began: long 3"}]
    artifacts = {
        e["artifactUpdate"]["artifact"]["name"]: e["artifactUpdate"]["artifact"]
        for e in events
        if "artifactUpdate" in e
    }
    assert "".join(p["text"] for p in artifacts["draft"]["parts"]) == "part 0 part 1 part 2 "
    assert artifacts["length"]["parts"] == [{"data": {"messages": 2}}]


def receive_count_of(deployment: Deployment) -> int:
    """How many run operations wait in the queue (without taking them)."""
    attributes = deployment.sqs.get_queue_attributes(
        QueueUrl=deployment.names.queue_url, AttributeNames=["ApproximateNumberOfMessages"]
    )
    return int(attributes["Attributes"]["ApproximateNumberOfMessages"])


def run_worker_elsewhere(deployment: Deployment) -> None:
    """The worker Lambda in a process of its own: one batch of the run queue."""
    env = {**os.environ, **deployment.env(A2A_AGENT=WORKER), "PYTHONPATH": str(Path(__file__).parents[1])}
    worker = subprocess.run(  # noqa: S603 - our interpreter and script
        [sys.executable, str(Path(__file__).with_name("fasta2a_worker_once.py"))],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert worker.returncode == 0, worker.stderr
    assert json.loads(worker.stdout.splitlines()[-1]) == {"handled": 1, "response": {"batchItemFailures": []}}


def load_app(monkeypatch: pytest.MonkeyPatch, deployment: Deployment) -> ModuleType:
    """The FastA2A app's Lambda, cold-started: its module imported afresh with the deployment's settings."""
    for variable, value in deployment.env().items():
        monkeypatch.setenv(variable, value)
    spec = importlib.util.spec_from_file_location("fasta2a_app", Path(__file__).with_name("fasta2a_app.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rpc(app: ModuleType, method: str, params: dict[str, Any]) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    asyncio.set_event_loop(_LOOPS[-1])
    response = app.handler(api_event("apigw_rest_message_send.json", body), api_context())
    assert response["statusCode"] == 200, response
    answer = json.loads(response["body"])
    assert "result" in answer, answer
    return answer["result"]


def _until(done: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline
        time.sleep(0.05)


def _chunks(task: Task) -> list[Any]:
    drafts = [a for a in task.artifacts or [] if a.name == "draft"]
    return drafts[0].parts if drafts else []


def _agent(text: str) -> Any:
    return {"role": "agent", "parts": [{"text": text}], "message_id": str(uuid.uuid4())}


def _text(parts: Any) -> str:
    return "".join(p.text for p in parts if isinstance(p, TextPart))


def _data(task: Task) -> Any:
    parts = [p for a in task.artifacts or [] for p in a.parts if isinstance(p, DataPart)]
    return parts[0].data if parts else None


os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
