"""What goes into a bundle before it is built: which uv, which interpreter compiles the bytecode,
and the requirements (the kit's as installed, the agent's from its lock or requirements file)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from a2a_core.bundling.bytecode import MANAGERS, NAMED, Bytecode, find_compiler
from a2a_core.bundling.plan import BundleOptions, BundlePlan
from a2a_core.bundling.requirements import kit_pins, merge
from a2a_core.bundling.uv import BundlingError, find_uv
from a2a_core.project import load_project
from support import missing_prerequisite

HERE = f"{sys.version_info.major}.{sys.version_info.minor}"
OTHER = "3.12" if HERE == "3.13" else "3.13"  # a runtime's version this interpreter is not
KIT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh_lookups() -> Iterator[None]:
    find_compiler.cache_clear()
    yield
    find_compiler.cache_clear()


def _script(path: Path, body: str) -> str:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def fake_uv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    """A uv that logs its arguments and finds a Python of version `OTHER` (a script answering the
    version probe) only once ``uv python install`` has run; nothing else on PATH, no version manager."""
    log = tmp_path / "uv.log"
    python = _script(tmp_path / f"managed-python{OTHER}", f'echo "{OTHER}"')
    uv = _script(
        tmp_path / "uv",
        f'echo "$@" >> {log}\n'
        f'case "$*" in\n'
        f'  "python install {OTHER}") : > {tmp_path}/installed ;;\n'
        f'  "python find"*) [ -e {tmp_path}/installed ] && echo {python} && exit 0; exit 2 ;;\n'
        "esac",
    )
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    for variable, _, _ in MANAGERS:
        monkeypatch.setenv(variable, str(tmp_path / "no-manager"))
    monkeypatch.delenv(NAMED, raising=False)
    return uv, log


def test_bytecode_is_compiled_by_this_interpreter_when_it_is_the_runtimes(fake_uv: tuple[str, Path]) -> None:
    uv, log = fake_uv
    assert find_compiler(HERE, Bytecode.AUTO, uv).interpreter == sys.executable
    assert not log.exists()  # nothing else asked


def test_without_an_interpreter_of_that_version_the_bundles_ship_sources(fake_uv: tuple[str, Path]) -> None:
    uv, log = fake_uv
    compiler = find_compiler(OTHER, Bytecode.AUTO, uv)
    assert compiler.interpreter is None
    assert f"Install Python {OTHER}" in compiler.warning()
    assert f"{NAMED}=/path/to/python{OTHER}" in compiler.warning()
    assert "Bytecode.DOWNLOAD" in compiler.warning()
    assert log.read_text().splitlines() == [f"python find --no-python-downloads {OTHER}"]


def test_download_lets_uv_fetch_the_interpreter(fake_uv: tuple[str, Path]) -> None:
    uv, log = fake_uv
    compiler = find_compiler(OTHER, Bytecode.DOWNLOAD, uv)
    assert str(compiler.interpreter).endswith(f"managed-python{OTHER}")
    assert log.read_text().splitlines() == [
        f"python find --no-python-downloads {OTHER}",
        f"python install {OTHER}",
        f"python find --no-python-downloads --managed-python {OTHER}",
    ]


def test_an_interpreter_on_path_counts_only_if_it_runs_that_version(
    fake_uv: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pyenv shim for a version that is not active fails when run: it is passed over."""
    uv, _ = fake_uv
    shims = tmp_path / "shims"
    shims.mkdir()
    _script(shims / f"python{OTHER}", f"echo 'pyenv: python{OTHER}: command not found' >&2; exit 127")
    monkeypatch.setenv("PATH", str(shims))
    assert find_compiler(OTHER, Bytecode.AUTO, uv).interpreter is None
    find_compiler.cache_clear()
    real = _script(shims / f"python{OTHER}", f'echo "{OTHER}"')
    assert find_compiler(OTHER, Bytecode.AUTO, uv).interpreter == real


def test_a_version_managers_interpreters_are_found_newest_patch_first(
    fake_uv: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pyenv's shims run only the active version: the others are found in its versions folder."""
    uv, log = fake_uv
    root = tmp_path / "pyenv"
    for version in (f"{OTHER}.0", f"{OTHER}.9", f"{OTHER}.10t", "3.10.1"):
        minor = version.rpartition(".")[0]
        (root / "versions" / version / "bin").mkdir(parents=True)
        _script(root / "versions" / version / "bin" / f"python{minor}", f'echo "{minor}"')
    monkeypatch.setenv("PYENV_ROOT", str(root))
    compiler = find_compiler(OTHER, Bytecode.AUTO, uv)
    assert compiler.interpreter == str(root / "versions" / f"{OTHER}.9" / "bin" / f"python{OTHER}")
    assert not log.exists()  # uv was not asked


def test_the_interpreter_a_user_names_is_used_if_it_is_the_runtimes_version(
    fake_uv: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    uv, _ = fake_uv
    named = _script(tmp_path / "my-python", f'echo "{OTHER}"')
    monkeypatch.setenv(NAMED, named)
    assert find_compiler(OTHER, Bytecode.AUTO, uv).interpreter == named
    find_compiler.cache_clear()
    with pytest.raises(BundlingError, match=f"{NAMED}=.*my-python is not a Python 3.10 interpreter"):
        find_compiler("3.10", Bytecode.AUTO, uv)


def test_off_never_looks(fake_uv: tuple[str, Path]) -> None:
    uv, log = fake_uv
    assert find_compiler(HERE, Bytecode.OFF, uv).interpreter is None
    assert not log.exists()


def test_uv_is_the_one_named_then_the_projects_then_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".tools" / "bin").mkdir(parents=True)
    pinned = _script(tmp_path / ".tools" / "bin" / "uv", "exit 0")
    (tmp_path / "path").mkdir()
    on_path = _script(tmp_path / "path" / "uv", "exit 0")
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    monkeypatch.delenv("UV", raising=False)
    monkeypatch.setitem(sys.modules, "uv", None)  # no uv package installed beside the kit
    assert find_uv(tmp_path) == pinned
    assert find_uv(tmp_path / "elsewhere") == on_path
    monkeypatch.setenv("UV", on_path)
    assert find_uv(tmp_path) == on_path
    monkeypatch.setenv("UV", str(tmp_path / "missing"))
    with pytest.raises(BundlingError, match=r"UV=.*missing is not an executable uv"):
        find_uv(tmp_path)


def test_no_uv_says_how_to_get_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("UV", raising=False)
    monkeypatch.setitem(sys.modules, "uv", None)
    with pytest.raises(BundlingError, match=r"uv not found: .*pip install uv.*UV=/path/to/uv"):
        find_uv(tmp_path)


def test_the_kit_is_pinned_as_installed_here() -> None:
    assert kit_pins(["pydantic", "Typing_Extensions"]) == [
        f"pydantic=={metadata.version('pydantic')}",
        f"typing-extensions=={metadata.version('typing-extensions')}",
    ]
    with pytest.raises(BundlingError, match=r"no-such-dist not installed: .*a2a-serverless\[cdk\]"):
        kit_pins(["no-such-dist"])


def test_the_agents_pins_must_agree_with_the_kits() -> None:
    kit = ["pydantic==2.12.3", "starlette==0.50.0"]
    agent = ["iniconfig==2.3.1", "pydantic==2.12.3", "# a comment", "./wheels/greeting-1.0-py3-none-any.whl"]
    assert merge(kit, agent) == [
        "./wheels/greeting-1.0-py3-none-any.whl",  # a path keeps its line
        "iniconfig==2.3.1",
        "pydantic==2.12.3",
        "starlette==0.50.0",
    ]
    with pytest.raises(
        BundlingError, match=r"uv\.lock and .* disagree \(pydantic 2\.11\.0 there, 2\.12\.3 installed\)"
    ):
        merge(kit, ["pydantic==2.11.0"], source="uv.lock")


def _requirements_project(root: Path, requirements: str) -> Path:
    (root / "bot.py").write_text("async def agent(context): ...\n")
    (root / "requirements.txt").write_text(requirements)
    (root / "pyproject.toml").write_text('[tool.a2a-serverless]\nagent = "bot:agent"\n')
    return root


def test_a_requirements_file_is_resolved_for_lambda_against_the_kits_pins(tmp_path: Path) -> None:
    """Unpinned lines get the version uv resolves (from its cache); the kit's line goes."""
    try:
        uv = find_uv(KIT)
    except BundlingError as error:
        missing_prerequisite(str(error))
    project = load_project(_requirements_project(tmp_path, "iniconfig\na2a-serverless[aws]\npydantic\n"))
    plan = BundlePlan(project, BundleOptions(python_version="3.13"), uv=uv)
    worker = plan.bundle("worker").requirements.splitlines()
    assert f"iniconfig=={metadata.version('iniconfig')}" in worker
    assert [line for line in worker if line.startswith("pydantic==")] == [
        f"pydantic=={metadata.version('pydantic')}"
    ]
    assert not [line for line in worker if line.startswith("a2a-serverless")]
    assert not [line for line in plan.bundle("api").requirements.splitlines() if "iniconfig" in line]
    assert plan.bundle("worker").code[1:] == ((tmp_path / "bot.py", "bot.py"),)  # the agent's module
