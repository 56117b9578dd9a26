"""A new user, outside this repository: from an empty folder to a synthesized deployment.

As issue 23's "done when" says, in one test with a phase per step (each failure names its phase):
build the kit's wheel; make a fresh venv in a temporary folder and install the wheel with the
``local`` and ``cdk`` extras (uv, from its cache); ``a2a-serverless init demo --template
multiturn`` from that venv (the kit source defaults to the wheel it was installed from); make the
agent import a small pure-Python dependency (iniconfig) and ``uv add`` it (pyproject.toml and
uv.lock), ``uv sync`` into the venv; ``a2a-serverless dev`` in the project (no ``--agent``, no
PYTHONPATH) serves it with its card, and an unmodified a2a-sdk 1.3 client completes a two-turn
task; the scaffold's own test passes; the pinned CDK CLI synthesizes the project offline, without
credentials or Docker: the worker's asset carries the agent module and iniconfig, the API's does
not carry iniconfig, and no path of this checkout, the venv or the project appears in cdk.out.

It prints what issue 23 asks to report: the wheel's size, the time from ``init`` to the first
answer, and each function's bundle, unzipped and zipped (``pytest -s`` shows them).
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import shutil
import sys
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.client import A2ACardResolver
from a2a.types import Task, TaskState

from a2a_core.bundling.uv import BundlingError, find_uv
from clients import sdk13
from dev_server import ServerProcess
from support import missing_prerequisite
from user_steps import CDK, KIT, bundles, run

pytestmark = pytest.mark.e2e

DEV_STARTUP = 60.0
QUESTION = "Who is the piece for: beginners or experts?"
# The dependency the user adds: the last turn reads the audience back through it.
IMPORT = "import iniconfig\n\nfrom a2a_core import TaskContext\n"
SCAFFOLDED = '    audience = ctx.text or "everyone"\n'
WITH_DEPENDENCY = (
    '    ini = iniconfig.IniConfig("reply.ini", data=f"[reply]\\naudience = {ctx.text}\\n")\n'
    '    audience = ini["reply"]["audience"]\n'
)


def test_a_new_user_goes_from_an_empty_folder_to_a_deployable_project(tmp_path: Path) -> None:
    uv, cdk = _prerequisites()
    env = _user_environment(tmp_path, uv)
    venv, demo = tmp_path / "venv", tmp_path / "demo"

    # 1. The kit as a user installs it: a wheel, into a fresh venv (from uv's cache).
    run("build the wheel", [uv, "build", "--wheel", "--out-dir", str(tmp_path / "dist"), str(KIT)], KIT, env)
    (wheel,) = (tmp_path / "dist").glob("a2a_serverless-*.whl")
    run("make a venv", [uv, "venv", "--python", sys.executable, str(venv)], tmp_path, env)
    install = [uv, "pip", "install", "--python", str(venv / "bin" / "python"), f"{wheel}[local,cdk]"]
    run("install the wheel with the local and cdk extras", install, tmp_path, env)

    # 2. init, then a dependency of the agent's own, locked and installed.
    started = time.monotonic()
    made = run(
        "init",
        [str(venv / "bin" / "a2a-serverless"), "init", "demo", "--template", "multiturn"],
        tmp_path,
        env,
    )
    assert f"The kit comes from the wheel {wheel} (this a2a-serverless was installed from it)" in made.stdout
    agent = demo / "src" / "demo" / "agent.py"
    scaffolded = agent.read_text()
    assert "from a2a_core import TaskContext\n" in scaffolded, "the template's imports changed"
    assert SCAFFOLDED in scaffolded, "the template's last turn changed"
    agent.write_text(
        scaffolded.replace("from a2a_core import TaskContext\n", IMPORT).replace(SCAFFOLDED, WITH_DEPENDENCY)
    )
    active = {**env, "VIRTUAL_ENV": str(venv)}
    run("uv add iniconfig", [uv, "add", "--active", "iniconfig"], demo, active)
    run("uv sync into the venv", [uv, "sync", "--active"], demo, active)
    synced = time.monotonic()
    assert "iniconfig" in (demo / "uv.lock").read_text()

    # 3. dev in the project: its agent, its card, two turns from an unmodified a2a-sdk 1.3 client.
    server = ServerProcess(
        "a2a-serverless dev in the new project",
        ["bash", "-c", f"cd {demo} && exec env -u PYTHONPATH {venv}/bin/a2a-serverless dev --port 0"],
        env,
    )
    try:
        url = server.wait_ready(DEV_STARTUP)
        ready = time.monotonic()
        card, first, second, answered = asyncio.run(_converse(url))
    finally:
        server.stop()
    assert (
        f"Agent:      demo.agent:agent ([tool.a2a-serverless] agent in {demo / 'pyproject.toml'})"
        in server.output
    )
    assert (card.name, [skill.id for skill in card.skills]) == ("Demo", ["outline"])
    assert first.status.state == TaskState.TASK_STATE_INPUT_REQUIRED, first
    assert sdk13.status_text(first) == QUESTION
    assert sdk13.artifact_chunks(first, "outline")[0].startswith("Outline: otters\n")
    assert (second.id, second.status.state) == (first.id, TaskState.TASK_STATE_COMPLETED), second
    assert sdk13.status_text(second) == "Done: the outline is written for experts."

    # 4. The scaffold's own test, with the venv's pytest.
    tested = run(
        "the scaffold's test",
        [str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        demo,
        env,
    )
    assert "2 passed" in tested.stdout

    # 5. cdk synth in the project: offline, no credentials, no Docker.
    run("cdk synth", [str(cdk), "synth", "--no-notices", "-q"], demo, env)
    template = json.loads((demo / "cdk.out" / "Demo.template.json").read_text())
    functions = bundles(demo / "cdk.out", template)
    assert set(functions) == {"Api", "Worker", "DeadLetter"}, functions
    assert (functions["Worker"] / "demo" / "agent.py").read_text() == agent.read_text()
    assert (functions["Worker"] / "iniconfig" / "__init__.py").is_file()
    for function, bundle in functions.items():  # the kit without what only deploys or scaffolds
        assert (bundle / "a2a_core" / "functions").is_dir(), function
        assert not (bundle / "a2a_core" / "templates").exists(), function
        assert not (bundle / "a2a_core" / "cdk").exists(), function
    for function in ("Api", "DeadLetter"):
        assert not list(functions[function].glob("iniconfig*")), f"the {function} bundle carries iniconfig"
        assert not (functions[function] / "demo").exists(), f"the {function} bundle carries the agent"
    _assert_no_machine_paths(demo / "cdk.out", [KIT, tmp_path, Path(uv).resolve().parent])

    print(  # what issue 23 asks to report
        f"\nwheel: {wheel.stat().st_size / 1024:.0f} KiB ({wheel.name})"
        f"\ninit to first answer: {answered - started:.1f} s (init, uv add, sync: {synced - started:.1f} s; "
        f"dev up: {ready - synced:.1f} s; the first turn: {answered - ready:.1f} s)"
        + "".join(f"\n{name} bundle: {_sizes(path)}" for name, path in functions.items())
    )


def _prerequisites() -> tuple[str, Path]:
    try:
        uv = find_uv(KIT)
    except BundlingError as error:  # `make test` always has it (.tools/bin/uv)
        missing_prerequisite(str(error))
    if not CDK.exists():
        missing_prerequisite("the pinned CDK CLI: run `make setup` (npm ci)")
    if shutil.which("node") is None:
        missing_prerequisite("node, for the CDK CLI")
    return uv, CDK


def _user_environment(tmp_path: Path, uv: str) -> dict[str, str]:
    """A shell of a user of the kit: uv and node on PATH (with nothing of this checkout beside
    them), no AWS credentials, no virtualenv or PYTHONPATH of this repository's; the certificate
    and proxy settings of this machine kept."""
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "uv").symlink_to(uv)
    node = Path(str(shutil.which("node"))).parent
    dropped = ("AWS_", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "UV_PROJECT_ENVIRONMENT", "CONDA_PREFIX")
    env = {key: value for key, value in os.environ.items() if not key.startswith(dropped)}
    return env | {
        "PATH": os.pathsep.join([str(tmp_path / "venv" / "bin"), str(tools), str(node), "/usr/bin", "/bin"]),
        "UV_PYTHON_DOWNLOADS": "never",
        "AWS_EC2_METADATA_DISABLED": "true",
    }


async def _converse(url: str) -> tuple[Any, Task, Task, float]:
    """The card, the first turn (the agent asks), the second (it completes), and when the first
    answer came."""
    async with httpx.AsyncClient(timeout=sdk13.HTTP_TIMEOUT) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
    async with sdk13.connect(url) as client:
        first = await sdk13.send(client, sdk13.user_message("otters"))
        answered = time.monotonic()
        reply = sdk13.user_message("experts", task_id=first.id, context_id=first.context_id)
        second = await sdk13.send(client, reply)
    return card, first, second, answered


def _sizes(bundle: Path) -> str:
    files = [path for path in sorted(bundle.rglob("*")) if path.is_file()]
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:  # as CDK zips an asset
        for path in files:
            zipped.write(path, path.relative_to(bundle))
    unzipped, zipped_size = sum(path.stat().st_size for path in files), len(archive.getvalue())
    return f"{unzipped / 2**20:.1f} MiB unzipped, {zipped_size / 2**20:.1f} MiB zipped, {len(files)} files"


def _assert_no_machine_paths(outdir: Path, paths: Sequence[Path]) -> None:
    needles = {str(path).encode() for path in paths} | {str(path.resolve()).encode() for path in paths}
    leaks = [
        f"{path.relative_to(outdir)}: {needle.decode()}"
        for path in outdir.rglob("*")
        if path.is_file() and not path.is_symlink()
        for needle in needles
        if needle in path.read_bytes()
    ]
    assert not leaks, "paths of this machine in cdk.out:\n" + "\n".join(leaks[:20])
