"""The steps of a user's shell in the end-to-end tests of the kit as a user installs it (a wheel
in a fresh venv, a project ``init`` makes, the pinned CDK CLI): each failure names its step."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

KIT = Path(__file__).resolve().parents[1]
CDK = KIT / "node_modules" / ".bin" / "cdk"
STEP_TIMEOUT = 300.0


def run(
    step: str, command: Sequence[str], cwd: Path, env: Mapping[str, str], *, timeout: float = STEP_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(  # noqa: S603 - our tools, with arguments of this test
            list(command),
            cwd=cwd,
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"{step}: timed out after {timeout:.0f} s: {' '.join(command)}\n{error.stderr!r}")
    if done.returncode != 0:
        pytest.fail(
            f"{step} failed (exit {done.returncode}): {' '.join(command)}\n{done.stdout}\n{done.stderr}"
        )
    return done


def bundles(outdir: Path, template: dict[str, Any]) -> dict[str, Path]:
    """Each Lambda function's asset folder, by the function's construct id."""
    found = {}
    for body in template["Resources"].values():
        path = body.get("Metadata", {}).get("aws:cdk:path", "")
        if body["Type"] == "AWS::Lambda::Function" and "/Functions/" in path:
            found[path.split("/Functions/")[1].split("/")[0]] = outdir / body["Metadata"]["aws:asset:path"]
    return found
