"""`a2a-serverless dev` in a project made by `init`: found from any folder inside it (or named with
--project), no --agent, no PYTHONPATH, the card from pyproject.toml; a wrong table is one line."""

from __future__ import annotations

import io
import os
import subprocess
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from a2a_core.cli import main
from a2a_core.client import A2AClient
from a2a_core.domain import Task
from a2a_core.testing import text_of
from dev_server import CONSOLE_SCRIPT, STARTUP_TIMEOUT, ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

KIT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    with redirect_stdout(io.StringIO()):
        assert (
            main(["init", str(tmp_path / "demo"), "--template", "multiturn", "--kit-source", str(KIT)]) == 0
        )
    return tmp_path / "demo"


def _dev(cwd: Path, *args: str) -> ServerProcess:
    """dev started in ``cwd`` as a user types it, with no PYTHONPATH (the e2e fixtures set one)."""
    command = (
        f"cd {cwd} && exec env -u PYTHONPATH {CONSOLE_SCRIPT} dev --backend memory --port 0 {' '.join(args)}"
    )
    return ServerProcess(f"dev in {cwd}", ["bash", "-c", command])


@pytest.mark.parametrize("where", ["src/demo", "--project"])
async def test_dev_serves_the_projects_agent_with_its_card(project: Path, tmp_path: Path, where: str) -> None:
    server = _dev(tmp_path, "--project", str(project)) if where == "--project" else _dev(project / where)
    try:
        url = server.wait_ready(STARTUP_TIMEOUT)
        async with A2AClient(url) as client:
            card = await client.get_card()
            first = await client.send_message("otters")
            assert isinstance(first, Task)
            assert first.status.state == "input-required"
            task = await client.send_message("beginners", task_id=first.id)
    finally:
        server.stop()
    assert (
        f"Agent:      demo.agent:agent ([tool.a2a-serverless] agent in {project / 'pyproject.toml'})"
        in server.output
    )
    assert (card.name, card.version, [skill.id for skill in card.skills]) == ("Demo", "0.1.0", ["outline"])
    assert isinstance(task, Task)
    assert task.status.state == "completed"
    assert task.status.message is not None
    assert text_of(task.status.message.parts) == "Done: the outline is written for beginners."


def test_a_project_naming_a_missing_agent_stops_dev_in_one_line(project: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace('agent = "demo.agent:agent"', 'agent = "demo.agent:main"')
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(  # noqa: S603 - the kit's own command
        [CONSOLE_SCRIPT, "dev", "--backend", "memory", "--port", "0"],
        cwd=project / "tests",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    named = f"([tool.a2a-serverless] agent in {pyproject})"
    module = f"demo.agent ({project / 'src' / 'demo' / 'agent.py'})"
    assert done.stderr == (
        f"a2a-serverless dev: cannot load agent 'demo.agent:main' {named}: "
        f"{module} has no attribute 'main'; the agents it defines: agent\n"
    )
