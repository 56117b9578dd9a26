"""fasta2a workers hosted unchanged (`a2a_core.adapters.fasta2a`) by `a2a-serverless dev` on
embedded AWS (moto), served from ``.venv-executors/fasta2a`` (fasta2a 2.1.1 and pydantic-ai;
``make setup`` builds it): fasta2a's README worker and pydantic-ai's ``agent_to_a2a`` each hold a
two-task conversation with an a2a-sdk 1.3 client and with fasta2a's own client, dev SIGKILLed
and started again on its state directory between the two tasks (the next Lambda's fresh
process). And the adapter's own tests in that environment (tests/executors/fasta2a_hosting.py:
the harness with fresh workers, the worker Lambda handler on moto, a cancel through another API
instance).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from a2a.types import TaskState

from clients import sdk13
from clients.drivers import FASTA2A
from dev_server import STARTUP_TIMEOUT, TESTS_DIR, DevServer, with_tests_on_path
from support import missing_prerequisite

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

REPO = Path(__file__).resolve().parents[2]
PYTHON = REPO / ".venv-executors" / "fasta2a" / "bin" / "python"
WORKERS = {
    "readme-worker": (
        "executors.fasta2a_workers:ContextWorker",
        "Your context is 2 messages long; it began: {first}",
        "Your context is 4 messages long; it began: {first}",
    ),
    "agent_to_a2a": (
        "executors.fasta2a_workers:pydantic_ai_app",
        "1 prompts; the first: {first}",
        "2 prompts; the first: {first}",
    ),
}


class Restartable:
    """``dev`` serving a worker on one state directory, killed and started again at will."""

    def __init__(self, agent: str, state: Path, log: Path) -> None:
        self.agent, self.state, self.log = agent, state, log
        self.server: DevServer | None = None

    def start(self) -> str:
        env = with_tests_on_path(A2A_FASTA2A_COMPAT="true", CANCEL_LOG=str(self.log))
        self.server = DevServer(
            self.agent, "local", env, ["--state-dir", str(self.state)], python=str(PYTHON)
        )
        return self.server.wait_ready(STARTUP_TIMEOUT)

    def kill_and_restart(self) -> str:
        assert self.server is not None
        self.server.kill()  # SIGKILL: nothing of the process survives but the state directory
        return self.start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()


@pytest.fixture(params=list(WORKERS))
def worker(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Restartable, str, str]]:
    if not PYTHON.exists():
        missing_prerequisite(f"fasta2a's environment ({PYTHON.parent.parent}): run `make setup`")
    agent, first, later = WORKERS[request.param]
    dev = Restartable(agent, tmp_path / "state", tmp_path / "canceled.txt")
    try:
        yield dev, first, later
    finally:
        dev.stop()


async def test_an_sdk13_client_holds_a_conversation_across_a_restart(
    worker: tuple[Restartable, str, str],
) -> None:
    dev, first_answer, later_answer = worker
    url = dev.start()
    async with sdk13.connect(url) as client:
        first = await sdk13.send(client, sdk13.user_message("hello from sdk13"))
    assert first.status.state == TaskState.TASK_STATE_COMPLETED
    assert sdk13.status_text(first) == first_answer.format(first="hello from sdk13")
    url = dev.kill_and_restart()
    async with sdk13.connect(url) as client:
        later = await sdk13.send(client, sdk13.user_message("and again", context_id=first.context_id))
    assert later.status.state == TaskState.TASK_STATE_COMPLETED
    assert sdk13.status_text(later) == later_answer.format(first="hello from sdk13")


def test_fasta2as_client_holds_a_conversation_across_a_restart(worker: tuple[Restartable, str, str]) -> None:
    dev, first_answer, later_answer = worker
    url = dev.start()
    first = FASTA2A.one(url, "send", text="hello from fasta2a")
    assert (first["state"], first["text"]) == ("completed", first_answer.format(first="hello from fasta2a"))
    url = dev.kill_and_restart()
    later = FASTA2A.one(url, "send", text="and again", contextId=first["contextId"])
    assert (later["state"], later["text"]) == ("completed", later_answer.format(first="hello from fasta2a"))
    assert FASTA2A.one(url, "get", taskId=later["id"])["text"] == later["text"]


def test_the_adapters_tests_pass_in_fasta2as_environment() -> None:
    """The harness with fresh workers, the worker Lambda handler on moto, a cancel through
    another API instance (tests/executors/fasta2a_hosting.py)."""
    if not PYTHON.exists():
        missing_prerequisite(f"fasta2a's environment ({PYTHON.parent.parent}): run `make setup`")
    result = subprocess.run(  # noqa: S603 - our interpreter, our test file
        [
            str(PYTHON),
            "-m",
            "pytest",
            str(TESTS_DIR / "executors" / "fasta2a_hosting.py"),
            "-q",
            "-p",
            "no:cacheprovider",
            "--noconftest",  # the suite's conftest needs plugins the environment lacks
            "-o",
            "addopts=",
        ],
        cwd=REPO,
        env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout
    assert "skipped" not in result.stdout
