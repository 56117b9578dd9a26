"""a2a-sdk executors hosted unchanged by `a2a-serverless dev` (embedded AWS: moto), driven by an
unmodified a2a-sdk 1.3 client over real sockets: A2A 1.0 over JSON-RPC and HTTP+JSON, and 0.3
JSON-RPC (its 0.3 compatibility transport).

Each executor of `executors` runs in the environment of its a2a-sdk: `executors.sdk13` in this
one (a2a-sdk 1.3), `executors.sdk03` in ``.venv-executors/a2a-sdk-0.3`` (``make setup`` builds
it; missing, these tests fail under CI). The two keep one contract, so each test runs on both:
a2a-sdk's hello world answers with a bare Message; `DraftExecutor` streams its draft, asks for
the audience, completes on the reply, and honours a cancel, which another request serves while
the dev server's worker runs the executor.
"""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from a2a.client import BaseClient
from a2a.types import CancelTaskRequest, GetTaskRequest, Task, TaskState

from clients import sdk13
from dev_server import STARTUP_TIMEOUT, DevServer, with_tests_on_path
from support import missing_prerequisite

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

REPO = Path(__file__).resolve().parents[2]
ENVIRONMENTS = {
    "a2a-sdk-1.3": ("executors.sdk13", Path(sys.executable)),
    "a2a-sdk-0.3": ("executors.sdk03", REPO / ".venv-executors" / "a2a-sdk-0.3" / "bin" / "python"),
}
QUESTION = "Who is the audience?"
# How the client reaches the server: each 1.0 binding, and 0.3 JSON-RPC.
CONNECTIONS = {"jsonrpc": (sdk13.JSONRPC, None), "rest": (sdk13.REST, None), "v0.3": (sdk13.JSONRPC, "0.3")}


@pytest.fixture(scope="module", params=list(ENVIRONMENTS))
def environment(request: pytest.FixtureRequest) -> tuple[str, Path]:
    module, python = ENVIRONMENTS[request.param]
    if not python.exists():
        missing_prerequisite(f"{request.param}'s environment ({python.parent.parent}): run `make setup`")
    return module, python


@pytest.fixture(scope="module")
def cancel_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where `DraftExecutor.cancel` notes each task it was told to cancel (in the server)."""
    return tmp_path_factory.mktemp("executors") / "canceled.txt"


def _serve(agent: str, python: Path, **env: str) -> Iterator[str]:
    server = DevServer(agent, "local", with_tests_on_path(**env), python=str(python))
    try:
        yield server.wait_ready(STARTUP_TIMEOUT)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def hello_server(environment: tuple[str, Path]) -> Iterator[str]:
    module, python = environment
    yield from _serve(f"{module}:hello", python)


@pytest.fixture(scope="module")
def draft_server(environment: tuple[str, Path], cancel_log: Path) -> Iterator[str]:
    module, python = environment
    yield from _serve(f"{module}:draft", python, CANCEL_LOG=str(cancel_log))


@pytest.fixture(params=list(CONNECTIONS))
def connection(request: pytest.FixtureRequest) -> tuple[str, str | None]:
    return CONNECTIONS[request.param]


def _text(message: object) -> str:
    return sdk13.text_of(message.parts)  # type: ignore[attr-defined]


async def test_the_hello_world_executor_answers_with_a_message(
    hello_server: str, connection: tuple[str, str | None]
) -> None:
    binding, version = connection
    async with sdk13.connect(hello_server, binding=binding, version=version) as client:
        (answer,) = await sdk13.collect(client.send_message(sdk13.request(sdk13.user_message("hi"))))
    assert answer.HasField("message"), answer
    assert _text(answer.message) == "Hello World"
    async with sdk13.connect(hello_server, binding=binding, streaming=True, version=version) as client:
        events = await sdk13.collect(client.send_message(sdk13.request(sdk13.user_message("hi"))))
    assert [event.WhichOneof("payload") for event in events] == ["message"]
    assert _text(events[0].message) == "Hello World"


async def test_the_draft_executor_streams_asks_and_completes_on_the_reply(
    draft_server: str, connection: tuple[str, str | None]
) -> None:
    binding, version = connection
    async with sdk13.connect(draft_server, binding=binding, streaming=True, version=version) as client:
        events = await sdk13.collect(client.send_message(sdk13.request(sdk13.user_message("story chunks=3"))))
    task = sdk13.fold(events)
    assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert sdk13.status_text(task) == QUESTION
    chunks = [_text(e.artifact_update.artifact) for e in events if e.HasField("artifact_update")]
    assert chunks == ["part 0 ", "part 1 ", "part 2 "]
    async with sdk13.connect(draft_server, binding=binding, version=version) as client:
        done = await sdk13.send(
            client, sdk13.user_message("children", task_id=task.id, context_id=task.context_id)
        )
        stored = await client.get_task(GetTaskRequest(id=task.id))
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert sdk13.status_text(done) == "Done: written for children."
    assert sdk13.artifact_chunks(stored, "draft") == ["part 0 ", "part 1 ", "part 2 "]
    assert sdk13.artifact_chunks(stored, "final") == ["Final version, for children."]


async def test_a_cancel_reaches_the_executor_the_worker_runs(draft_server: str, cancel_log: Path) -> None:
    async with sdk13.connect(draft_server) as client:
        started = await sdk13.send(
            client, sdk13.user_message(f"long {uuid.uuid4()} chunks=400 delay=0.05"), return_immediately=True
        )
        await _until(client, started.id, lambda task: len(sdk13.artifact_chunks(task, "draft")) >= 2)
        canceled = await client.cancel_task(CancelTaskRequest(id=started.id))
        assert canceled.status.state == TaskState.TASK_STATE_CANCELED
        await _until_logged(cancel_log, started.id)  # the executor's cancel() ran, in the worker
        settled = await client.get_task(GetTaskRequest(id=started.id))
        await asyncio.sleep(0.5)
        later = await client.get_task(GetTaskRequest(id=started.id))
    assert later.status.state == TaskState.TASK_STATE_CANCELED
    assert len(sdk13.artifact_chunks(later, "draft")) == len(sdk13.artifact_chunks(settled, "draft")) < 400


async def _until(
    client: BaseClient, task_id: str, done: Callable[[Task], bool], timeout: float = 20.0
) -> Task:
    deadline = time.monotonic() + timeout
    while True:
        task = await client.get_task(GetTaskRequest(id=task_id))
        if done(task):
            return task
        assert time.monotonic() < deadline, task
        await asyncio.sleep(0.05)


async def _until_logged(log: Path, task_id: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while task_id not in await asyncio.to_thread(_lines, log):
        assert time.monotonic() < deadline, f"the executor's cancel() never ran for {task_id}"
        await asyncio.sleep(0.05)


def _lines(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []
