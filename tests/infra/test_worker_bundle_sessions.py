"""The worker's bundle carries the kit's modules the agent project imports (a framework's session
adapter: nothing of the worker's own reaches it), and no other function's bundle does."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from a2a_core.bundling.plan import BundleOptions, BundlePlan
from a2a_core.cli import main as cli
from a2a_core.project import load_project

KIT = Path(__file__).resolve().parents[2]
ADAPTERS = {
    "adk": ("a2a_core.adapters.adk", "a2a_core.adapters.adk.sessions", "a2a_core.core.turn.session_scope"),
    "strands": ("a2a_core.adapters.strands.repository", "a2a_core.adapters.strands.executor"),
    "agent-framework": ("a2a_core.adapters.agent_framework",),
}


def _plan(root: Path) -> BundlePlan:
    return BundlePlan(load_project(root), BundleOptions(python_version="3.13"), uv="uv")


@pytest.mark.parametrize("template", sorted(ADAPTERS))
def test_the_worker_bundles_the_session_adapter_a_template_imports(tmp_path: Path, template: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        cli(["init", str(tmp_path / "bot"), "--template", template, "--kit-source", str(KIT)])
    plan = _plan(tmp_path / "bot")
    worker = plan.spec("worker").kit_modules
    assert set(ADAPTERS[template]) <= set(worker)
    for function in ("api", "dlq"):
        adapters = {module for module in ADAPTERS[template] if module.startswith("a2a_core.adapters.")}
        assert not adapters & set(plan.spec(function).kit_modules), function


def test_a_module_of_the_kit_imported_anywhere_in_the_project_is_bundled(tmp_path: Path) -> None:
    """pydantic-ai's adapter, imported by a helper module beside the agent's."""
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "__init__.py").write_text("")
    (tmp_path / "bot" / "agent.py").write_text("from bot.model import agent\n")
    (tmp_path / "bot" / "model.py").write_text("from a2a_core.adapters import pydantic_ai\n\nagent = None\n")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "bot"\nversion = "0.1.0"\n\n[tool.a2a-serverless]\nagent = "bot.agent:agent"\n'
    )
    worker = _plan(tmp_path).spec("worker").kit_modules
    assert "a2a_core.adapters.pydantic_ai" in worker
    assert "a2a_core.adapters.adk" not in worker
