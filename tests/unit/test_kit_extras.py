"""A project that depends on the kit with an agent framework's extra (``a2a-serverless[adk]``)
imports what the extra brings, so the worker's bundle carries it, though the kit itself (and
what only the kit needs) is left out of the project's dependencies and bundled from what is
installed. Real projects on this checkout, locked (or resolved) by uv; the extra they ask for is
``pydantic-ai``, whose distributions are small and pure Python."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from a2a_core.bundling import closures
from a2a_core.bundling.plan import BundleOptions, BundlePlan
from a2a_core.bundling.requirements import agent_requirements, kit_pins, requirement_name
from a2a_core.bundling.uv import BundlingError, find_uv
from a2a_core.project import Project, load_project
from support import missing_prerequisite

KIT = Path(__file__).resolve().parents[2]
PYDANTIC_AI = {"pydantic-ai-slim", "pydantic-graph"}  # the extra's, and one of what it needs
# What only the kit needs (mangum, sse-starlette), or its own extras bring (aws: boto3, Powertools,
# joserfc; local, in the dev group: moto): none of it is the agent's.
KITS_OWN = {"a2a-serverless", "mangum", "sse-starlette", "boto3", "aws-lambda-powertools", "joserfc", "moto"}
GROUPS = """\
[dependency-groups]
dev = ["a2a-serverless[local]"]
agent = [{ include-group = "framework" }]
framework = ["a2a-serverless[pydantic-ai]"]
plain = ["iniconfig"]
"""


@pytest.fixture(scope="module")
def uv() -> str:
    try:
        return find_uv(KIT)
    except BundlingError as error:  # `make test` always has it (.tools/bin/uv)
        missing_prerequisite(str(error))


def _locked(root: Path, uv: str, dependencies: Sequence[str]) -> Project:
    """A project on this checkout, locked from the package index to the versions installed here (as
    ``uv sync`` leaves a user's environment): the worker's bundle holds the two to the same pins."""
    root.mkdir()
    (root / "bot.py").write_text("async def agent(context): ...\n")
    pins = kit_pins(closures.closure("worker").distributions)
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "bot"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
        f"dependencies = {json.dumps(list(dependencies))}\n\n{GROUPS}\n"
        f"[tool.uv]\nconstraint-dependencies = {json.dumps(pins)}\n\n"
        f'[tool.uv.sources]\na2a-serverless = {{ path = "{KIT}" }}\n\n'
        '[tool.a2a-serverless]\nagent = "bot:agent"\n'
    )
    lock = [uv, "lock", "--quiet", "--python", sys.executable]  # from the package index, as a user locks
    subprocess.run(lock, cwd=root, check=True, env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"})  # noqa: S603
    return load_project(root)


def _names(project: Project, uv: str) -> set[str]:
    lines = agent_requirements(project, uv, platform="aarch64", python_version="3.13", constraints=())
    return {requirement_name(line) for line in lines}


def _with_groups(project: Project, *groups: str) -> Project:
    return replace(project, config=project.config.model_copy(update={"dependency_groups": groups}))


def test_a_locked_project_gets_what_the_kits_extra_it_depends_on_brings(tmp_path: Path, uv: str) -> None:
    project = _locked(tmp_path / "bot", uv, ["a2a-serverless[aws,pydantic-ai]", "iniconfig"])
    names = _names(project, uv)
    assert {"iniconfig", *PYDANTIC_AI} <= names
    assert not KITS_OWN & names
    # Pinned as the lock pins them; the worker alone carries them.
    locked = tomllib.loads((project.root / "uv.lock").read_text())["package"]
    version = next(package["version"] for package in locked if package["name"] == "pydantic-ai-slim")
    plan = BundlePlan(project, BundleOptions(python_version="3.13"), uv=uv)
    assert f"pydantic-ai-slim=={version}" in plan.bundle("worker").requirements.splitlines()
    assert "pydantic-ai-slim" not in plan.bundle("api").requirements


def test_only_the_extras_of_the_named_dependency_groups_count(tmp_path: Path, uv: str) -> None:
    """The groups are the agent's dependencies then: the kit's extra in [project] dependencies
    (what the project runs on a laptop, say) is not, and neither is the dev group's."""
    project = _locked(tmp_path / "bot", uv, ["a2a-serverless[pydantic-ai]"])
    assert _names(project, uv) >= PYDANTIC_AI
    assert _names(_with_groups(project, "agent"), uv) >= PYDANTIC_AI  # through include-group
    assert _names(_with_groups(project, "plain"), uv) == {"iniconfig"}
    assert _names(_with_groups(project, "dev"), uv) == set()


def test_a_requirements_files_line_on_the_kit_brings_its_agent_extras(tmp_path: Path, uv: str) -> None:
    (tmp_path / "bot.py").write_text("async def agent(context): ...\n")
    (tmp_path / "pyproject.toml").write_text('[tool.a2a-serverless]\nagent = "bot:agent"\n')
    requirements = tmp_path / "requirements.txt"
    project = load_project(tmp_path)
    constraints = kit_pins(closures.closure("worker").distributions)

    def names(text: str) -> set[str]:
        requirements.write_text(text)
        found = agent_requirements(
            project, uv, platform="aarch64", python_version="3.13", constraints=constraints
        )
        return {requirement_name(line) for line in found}

    brought = names("iniconfig\na2a-serverless[pydantic-ai, aws]>=0.1  # the framework\n")
    assert {"iniconfig", *PYDANTIC_AI} <= brought
    assert not KITS_OWN & brought
    # The line's marker holds for what the extra brings: never on Python 2.
    assert names('iniconfig\na2a-serverless[pydantic-ai] ; python_version < "3"\n') == {"iniconfig"}


def test_an_extra_the_installed_kit_lacks_is_an_error(tmp_path: Path, uv: str) -> None:
    """uv only warns, and locks without it: the worker would miss what the agent imports."""
    project = _locked(tmp_path / "bot", uv, ["a2a-serverless[pydantic-ai,adks]"])
    with pytest.raises(
        BundlingError, match=r"pyproject\.toml asks for a2a-serverless\[adks\], but .* has no"
    ):
        _names(project, uv)
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("a2a-serverless[strand]\n")
    project = replace(project, config=project.config.model_copy(update={"requirements": str(requirements)}))
    with pytest.raises(
        BundlingError, match=r"requirements\.txt asks for a2a-serverless\[strand\].*it has .*strands"
    ):
        _names(project, uv)
