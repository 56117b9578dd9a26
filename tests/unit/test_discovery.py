"""Agent discovery: the agent a project names is found from any folder inside it and imported with
the project's code on sys.path (no PYTHONPATH), and what cannot be imported says why and where."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from a2a_core.discovery import AgentLoadError, AgentRef, find_agent, import_agent
from a2a_core.project import ProjectError, ProjectNotFoundError
from a2a_core.testing import project_agent, run_agent

AGENT = """\
from a2a_core import Agent, TaskContext


async def agent(ctx: TaskContext) -> str:
    return f"{ctx.text} from the project"


async def other(ctx: TaskContext) -> str:
    return "the other one"


class Writer(Agent):
    async def run(self, ctx: TaskContext) -> str:
        return "written"


class Drafter(Agent):
    def __init__(self, model: str) -> None:
        self.model = model

    async def run(self, ctx: TaskContext) -> str:
        return "drafted"


def plain(ctx: TaskContext) -> str:
    return "not async"


writer = Writer()
NOT_AN_AGENT = 42
"""


@pytest.fixture(autouse=True)
def clean_imports() -> Iterator[None]:
    """The projects' modules a test imports, and the roots it puts on sys.path, are gone after it
    (the kit's own modules stay: importing them twice would make two of each class)."""
    path = list(sys.path)
    yield
    sys.path[:] = path
    for name in [name for name in sys.modules if name.startswith(("proj_", "mod_"))]:
        del sys.modules[name]


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, str]:
    """A project laid out as `a2a-serverless init` does (src/<package>), with a unique package."""
    package = f"proj_{uuid.uuid4().hex[:8]}"
    code = tmp_path / "src" / package
    code.mkdir(parents=True)
    (code / "__init__.py").write_text("")
    (code / "agent.py").write_text(AGENT)
    table = f'[tool.a2a-serverless]\nagent = "{package}.agent:agent"\nname = "Demo"\n'
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "demo"\nversion = "2.0.0"\n\n{table}')
    return tmp_path, package


@pytest.mark.anyio
async def test_the_projects_agent_is_found_from_a_subfolder_and_imported_without_pythonpath(
    project: tuple[Path, str],
) -> None:
    root, package = project
    ref = find_agent(start=root / "src" / package)
    assert ref.spec == f"{package}.agent:agent"
    assert ref.roots == (root / "src",)
    assert ref.project is not None
    assert ref.project.card_environment()["A2A_NAME"] == "Demo"
    assert (
        ref.describe() == f"{package}.agent:agent ([tool.a2a-serverless] agent in {root / 'pyproject.toml'})"
    )
    async with run_agent(import_agent(ref)) as harness:
        assert (await harness.send("hello")).text == "hello from the project"


@pytest.mark.anyio
async def test_the_testing_helper_serves_the_projects_agent(
    project: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = project
    monkeypatch.chdir(root / "src")
    async with run_agent() as harness:  # no agent: the project's
        assert (await harness.send("hi")).text == "hi from the project"
    async with run_agent(project_agent(root)) as harness:
        assert (await harness.send("hey")).text == "hey from the project"


def test_outside_a_project_the_testing_helper_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(ProjectNotFoundError, match=r"no a2a-serverless project found.*a2a-serverless init"):
        project_agent(tmp_path)


def test_another_agent_of_the_project_keeps_its_code_importable(project: tuple[Path, str]) -> None:
    root, package = project
    ref = find_agent(f"{package}.agent:writer", start=root)
    assert (ref.roots, ref.named_by) == ((root / "src",), "--agent")
    import_agent(ref)
    installed = find_agent("a2a_core.examples.multiturn:agent", start=root)  # not the project's code
    assert installed.roots == (root / "src",)


def test_outside_a_project_the_echo_example_is_served_and_the_folder_is_importable(tmp_path: Path) -> None:
    default = find_agent(start=tmp_path)
    assert default.spec == "a2a_core.examples.echo:agent"
    assert f"no [tool.a2a-serverless] table in {tmp_path} or above" in default.named_by
    module = f"mod_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{module}.py").write_text(AGENT)
    given = find_agent(f"{module}:agent", start=tmp_path)
    assert given.roots == (tmp_path,)  # as uvicorn's default --app-dir
    import_agent(given)


def test_a_project_dir_without_the_table_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    with pytest.raises(
        ProjectError, match=r"has no \[tool\.a2a-serverless\] table: add one naming your agent"
    ):
        find_agent(project_dir=tmp_path)


@pytest.mark.parametrize(
    ("attribute", "says"),
    [
        ("agnet", r"has no attribute 'agnet'; the agents it defines: agent, other, Writer, Drafter, writer"),
        ("Drafter", r"Drafter cannot be made without arguments \(.*\): name an instance of it"),
        ("plain", r"is a plain function; an agent is an async function: async def plain\(ctx\)"),
        ("NOT_AN_AGENT", r"NOT_AN_AGENT is not an agent; name an async function taking a TaskContext"),
    ],
)
def test_an_attribute_that_is_no_agent_is_named_with_what_the_module_has(
    project: tuple[Path, str], attribute: str, says: str
) -> None:
    root, package = project
    ref = find_agent(f"{package}.agent:{attribute}", start=root)
    with pytest.raises(
        AgentLoadError, match=rf"cannot load agent '{package}\.agent:{attribute}' \(--agent\): .*{says}"
    ):
        import_agent(ref)


def test_a_missing_module_says_where_it_was_looked_for(project: tuple[Path, str]) -> None:
    root, package = project
    with pytest.raises(AgentLoadError, match=rf"no module '{package}\.agnt' in the package {package} \("):
        import_agent(find_agent(f"{package}.agnt:agent", start=root))
    with pytest.raises(
        AgentLoadError, match=rf"no module 'elsewhere' in {root / 'src'} or among the installed"
    ):
        import_agent(AgentRef("elsewhere.agent:agent", (root / "src",)))
    with pytest.raises(
        AgentLoadError, match=r"\(A2A_AGENT\): no module 'elsewhere' among the installed packages"
    ):
        import_agent("elsewhere.agent:agent")


def test_a_dependency_the_agent_imports_is_named_with_how_to_install_it(project: tuple[Path, str]) -> None:
    root, package = project
    agent = root / "src" / package / "agent.py"
    agent.write_text("import not_installed_anywhere\n" + AGENT)
    with pytest.raises(
        AgentLoadError,
        match=rf"{package}\.agent imports 'not_installed_anywhere', which is not installed for "
        rf"{sys.executable}: run in the project's environment",
    ):
        import_agent(find_agent(start=root))
    agent.write_text(f"import {package}.helpers\n" + AGENT)
    sys.modules.pop(f"{package}.agent", None)
    with pytest.raises(AgentLoadError, match=rf"imports '{package}\.helpers', which does not exist"):
        import_agent(find_agent(start=root))


def test_an_error_inside_the_agents_module_keeps_its_traceback(project: tuple[Path, str]) -> None:
    root, package = project
    (root / "src" / package / "agent.py").write_text("raise RuntimeError('the module is broken')\n")
    with pytest.raises(RuntimeError, match="the module is broken"):
        import_agent(find_agent(start=root))
