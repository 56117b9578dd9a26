"""`make dev` sets up only what the local server needs: its recipe touches no Node, no test
toolchain and no client environments, and the environment it syncs (built here, in a temporary
directory, with the Makefile's own command) runs the server with nothing of the dev group."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from dev_server import STARTUP_TIMEOUT, ServerProcess
from doc_blocks import ROOT
from support import missing_prerequisite

pytestmark = pytest.mark.e2e

UV = ROOT / ".tools" / "bin" / "uv"
# What only `make test` may set up.
TEST_TOOLCHAIN = ("npm", "node_modules", ".venv-clients", "apt-get", "chromium", "playwright")
DEV_GROUP_MODULES = ("pytest", "mypy", "ruff", "a2a", "aws_cdk", "mkdocs", "hypothesis")


def make_dry_run(target: str) -> list[str]:
    """The commands ``make TARGET`` runs on a fresh clone (every prerequisite out of date)."""
    if shutil.which("make") is None:
        missing_prerequisite("make is not installed")
    # make from PATH, as a developer runs it, on this checkout's own Makefile: not as a sub-make
    # of the `make test` running this suite (which would print "Entering/Leaving directory").
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    done = subprocess.run(  # noqa: S603
        ["make", "--no-print-directory", "--dry-run", "--always-make", target],  # noqa: S607
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.replace("\\\n", " ").splitlines()


def test_make_dev_sets_up_no_test_toolchain() -> None:
    commands = make_dry_run("dev")
    assert not [c for c in commands if any(tool in c for tool in TEST_TOOLCHAIN)], commands
    [sync] = [c for c in commands if " sync " in c]
    assert "--no-default-groups" in sync
    assert "--extra local" in sync
    assert "--inexact" in sync  # so a later `make test` on the same checkout keeps working
    assert commands[-1].split()[:2] == [".venv/bin/a2a-serverless", "dev"]


def test_make_test_still_sets_up_everything() -> None:
    commands = " ".join(make_dry_run("test"))
    for tool in ("npm ci", ".venv-clients", "apt-get"):
        assert tool in commands


def test_the_server_runs_from_the_environment_make_dev_syncs(tmp_path: Path) -> None:
    if not UV.exists():
        missing_prerequisite(f"{UV} is missing (make setup installs it)")
    [sync] = [c for c in make_dry_run("setup-dev") if " sync " in c]
    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["UV_PROJECT_ENVIRONMENT"] = str(venv)  # not the checkout's .venv
    # The Makefile's own command, run as make runs it (a shell, from the checkout).
    subprocess.run(["bash", "-c", sync], cwd=ROOT, env=env, check=True, capture_output=True)  # noqa: S603, S607
    probe = f"import importlib.util as u; print([m for m in {DEV_GROUP_MODULES!r} if u.find_spec(m)])"
    found = subprocess.run(  # noqa: S603
        [str(venv / "bin" / "python"), "-c", probe], capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == "[]"

    command = [str(venv / "bin" / "a2a-serverless"), "dev", "--port", "0", "--fresh"]
    server = ServerProcess("dev from the make dev environment", command, env)
    try:
        server.wait_ready(STARTUP_TIMEOUT)
        assert "Tasks in:   local AWS emulation (moto at" in server.output  # the default backend
    finally:
        server.stop()
