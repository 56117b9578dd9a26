"""A user who installs the kit with pip alone, as the release job does (`scripts/release_check.sh`,
the steps of .github/workflows/release.yml): no uv on PATH, the venv not activated, the project's
CDK CLI on the Node LTS its package.json pins.

The script builds the sdist and the wheel, installs the wheel with ``pip install
'wheel[local,cdk]'`` into a fresh venv, ``init``s a project, runs its test and synthesizes it: the
bundles are built by the uv the ``cdk`` extra installed (found through the package, as no ``uv``
is on PATH), their bytecode compiled for the runtime's Python 3.13 where this machine has one,
and nothing printed is a byte literal or a Node end-of-life banner.
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
from user_steps import KIT, bundles, run

pytestmark = pytest.mark.e2e

SCRIPT = KIT / "scripts" / "release_check.sh"


def test_the_release_check_installs_with_pip_and_synthesizes_with_no_uv_on_path(tmp_path: Path) -> None:
    try:
        uv = find_uv(KIT)  # builds the wheel only: the user's side never sees it
    except BundlingError as error:
        missing_prerequisite(str(error))
    if shutil.which("npm", path="/usr/bin:/bin") is None:
        missing_prerequisite("npm in /usr/bin, for the project's CDK CLI")
    dropped = ("AWS_", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "UV", "JSII_", "NODE")
    env = {key: value for key, value in os.environ.items() if not key.startswith(dropped)}
    env |= {"PATH": "/usr/bin:/bin", "AWS_EC2_METADATA_DISABLED": "true", "UV": uv, "PYTHON": sys.executable}
    assert shutil.which("uv", path=env["PATH"]) is None, "this test needs a PATH without uv"

    done = run("the release check", ["bash", str(SCRIPT), str(tmp_path)], KIT, env, timeout=900)
    printed = done.stdout + done.stderr
    assert "== release check passed" in done.stdout, printed
    assert "end-of-life" not in printed, printed
    assert "b'" not in printed, printed
    assert "1 passed" in done.stdout or "2 passed" in done.stdout, printed  # the project's test
    assert list((tmp_path / "dist").glob("a2a_serverless-*.tar.gz")), "no sdist"
    demo = tmp_path / "demo"
    template = json.loads((demo / "cdk.out" / "Demo.template.json").read_text())
    worker = bundles(demo / "cdk.out", template)["Worker"]
    assert (worker / "demo" / "agent.py").is_file()
    if find_compiler("3.13", Bytecode.AUTO, uv).interpreter is not None:  # the synth's lookup, here
        assert list((worker / "a2a_core").rglob("*.cpython-313.pyc")), "no bytecode for Python 3.13"
    else:
        assert "no Python 3.13 found" in printed
