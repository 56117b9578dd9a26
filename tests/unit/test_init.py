"""`a2a-serverless init`: the project it writes (offline, nothing installed), the kit source it
names, and the one-line refusals."""

from __future__ import annotations

import io
import json
import sys
import tomllib
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from a2a_core.cli import main
from a2a_core.cli.kit_source import installed
from a2a_core.project import load_project

KIT = Path(__file__).resolve().parents[2]
FILES = {
    ".gitignore",
    "README.md",
    "app.py",
    "cdk.json",
    "package.json",
    "pyproject.toml",
    "src/demo/__init__.py",
    "src/demo/agent.py",
    "tests/conftest.py",
    "tests/test_agent.py",
}


def init(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["init", *args])
    return code, out.getvalue(), err.getvalue()


def written(root: Path) -> set[str]:
    return {path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file()}


@pytest.mark.parametrize("template", ["plain", "multiturn"])
def test_init_writes_a_project_that_names_its_agent_once(tmp_path: Path, template: str) -> None:
    code, out, err = init(str(tmp_path / "demo"), "--template", template, "--kit-source", str(KIT))
    assert (code, err) == (0, "")
    root = tmp_path / "demo"
    assert written(root) == FILES
    project = load_project(root)
    assert project.agent == "demo.agent:agent"
    assert project.code_paths() == (root / "src" / "demo",)
    assert project.import_roots() == (root / "src",)
    card = project.card_environment()
    assert (card["A2A_NAME"], card["A2A_VERSION"]) == ("Demo", "0.1.0")
    assert json.loads(card["A2A_SKILLS"])[0]["id"] in {"reply", "outline"}
    pyproject = tomllib.loads((root / "pyproject.toml").read_text())
    assert pyproject["project"]["dependencies"] == ["a2a-serverless"]
    assert pyproject["dependency-groups"]["dev"] == ["a2a-serverless[local,cdk]", "pytest>=8"]
    assert pyproject["tool"]["uv"]["sources"]["a2a-serverless"] == {"path": str(KIT), "editable": True}
    assert pyproject["tool"]["pytest"]["ini_options"]["pythonpath"] == ["src"]
    assert 'A2AStack(app, "Demo")' in (root / "app.py").read_text()
    assert f"Made the agent project demo in {root} (template: {template})" in out
    assert f"The kit comes from the checkout {KIT}, editable (--kit-source).\n" in out
    assert f"Next, where a2a-serverless is installed ({sys.prefix}):\n  cd {root}\n" in out
    assert "\n  a2a-serverless dev " in out


@pytest.mark.parametrize("template", ["adk", "agent-framework", "strands"])
def test_a_framework_template_depends_on_the_kit_with_the_frameworks_extra(
    tmp_path: Path, template: str
) -> None:
    """Its agent is a factory of the framework's executor, its tests run on a scripted model."""
    code, _, err = init(str(tmp_path / "demo"), "--template", template, "--kit-source", str(KIT))
    assert (code, err) == (0, "")
    root = tmp_path / "demo"
    assert written(root) == FILES | {"tests/scripted.py"}
    pyproject = tomllib.loads((root / "pyproject.toml").read_text())
    # The extra alone: the worker's bundle carries what it brings (`bundling.kit_extras`).
    assert pyproject["project"]["dependencies"] == [f"a2a-serverless[{template}]"]
    assert pyproject["dependency-groups"]["dev"] == ["a2a-serverless[local,cdk]", "pytest>=8"]
    assert load_project(root).agent == "demo.agent:agent"
    assert "from demo.agent import agent as build_executor\n" in (root / "tests" / "scripted.py").read_text()
    assert "def agent(" in (root / "src" / "demo" / "agent.py").read_text()


def _steps(out: str) -> list[str]:
    """The commands init says to run next, without their comments."""
    listed = out.split("Next, where a2a-serverless is installed", 1)[1].splitlines()[1:]
    return [line.split("#")[0].strip() for line in listed if line.startswith("  ")]


@pytest.mark.parametrize("template", ["plain", "multiturn", "adk", "agent-framework", "strands"])
def test_the_next_steps_sync_the_dependencies_before_anything_imports_the_agent(
    tmp_path: Path, template: str
) -> None:
    _, out, _ = init(str(tmp_path / "demo"), "--template", template, "--kit-source", str(KIT))
    steps = _steps(out)
    assert steps[:4] == [f"cd {tmp_path / 'demo'}", "uv sync --active", "pytest", "a2a-serverless dev"]
    assert steps[-2:] == [
        "npm install && npx cdk deploy",
        "a2a-serverless check <AgentUrl> -H 'x-api-key: <key>'",
    ]
    offline = "PYTHONPATH=tests a2a-serverless dev --agent scripted:agent"
    framework = template in {"adk", "agent-framework", "strands"}
    assert (offline in steps) == framework  # a framework's scripted model, offline
    readme = (tmp_path / "demo" / "README.md").read_text()
    assert (offline in readme) == framework
    assert readme.index("uv sync --active") < readme.index("a2a-serverless dev")
    if framework:
        dev = next(line for line in out.splitlines() if line.strip().startswith("a2a-serverless dev  "))
        assert {"adk": "GOOGLE_API_KEY", "agent-framework": "chat client", "strands": "Bedrock"}[
            template
        ] in dev


def test_init_help_names_every_template() -> None:
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit):
        main(["init", "--help"])
    shown = "".join(out.getvalue().split())  # argparse wraps lines, at hyphens too
    for name in ("plain", "multiturn", "adk", "agent-framework", "strands"):
        assert f"{name}:" in shown


def test_the_cdk_app_is_configured_like_this_repositorys_and_works_offline(tmp_path: Path) -> None:
    init(str(tmp_path / "demo"), "--kit-source", str(KIT))
    cdk = json.loads((tmp_path / "demo" / "cdk.json").read_text())
    ours = json.loads((KIT / "cdk.json").read_text())
    assert cdk["context"] == ours["context"]  # the feature flags the construct is tested with
    assert (cdk["app"], cdk["notices"], cdk["context"]["cli-telemetry"]) == ("python3 app.py", False, False)
    pinned = json.loads((tmp_path / "demo" / "package.json").read_text())["devDependencies"]
    tested = json.loads((KIT / "package.json").read_text())["devDependencies"]
    assert pinned == {name: tested[name] for name in ("aws-cdk", "node")}  # the CLI, on a supported Node


def test_names_with_dashes_become_a_package_a_title_and_a_stack(tmp_path: Path) -> None:
    init(str(tmp_path / "research-agent"), "--kit-source", "a2a-serverless>=0.1")
    root = tmp_path / "research-agent"
    assert load_project(root).agent == "research_agent.agent:agent"
    assert (root / "src" / "research_agent" / "agent.py").is_file()
    assert load_project(root).card_environment()["A2A_NAME"] == "Research agent"
    assert 'A2AStack(app, "ResearchAgent")' in (root / "app.py").read_text()


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("1st", "use letters, digits, '-' and '_', starting with a letter"),
        ("my agent", "use letters"),
        ("class", "its package, class, would shadow a Python keyword"),
        ("json", "its package, json, would shadow Python's own module of that name"),
        ("tests", "its package, tests, would shadow a name the project's files or the kit use"),
        ("a2a-core", "its package, a2a_core, would shadow a name the project's files or the kit use"),
    ],
)
def test_a_bad_name_is_refused_in_one_line(tmp_path: Path, name: str, says: str) -> None:
    code, _, err = init(str(tmp_path / "x"), "--name", name)
    assert code == 2
    assert err.startswith(f"a2a-serverless init: '{name}' cannot name a project: ")
    assert says in err
    assert err.endswith("(choose another DIR, or --name)\n")
    assert err.count("\n") == 1
    assert not (tmp_path / "x").exists()


def test_a_folder_that_is_not_empty_is_refused_unless_forced(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    code, _, err = init(str(tmp_path), "--name", "demo", "--kit-source", str(KIT))
    assert code == 2
    assert err.startswith(f"a2a-serverless init: {tmp_path} is not empty: name a new folder, or add --force")
    assert written(tmp_path) == {"notes.txt"}
    code, _, _ = init(str(tmp_path), "--name", "demo", "--kit-source", str(KIT), "--force")
    assert code == 0
    assert written(tmp_path) == FILES | {"notes.txt"}


@pytest.mark.parametrize(
    ("given", "dependency", "source"),
    [
        ("a2a-serverless>=0.2,<1", "a2a-serverless>=0.2,<1", None),
        ("0.3.1", "a2a-serverless==0.3.1", None),
        (
            "git+https://github.com/example/a2a-serverless.git@v0.3.1",
            "a2a-serverless",
            {"git": "https://github.com/example/a2a-serverless.git", "rev": "v0.3.1"},
        ),
        ("https://example.com/a2a_serverless-0.3.1-py3-none-any.whl", "a2a-serverless", None),
    ],
)
def test_the_kit_source_can_be_a_requirement_a_git_url_or_an_archive(
    tmp_path: Path, given: str, dependency: str, source: dict[str, str] | None
) -> None:
    assert init(str(tmp_path / "demo"), "--kit-source", given)[0] == 0
    pyproject = tomllib.loads((tmp_path / "demo" / "pyproject.toml").read_text())
    assert pyproject["project"]["dependencies"] == [dependency]
    sources = pyproject.get("tool", {}).get("uv", {}).get("sources", {}).get("a2a-serverless")
    if given.startswith("https://"):
        assert sources == {"url": given}
    else:
        assert sources == source


def test_a_wheel_beside_the_project_is_named_relative_to_it(tmp_path: Path) -> None:
    wheel = tmp_path / "demo" / "wheels" / "a2a_serverless-0.1.0-py3-none-any.whl"
    wheel.parent.mkdir(parents=True)
    wheel.write_bytes(b"")
    init(str(tmp_path / "demo"), "--kit-source", str(wheel), "--force")
    pyproject = tomllib.loads((tmp_path / "demo" / "pyproject.toml").read_text())
    assert pyproject["tool"]["uv"]["sources"]["a2a-serverless"] == {
        "path": "wheels/a2a_serverless-0.1.0-py3-none-any.whl"
    }


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("./nowhere", "--kit-source ./nowhere: no such file or directory (give a checkout of a2a-serverless"),
        ("{tests}", "not a checkout of a2a-serverless (no pyproject.toml with a [project] name)"),
        ("{conftest}", "not a wheel or source archive of a2a-serverless"),
    ],
)
def test_a_kit_source_that_is_not_the_kit_is_refused(tmp_path: Path, given: str, says: str) -> None:
    given = given.format(tests=KIT / "tests", conftest=KIT / "tests" / "conftest.py")
    code, _, err = init(str(tmp_path / "demo"), "--kit-source", given)
    assert code == 2
    assert says in err
    assert not (tmp_path / "demo").exists()


# --- the default: how the running kit was installed (PEP 610) -------------------------------------


@pytest.fixture
def installed_as(tmp_path: Path) -> Iterator[Path]:
    """A distribution of a2a-serverless 9.9.0 first on sys.path, whose ``direct_url.json`` the test
    writes into the returned dist-info folder (or not)."""
    site = tmp_path / "site"
    info = site / "a2a_serverless-9.9.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: a2a-serverless\nVersion: 9.9.0\n")
    sys.path.insert(0, str(site))
    try:
        yield info
    finally:
        sys.path.remove(str(site))


def test_the_default_source_is_the_wheel_the_kit_was_installed_from(
    tmp_path: Path, installed_as: Path
) -> None:
    wheel = tmp_path / "dist" / "a2a_serverless-9.9.0-py3-none-any.whl"
    wheel.parent.mkdir()
    wheel.write_bytes(b"")
    (installed_as / "direct_url.json").write_text(json.dumps({"url": wheel.as_uri(), "archive_info": {}}))
    kit = installed(tmp_path / "demo")
    assert (kit.source, kit.specifier) == ({"path": str(wheel)}, "")
    assert kit.description == f"the wheel {wheel} (this a2a-serverless was installed from it)"
    wheel.unlink()  # gone since: the index, at the installed version
    kit = installed(tmp_path / "demo")
    assert (kit.source, kit.specifier) == (None, "==9.9.0")
    assert "which this a2a-serverless was installed from, is gone" in kit.description


def test_the_default_source_of_an_editable_install_is_its_checkout(
    tmp_path: Path, installed_as: Path
) -> None:
    origin = {"url": KIT.as_uri(), "dir_info": {"editable": True}}
    (installed_as / "direct_url.json").write_text(json.dumps(origin))
    assert installed(tmp_path).source == {"path": str(KIT), "editable": True}


def test_the_default_source_of_a_git_install_is_its_commit(tmp_path: Path, installed_as: Path) -> None:
    origin = {"url": "https://github.com/example/kit.git", "vcs_info": {"vcs": "git", "commit_id": "abc123"}}
    (installed_as / "direct_url.json").write_text(json.dumps(origin))
    assert installed(tmp_path).source == {"git": "https://github.com/example/kit.git", "rev": "abc123"}


def test_the_default_source_of_an_index_install_is_the_installed_version(
    tmp_path: Path, installed_as: Path
) -> None:
    kit = installed(tmp_path)
    assert (kit.source, kit.requirement("[local]")) == (None, "a2a-serverless[local]==9.9.0")
    assert kit.description == "the package index: a2a-serverless==9.9.0 (the version installed here)"
    assert kit.sources_table() == ""
