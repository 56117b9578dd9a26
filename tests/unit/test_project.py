"""The agent project read from pyproject.toml: found from any folder inside it, validated, and
wrong configurations refused with the file and the fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from a2a_core.project import (
    LockedDependencies,
    Project,
    ProjectError,
    ProjectNotFoundError,
    RequirementsFile,
    find_project,
    load_project,
)


def _project(root: Path, table: str, *, project: str = 'name = "demo"\nversion = "1.2.0"') -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(f"[project]\n{project}\n\n[tool.a2a-serverless]\n{table}\n")
    return root


def _package(root: Path, dotted: str) -> None:
    path = root
    for part in dotted.split("."):
        path = path / part
        path.mkdir(parents=True, exist_ok=True)
        (path / "__init__.py").write_text("")


def test_found_from_a_folder_deep_inside_the_project(tmp_path: Path) -> None:
    root = _project(tmp_path / "demo", 'agent = "demo.agent:agent"')
    _package(root, "demo.tools")
    project = find_project(root / "demo" / "tools")
    assert (project.root, project.agent, project.distribution) == (root, "demo.agent:agent", "demo")


def test_a_pyproject_without_the_table_is_passed_over_as_ruff_does(tmp_path: Path) -> None:
    root = _project(tmp_path, 'agent = "demo:agent"')
    (root / "libs" / "tool").mkdir(parents=True)
    (root / "libs" / "tool" / "pyproject.toml").write_text('[project]\nname = "tool"\n')
    assert find_project(root / "libs" / "tool").root == root


def test_no_table_anywhere_says_where_it_looked_and_what_to_add(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    with pytest.raises(ProjectNotFoundError) as raised:
        find_project(tmp_path)
    message = str(raised.value)
    assert str(tmp_path / "pyproject.toml") in message
    assert '[tool.a2a-serverless] agent = "my_package.agent:agent"' in message
    assert "a2a-serverless init DIR" in message
    assert "\n" not in message  # one line, as the command line prints it


@pytest.mark.parametrize("agent", ["echo", "demo.agent", "demo/agent:agent", ":agent", "demo:"])
def test_the_agent_is_package_module_colon_attribute(tmp_path: Path, agent: str) -> None:
    _project(tmp_path, f'agent = "{agent}"')
    with pytest.raises(
        ProjectError, match=r"pyproject\.toml: \[tool\.a2a-serverless\] agent: .*package\.module"
    ):
        load_project(tmp_path)


def test_unknown_keys_and_missing_agent_name_the_file(tmp_path: Path) -> None:
    _project(tmp_path, 'name = "Demo"\nagnet = "demo:agent"')
    with pytest.raises(ProjectError) as raised:
        load_project(tmp_path / "pyproject.toml")
    assert "agent: Field required" in str(raised.value)
    assert "agnet: Extra inputs are not permitted" in str(raised.value)


def test_the_agents_package_is_found_at_the_root_or_under_src(tmp_path: Path) -> None:
    flat = _project(tmp_path / "flat", 'agent = "demo.agent:agent"')
    _package(flat, "demo")
    assert load_project(flat).code_paths() == (flat / "demo",)
    assert load_project(flat).import_roots() == (flat,)
    src = _project(tmp_path / "src-layout", 'agent = "demo.agent:agent"')
    _package(src / "src", "demo")
    assert load_project(src).code_paths() == (src / "src" / "demo",)
    assert load_project(src).import_roots() == (src / "src",)
    single = _project(tmp_path / "single", 'agent = "bot:agent"')
    (single / "bot.py").write_text("async def agent(context): ...\n")
    assert load_project(single).code_paths() == (single / "bot.py",)


def test_a_missing_package_says_how_to_name_it(tmp_path: Path) -> None:
    _project(tmp_path, 'agent = "demo.agent:agent"')
    with pytest.raises(
        ProjectError, match=r'no demo/ package or demo\.py module .* packages = \["path/to/demo"\]'
    ):
        load_project(tmp_path).code_paths()


def test_named_packages_must_exist_and_hold_the_agent(tmp_path: Path) -> None:
    _package(tmp_path / "lib", "demo")
    _package(tmp_path, "helpers")
    good = _project(tmp_path, 'agent = "demo.agent:agent"\npackages = ["lib/demo", "helpers"]')
    assert load_project(good).code_paths() == (tmp_path / "lib" / "demo", tmp_path / "helpers")
    _project(tmp_path, 'agent = "demo.agent:agent"\npackages = ["helpers"]')
    with pytest.raises(ProjectError, match="the agent's package 'demo' is not among"):
        load_project(tmp_path).code_paths()
    _project(tmp_path, 'agent = "demo.agent:agent"\npackages = ["lib/demo", "nowhere"]')
    with pytest.raises(ProjectError, match=r"packages: nowhere are neither directories nor \.py files"):
        load_project(tmp_path).code_paths()


def test_the_kits_own_examples_need_no_package_of_the_project(tmp_path: Path) -> None:
    _project(tmp_path, 'agent = "a2a_core.examples.echo:agent"')
    assert load_project(tmp_path).code_paths() == ()


def test_dependencies_come_from_uv_lock_then_requirements(tmp_path: Path) -> None:
    _project(tmp_path, 'agent = "demo:agent"', project='name = "demo"\ndependencies = ["httpx"]')
    with pytest.raises(ProjectError, match=r"no uv\.lock to pin them: run `uv lock`"):
        load_project(tmp_path).dependency_source()
    (tmp_path / "requirements.txt").write_text("httpx==0.28.1\n")
    assert load_project(tmp_path).dependency_source() == RequirementsFile(tmp_path / "requirements.txt")
    (tmp_path / "uv.lock").write_text("")
    assert load_project(tmp_path).dependency_source() == LockedDependencies(tmp_path / "uv.lock")
    _project(tmp_path, 'agent = "demo:agent"\ndependency-groups = ["agent"]')
    assert load_project(tmp_path).dependency_source() == LockedDependencies(tmp_path / "uv.lock", ("agent",))
    _project(tmp_path, 'agent = "demo:agent"\nrequirements = "deps/lambda.txt"')
    with pytest.raises(ProjectError, match=r"requirements: .*deps/lambda\.txt does not exist"):
        load_project(tmp_path).dependency_source()


def test_a_project_needing_only_the_kit_has_no_dependencies_to_lock(tmp_path: Path) -> None:
    _project(
        tmp_path, 'agent = "demo:agent"', project='name = "demo"\ndependencies = ["a2a-serverless[aws]"]'
    )
    assert load_project(tmp_path).dependency_source() is None


def test_the_card_comes_from_the_table_and_the_projects_version(tmp_path: Path) -> None:
    table = (
        'agent = "demo:agent"\nname = "Demo"\ndescription = "Says hello."\n'
        '[[tool.a2a-serverless.skills]]\nid = "hello"\nname = "Hello"\ndescription = "Greets."\n'
        'tags = ["greeting"]\ninput-modes = ["text/plain"]'
    )
    _project(tmp_path, table)
    environment = load_project(tmp_path).card_environment()
    assert json.loads(environment.pop("A2A_SKILLS")) == [
        {
            "id": "hello",
            "name": "Hello",
            "description": "Greets.",
            "tags": ["greeting"],
            "inputModes": ["text/plain"],
        }
    ]
    assert environment == {"A2A_NAME": "Demo", "A2A_DESCRIPTION": "Says hello.", "A2A_VERSION": "1.2.0"}


def test_a_misspelt_skill_key_is_refused_not_dropped(tmp_path: Path) -> None:
    _project(
        tmp_path,
        'agent = "demo:agent"\nskills = [{ id = "a", name = "A", description = "B", exampels = [] }]',
    )
    with pytest.raises(ProjectError, match=r"skills: unknown key 'exampels' \(a skill has id, name"):
        load_project(tmp_path)


def test_with_agent_serves_another_agent_of_the_same_project(tmp_path: Path) -> None:
    _project(tmp_path, 'agent = "demo:agent"\nname = "Demo"')
    project: Project = load_project(tmp_path).with_agent("demo.other:agent")
    assert (project.agent, project.config.name) == ("demo.other:agent", "Demo")
    with pytest.raises(ProjectError, match="agent"):
        project.with_agent("not an agent")


def test_max_turn_seconds_reaches_the_functions_and_a_bad_one_names_the_key(tmp_path: Path) -> None:
    _project(tmp_path / "long", 'agent = "a2a_core.examples.echo:agent"\nmax_turn_seconds = 3600')
    assert load_project(tmp_path / "long").turn_environment() == {"A2A_MAX_TURN_SECONDS": "3600"}
    _project(tmp_path / "plain", 'agent = "a2a_core.examples.echo:agent"')
    assert load_project(tmp_path / "plain").turn_environment() == {}
    _project(tmp_path / "bad", 'agent = "a2a_core.examples.echo:agent"\nmax_turn_seconds = 0')
    with pytest.raises(ProjectError, match="max_turn_seconds"):
        load_project(tmp_path / "bad")
