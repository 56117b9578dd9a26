"""An Agent Framework project as ``a2a-serverless init --template agent-framework`` makes it, with no
edit, on its scripted chat client: a second task of a context sees the first task's messages
after ``dev`` was SIGKILLed and restarted on the same ``--state-dir`` (what the next Lambda
invocation looks like), and on a fresh worker per turn (``--worker fresh``: the worker Lambda
handler on moto, the agent imported anew), while another context is another conversation.

The project runs in the framework's environment (``.venv-frameworks/agent-framework``, built by
``make setup``), served over real sockets and driven by plain JSON-RPC."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from dev_server import STARTUP_TIMEOUT, DevServer
from support import missing_prerequisite

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
PYTHON = REPO / ".venv-frameworks" / "agent-framework" / "bin" / "python"
STARTUP = 6 * STARTUP_TIMEOUT  # a framework's first import compiles its bytecode
ASK = "What did I say first?"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not PYTHON.exists():
        missing_prerequisite(f"the agent-framework environment ({PYTHON.parent.parent}): run `make setup`")
    root = tmp_path_factory.mktemp("agent-framework") / "counter"
    init = [str(PYTHON), "-m", "a2a_core.cli", "init", str(root), "--template", "agent-framework"]
    subprocess.run([*init, "--kit-source", str(REPO)], check=True, capture_output=True, timeout=60)  # noqa: S603
    return root


def _dev(project: Path, *args: str) -> DevServer:
    env = {"PYTHONPATH": f"{project / 'tests'}:{project / 'src'}"}
    return DevServer("scripted:agent", "local", env, args, python=str(PYTHON))


def _send(url: str, text: str, **fields: str) -> dict[str, Any]:
    message = {"role": "user", "messageId": str(uuid.uuid4()), "parts": [{"kind": "text", "text": text}]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {**message, **fields}}}
    answer: dict[str, Any] = httpx.post(url, json=body, timeout=30).json()
    assert "error" not in answer, answer
    task: dict[str, Any] = answer["result"]
    assert task["status"]["state"] == "completed", task
    return task


def _answer(task: dict[str, Any]) -> str:
    return "".join(part["text"] for part in task["artifacts"][-1]["parts"])


def test_a_later_task_sees_the_first_tasks_messages_after_dev_was_killed(
    project: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    first_dev = _dev(project, "--state-dir", str(state))
    try:
        first = _send(first_dev.wait_ready(STARTUP), "the quick brown fox")
        assert _answer(first) == "That is 4 words."
    finally:
        first_dev.kill()
    second_dev = _dev(project, "--state-dir", str(state))
    try:
        url = second_dev.wait_ready(STARTUP)
        later = _send(url, ASK, contextId=first["contextId"])
        other = _send(url, ASK)
    finally:
        second_dev.stop()
    assert later["id"] != first["id"]
    assert _answer(later) == "You first said: the quick brown fox"
    assert _answer(other) == f"You first said: {ASK}"  # a new context starts its own conversation


def test_a_later_task_sees_the_first_ones_messages_on_a_fresh_worker(project: Path) -> None:
    server = _dev(project, "--worker", "fresh")
    try:
        url = server.wait_ready(STARTUP)
        first = _send(url, "the quick brown fox")
        later = _send(url, ASK, contextId=first["contextId"])
    finally:
        server.stop()
    assert _answer(later) == "You first said: the quick brown fox"
    # The template's executor keeps its conversations: hosting it warns of nothing.
    assert "history provider" not in server.output


def test_a_retried_turn_leaves_one_copy_of_its_messages_and_owners_keep_theirs() -> None:
    if not PYTHON.exists():
        missing_prerequisite(f"the agent-framework environment ({PYTHON.parent.parent}): run `make setup`")
    script = REPO / "tests" / "frameworks" / "agent_framework_retries.py"
    result = subprocess.run(  # noqa: S603
        [str(PYTHON), str(script)], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.splitlines()[-1])
    assert found["states"] == ["completed", "completed"]
    first_attempt, retried, later, another_callers = found["seen"]
    assert first_attempt == retried == ["user: first"]  # the retry saw nothing of the lost attempt
    assert later == ["user: first", "assistant: I got 1 messages.", "user: second"]  # once each
    assert another_callers == ["user: third"]  # the same contextId, another owner: nothing of theirs
    # The log keeps what each attempt appended (nothing rewritten); reads keep the latest attempt.
    assert found["entries"] == [
        [1, "user"],
        [1, "assistant"],
        [2, "user"],
        [2, "assistant"],
        [1, "user"],
        [1, "assistant"],
    ]


def test_dev_without_a_chat_client_says_so_in_one_line(project: Path) -> None:
    result = subprocess.run(  # noqa: S603
        [str(PYTHON), "-m", "a2a_core.cli", "dev", "--port", "0", "--fresh"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()  # no traceback
    assert line.startswith("a2a-serverless dev: no chat client: build one in agent() in agent.py")
