"""Framework conversations that outlive the worker: the adk and strands projects as ``init`` makes
them, on their scripted models, served by ``a2a-serverless dev --state-dir S``; turn 1, dev
SIGKILLed, dev started again on S, turn 2 (what the next Lambda invocation looks like). And the
framework adapters' own tests (tests/frameworks/*_sessions.py), run in each framework's
environment on memory and on moto, and the projects (agent-framework's too) through the worker
Lambda handler with each turn in a freshly imported worker instance
(tests/frameworks/worker_lambda_sessions.py).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from a2a.types import TaskState

from clients import sdk13
from dev_server import TESTS_DIR, DevServer
from e2e.test_frameworks import (
    ADK,
    AGENT_FRAMEWORK,
    FRAMEWORK_STARTUP_TIMEOUT,
    REPO,
    STRANDS,
    Framework,
    _answer,
    _data,
    _data_message,
    make_project,
)

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


class Restartable:
    """``dev`` serving a project on one state directory, killed and started again at will."""

    def __init__(self, framework: Framework, project: Path, state: Path) -> None:
        self.framework = framework
        self.env = {"PYTHONPATH": f"{project / 'tests'}:{project / 'src'}"}
        self.state = state
        self.server: DevServer | None = None

    def start(self) -> str:
        args = ["--state-dir", str(self.state)]
        self.server = DevServer("scripted:agent", "local", self.env, args, python=str(self.framework.python))
        return self.server.wait_ready(FRAMEWORK_STARTUP_TIMEOUT)

    def kill_and_restart(self) -> str:
        assert self.server is not None
        self.server.kill()  # SIGKILL: nothing of the process survives but the state directory
        return self.start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()


@pytest.fixture
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Restartable]:
    framework: Framework = request.param
    dev = Restartable(framework, make_project(framework, tmp_path), tmp_path / "state")
    try:
        yield dev
    finally:
        dev.stop()


@pytest.mark.parametrize("served", list(ADK.values()), ids=list(ADK), indirect=True)
async def test_adk_a_later_task_after_a_restart_sees_the_first_tasks_messages(served: Restartable) -> None:
    url = served.start()
    async with sdk13.connect(url) as client:
        first = await sdk13.send(client, sdk13.user_message("count the quick brown fox"))
    assert first.status.state == TaskState.TASK_STATE_COMPLETED
    url = served.kill_and_restart()
    async with sdk13.connect(url) as client:
        later = await sdk13.send(
            client, sdk13.user_message("What did I ask first?", context_id=first.context_id)
        )
    assert _answer(later) == "You first said: count the quick brown fox"


@pytest.mark.parametrize("served", [STRANDS], ids=["strands"], indirect=True)
async def test_strands_an_approval_after_a_restart_completes_the_task(served: Restartable) -> None:
    url = served.start()
    async with sdk13.connect(url) as client:
        asked = await sdk13.send(client, sdk13.user_message("count the quick brown fox"))
    assert asked.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    interrupts = _data(asked.status.message)["interrupts"]
    assert isinstance(interrupts, list)
    (pending,) = interrupts
    approval = {"interruptResponse": {"interruptId": pending["interruptId"], "response": "yes"}}
    url = served.kill_and_restart()
    async with sdk13.connect(url) as client:
        done = await sdk13.send(client, _data_message(approval, asked))
        assert done.status.state == TaskState.TASK_STATE_COMPLETED
        assert _answer(done) == "That is 4 words."
    url = served.kill_and_restart()
    async with sdk13.connect(url) as client:
        later = await sdk13.send(
            client, sdk13.user_message("What did I ask first?", context_id=asked.context_id)
        )
    assert _answer(later) == "You first said: count the quick brown fox"


@pytest.mark.parametrize(
    ("framework", "tests"),
    [
        *((f, "adk_sessions.py") for f in ADK.values()),
        (STRANDS, "strands_sessions.py"),
        *((f, "worker_lambda_sessions.py") for f in ADK.values()),
        (STRANDS, "worker_lambda_sessions.py"),
        (AGENT_FRAMEWORK, "worker_lambda_sessions.py"),
    ],
    ids=[
        *ADK,
        "strands",
        *(f"{name}-worker-lambda" for name in ADK),
        "strands-worker-lambda",
        "agent-framework-worker-lambda",
    ],
)
def test_the_framework_adapters_tests_pass_in_its_environment(framework: Framework, tests: str) -> None:
    """The adapters on memory and moto; the templates' projects through the worker Lambda
    handler, each turn in a freshly imported worker instance."""
    result = subprocess.run(  # noqa: S603 - our interpreter, our test file
        [
            str(framework.python),
            "-m",
            "pytest",
            str(TESTS_DIR / "frameworks" / tests),
            "-q",
            "-p",
            "no:cacheprovider",
            "--noconftest",  # the suite's conftest needs plugins the environment lacks
            "-o",
            "addopts=",
        ],
        cwd=REPO,
        env={**os.environ, "FRAMEWORK_TEMPLATE": framework.template},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout
    assert "skipped" not in result.stdout
