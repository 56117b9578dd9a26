"""A user who installs the kit with pip alone: no uv on PATH, the venv not activated, a supported
Node for the CDK CLI (package.json's pinned ``node``).

The kit's wheel goes into a fresh venv with ``pip install 'wheel[cdk]'``; ``a2a-serverless init``
makes a project; its CDK app, run by that venv's Python, synthesizes with the pinned CDK CLI:
the bundles are built by the uv the ``cdk`` extra installed (found through the package, as no
``uv`` is on PATH), their bytecode compiled for the runtime's Python 3.13 where this machine has
one, and nothing printed is a byte literal or a Node end-of-life banner.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from a2a_core.bundling.bytecode import Bytecode, find_compiler
from a2a_core.bundling.uv import BundlingError, find_uv
from support import missing_prerequisite
from user_steps import CDK, KIT, bundles, run

pytestmark = pytest.mark.e2e


def test_a_pip_install_of_the_kit_synthesizes_with_no_uv_on_path(tmp_path: Path) -> None:
    try:
        uv = find_uv(KIT)  # builds the wheel only; the user's side never sees it
    except BundlingError as error:
        missing_prerequisite(str(error))
    node = shutil.which("node")
    if not CDK.exists() or node is None:
        missing_prerequisite("the pinned CDK CLI and node: run `make setup` (npm ci)")
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "node").symlink_to(Path(node).resolve())
    dropped = ("AWS_", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "UV", "JSII_")
    env = {key: value for key, value in os.environ.items() if not key.startswith(dropped)}
    env |= {"PATH": os.pathsep.join([str(tools), "/usr/bin", "/bin"]), "AWS_EC2_METADATA_DISABLED": "true"}
    assert shutil.which("uv", path=env["PATH"]) is None, "this test needs a PATH without uv"

    run("build the wheel", [uv, "build", "--wheel", "--out-dir", str(tmp_path / "dist"), str(KIT)], KIT, env)
    (wheel,) = (tmp_path / "dist").glob("a2a_serverless-*.whl")
    venv = tmp_path / "venv"
    run("make a venv", [sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    run("pip install the wheel with the cdk extra", [*pip, f"{wheel}[cdk]"], tmp_path, env)
    run("init", [str(venv / "bin" / "a2a-serverless"), "init", "demo"], tmp_path, env)
    demo = tmp_path / "demo"
    cdk_json = json.loads((demo / "cdk.json").read_text())
    (demo / "cdk.json").write_text(json.dumps(cdk_json | {"app": f"{python} app.py"}))  # not activated

    synth = run("cdk synth", [str(CDK), "synth", "--no-notices", "-q"], demo, env)
    printed = synth.stdout + synth.stderr
    assert "end-of-life" not in printed, printed
    assert "b'" not in printed, printed
    template = json.loads((demo / "cdk.out" / "Demo.template.json").read_text())
    worker = bundles(demo / "cdk.out", template)["Worker"]
    assert (worker / "demo" / "agent.py").is_file()
    if find_compiler("3.13", Bytecode.AUTO, uv).interpreter is not None:  # as the synth's lookup found
        assert list((worker / "a2a_core").rglob("*.cpython-313.pyc")), "no bytecode for Python 3.13"
    else:
        assert "no Python 3.13 found" in printed
