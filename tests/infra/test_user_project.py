"""A user's own project, outside this repository, deployed with the packaged construct.

The project (made in a temporary folder) has an agent package that imports a small pure-Python
dependency (iniconfig, from uv's cache) and a wheel of its own (in the project's folder), locked
in its uv.lock beside the kit, a ``[tool.a2a-serverless]`` table and a CDK app with cdk-nag. It
is synthesized in-process from the project's folder (the construct finds the project there) for
the default runtime, Python 3.13, with no interpreter of that version to be found; then once more
by the pinned CDK CLI, offline and without credentials.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aws_cdk.assertions import Template

from a2a_core.bundling.bytecode import MANAGERS, find_compiler
from a2a_core.bundling.uv import BundlingError, find_uv
from a2a_core.cdk import A2AStack
from a2a_core.cdk.assets import NO_BYTECODE
from a2a_core.cdk.functions import BUNDLES
from a2a_core.cdk.testing import checked_app, logical_id
from support import missing_prerequisite

KIT = Path(__file__).resolve().parents[2]  # this repository: no path of it may reach cdk.out
AGENT = """\
import greeting
import iniconfig


async def agent(context):
    return f"{greeting.HELLO} from {iniconfig.__name__}"
"""
GREETING = "greeting-1.0-py3-none-any.whl"
APP = """\
from aws_cdk import App, Validations
from cdk_nag import AwsSolutionsChecks

from a2a_core.cdk import A2AStack

app = App()
A2AStack(app, "Demo")
Validations.of(app).add_plugins(AwsSolutionsChecks(app))
app.synth()
"""
PYPROJECT = f'''\
[project]
name = "demo"
version = "0.3.0"
requires-python = ">=3.11"
dependencies = ["a2a-serverless[aws]", "iniconfig", "greeting"]

[tool.uv.sources]
a2a-serverless = {{ path = "{KIT}" }}
greeting = {{ path = "wheels/{GREETING}" }}

[tool.a2a-serverless]
agent = "demo.agent:agent"
name = "Demo"
description = "Says hello, with a dependency of its own."
'''


@pytest.fixture(scope="module")
def uv() -> str:
    try:
        return find_uv(KIT)
    except BundlingError as error:  # `make test` always has it (.tools/bin/uv)
        missing_prerequisite(str(error))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, uv: str) -> Path:
    root = tmp_path_factory.mktemp("demo")
    (root / "demo").mkdir()
    (root / "demo" / "__init__.py").write_text("")
    (root / "demo" / "agent.py").write_text(AGENT)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "app.py").write_text(APP)
    _write_wheel(root / "wheels" / GREETING, {"greeting/__init__.py": 'HELLO = "hello"\n'})
    context = json.loads((KIT / "cdk.json").read_text())["context"]
    (root / "cdk.json").write_text(json.dumps({"app": f"{sys.executable} app.py", "context": context}))
    lock = [uv, "lock", "--quiet", "--python", sys.executable]  # from the package index, as a user locks
    subprocess.run(lock, cwd=root, check=True, env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"})  # noqa: S603
    return root


@pytest.fixture(scope="module")
def synthesized(
    project: Path, uv: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, dict[str, Any], str]]:
    """The app synthesized in-process from the project's folder, where no Python 3.13 is found:
    (cdk.out, the template, what was printed on stderr)."""
    patch = pytest.MonkeyPatch()
    patch.chdir(project)
    for key, value in _without_python_313(tmp_path_factory, uv).items():
        patch.setenv(key, value)
    find_compiler.cache_clear()
    outdir = project / "cdk.out"
    try:
        app = checked_app(outdir, skip_bundling=False)  # the project's cdk.json, and cdk-nag
        with contextlib.redirect_stderr(io.StringIO()) as stderr:
            A2AStack(app, "Demo")
            assembly = app.synth()
        yield outdir, assembly.get_stack_by_name("Demo").template, stderr.getvalue()
    finally:
        find_compiler.cache_clear()
        patch.undo()


def _without_python_313(tmp_path_factory: pytest.TempPathFactory, uv: str) -> dict[str, str]:
    """An environment where no Python 3.13 is to be found (only node on PATH; no Python that uv
    or a version manager manages), whatever this machine has installed."""
    tools = tmp_path_factory.mktemp("path")
    node = shutil.which("node")
    if node:
        (tools / "node").symlink_to(node)
    empty = tmp_path_factory.mktemp("no-pythons")
    return {
        "UV": uv,
        "PATH": str(tools),
        "UV_PYTHON_INSTALL_DIR": str(empty),
        "UV_PYTHON_PREFERENCE": "only-managed",
        **{variable: str(empty) for variable, _, _ in MANAGERS},
    }


def test_the_worker_alone_carries_the_agent_and_its_dependency(
    synthesized: tuple[Path, dict[str, Any], str],
) -> None:
    outdir, template, _ = synthesized
    bundles = _bundles(outdir, template)
    assert set(bundles) == {"api", "worker", "dlq"}
    worker = bundles["worker"]
    assert (worker / "demo" / "agent.py").read_text() == AGENT
    assert (worker / "iniconfig" / "__init__.py").is_file()
    assert [path.name for path in worker.glob("iniconfig-*.dist-info")] == ["iniconfig-2.3.1.dist-info"]
    assert (worker / "greeting" / "__init__.py").read_text() == 'HELLO = "hello"\n'
    assert not list(worker.glob("*.dist-info/direct_url.json"))  # it named the wheel's path here
    for function in ("api", "dlq"):
        assert not list(bundles[function].glob("iniconfig*")), function
        assert not list(bundles[function].glob("greeting*")), function
        assert not (bundles[function] / "demo").exists(), function
    for bundle in bundles.values():
        assert (bundle / "a2a_core" / "functions").is_dir()  # the kit, from the installed package
        assert not (bundle / "a2a_core" / "cdk").exists()
    variables = _function(template, "Worker")["Environment"]["Variables"]
    assert (variables["A2A_AGENT"], variables["A2A_NAME"], variables["A2A_VERSION"]) == (
        "demo.agent:agent",
        "Demo",
        "0.3.0",
    )


def test_bundles_are_built_for_python_313_and_say_they_carry_no_bytecode(
    synthesized: tuple[Path, dict[str, Any], str],
) -> None:
    outdir, template, stderr = synthesized
    bundles = _bundles(outdir, template)
    assert {_function(template, name)["Runtime"] for name in ("Api", "Worker", "DeadLetter")} == {
        "python3.13"
    }
    for bundle in bundles.values():
        (core,) = bundle.glob("pydantic_core/_pydantic_core.*.so")
        assert core.name == "_pydantic_core.cpython-313-aarch64-linux-gnu.so"
        assert not list(bundle.rglob("*.pyc"))
    assert stderr.count("no Python 3.13 found to compile the Lambda bundles' bytecode") == 1
    metadata = json.loads((outdir / "Demo.metadata.json").read_text())
    warnings = [e["data"] for e in metadata["/Demo/Service"] if e["type"] == "aws:cdk:warning"]
    assert [w for w in warnings if "no Python 3.13 found" in w and NO_BYTECODE in w]


def test_no_path_of_the_kit_or_the_project_reaches_the_cloud_assembly(
    synthesized: tuple[Path, dict[str, Any], str], project: Path
) -> None:
    outdir, _, _ = synthesized
    _assert_no_machine_paths(outdir, project)


def test_the_cdk_cli_synthesizes_the_project_offline_reusing_its_bundles(
    synthesized: tuple[Path, dict[str, Any], str],
    project: Path,
    uv: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Same inputs, same asset hashes: the CLI finds every bundle already built."""
    outdir, template, _ = synthesized
    cdk = KIT / "node_modules" / ".bin" / "cdk"
    if not cdk.exists():
        missing_prerequisite("the pinned CDK CLI: run `make setup` (npm ci)")
    env = {key: value for key, value in os.environ.items() if not key.startswith("AWS_")}
    env |= {"AWS_EC2_METADATA_DISABLED": "true"}
    env |= _without_python_313(tmp_path_factory, uv)
    command = [str(cdk), "synth", "--no-notices", "-q", "-o", str(outdir)]
    result = subprocess.run(  # noqa: S603
        command, cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "Bundling asset" not in result.stderr
    again = json.loads((outdir / "Demo.template.json").read_text())
    assert _bundles(outdir, again) == _bundles(outdir, template)
    _assert_no_machine_paths(outdir, project)


def _write_wheel(path: Path, files: dict[str, str]) -> None:
    """A pure-Python wheel holding ``files`` (name and version from ``path``)."""
    name, version = path.name.split("-")[:2]
    info = f"{name}-{version}.dist-info"
    files = {
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(f"{file},,\n" for file in [*files, f"{info}/RECORD"])
    path.parent.mkdir(parents=True)
    with zipfile.ZipFile(path, "w") as wheel:
        for file, text in {**files, f"{info}/RECORD": record}.items():
            wheel.writestr(file, text)


def _function(template: dict[str, Any], name: str) -> dict[str, Any]:
    found = logical_id(Template.from_json(template), "AWS::Lambda::Function", f"/Functions/{name}/Resource")
    return dict(template["Resources"][found]["Properties"])


def _bundles(outdir: Path, template: dict[str, Any]) -> dict[str, Path]:
    found = {}
    resources = Template.from_json(template)
    for name, function in BUNDLES.items():
        try:
            resource = logical_id(resources, "AWS::Lambda::Function", f"/Functions/{name}/Resource")
        except LookupError:
            continue
        found[function] = outdir / str(template["Resources"][resource]["Metadata"]["aws:asset:path"])
    return found


def _assert_no_machine_paths(outdir: Path, project: Path) -> None:
    """No file in ``outdir`` names the kit's checkout, the project's folder or this venv."""
    needles = {str(KIT).encode(), str(project).encode(), sys.prefix.encode()}
    if shutil.which("uv"):
        needles.add(str(Path(str(shutil.which("uv"))).parent).encode())
    leaks = []
    for path in outdir.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            leaks += [
                f"{path.relative_to(outdir)}: {needle.decode()}" for needle in needles if needle in data
            ]
    assert not leaks, "\n".join(leaks[:20])
