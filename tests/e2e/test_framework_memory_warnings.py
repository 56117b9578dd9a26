"""Hosting a framework executor whose conversations live in process memory logs one warning at
startup naming the fix, in each framework's own environment (``.venv-frameworks/<name>``, built
by ``make setup``); an executor whose sessions persist logs none (`frameworks.memory_warnings`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from support import missing_prerequisite

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "tests" / "frameworks" / "memory_warnings.py"
FIX = "docs/frameworks.md#conversations-across-workers"


def _warnings(environment: str, framework: str) -> dict[str, list[str]]:
    python = REPO / ".venv-frameworks" / environment / "bin" / "python"
    if not python.exists():
        missing_prerequisite(f"the {environment} environment ({python.parent.parent}): run `make setup`")
    result = subprocess.run(  # noqa: S603
        [str(python), str(SCRIPT), framework], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr
    found: dict[str, list[str]] = json.loads(result.stdout.splitlines()[-1])
    return found


@pytest.mark.parametrize("environment", ["adk-1.3", "adk-0.3"])
def test_adk_on_an_in_memory_session_service_warns_once(environment: str) -> None:
    found = _warnings(environment, "adk")
    (line,) = found["in_memory"]
    assert line.startswith("WARNING the ADK Runner's session service is InMemorySessionService")
    assert FIX in line
    assert found["persisting"] == []


def test_strands_without_a_session_manager_warns_once() -> None:
    found = _warnings("strands", "strands")
    (single,) = found["single_agent"]
    assert "StrandsA2AExecutor(agent=...)" in single
    # agent_factory: told once the first turn has built a context's agent.
    (factory,) = found["factory"]
    assert "no session_manager" in factory
    assert FIX in single
    assert FIX in factory
    assert found["factory_with_session_manager"] == []


def test_agent_framework_without_a_persisting_history_provider_warns_once() -> None:
    found = _warnings("agent-framework", "agent-framework")
    (line,) = found["no_provider"]
    assert "history provider" in line
    assert FIX in line
    assert found["persisting_provider"] == []
