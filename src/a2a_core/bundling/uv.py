"""The uv that exports locked requirements and installs wheels for Lambda: found, run, explained."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path


class BundlingError(RuntimeError):
    """A bundle could not be built; the message says which step failed and how to fix it."""


def find_uv(project_root: Path | None = None) -> str:
    """``$UV``; else the project's pinned uv (``.tools/bin/uv``, as ``make setup`` installs it);
    else the ``uv`` package installed beside the kit; else ``uv`` on ``PATH``."""
    explicit = os.environ.get("UV")
    if explicit:
        if not os.access(explicit, os.X_OK):
            raise BundlingError(f"UV={explicit} is not an executable uv")
        return explicit
    pinned = project_root / ".tools" / "bin" / "uv" if project_root is not None else None
    for candidate in (pinned and str(pinned), _uv_package(), shutil.which("uv")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise BundlingError(
        "uv not found: the Lambda bundles are built with uv (no Docker). The kit's cdk extra "
        "brings it (`pip install 'a2a-serverless[cdk]'`); or install it (`pip install uv`, or "
        "https://docs.astral.sh/uv/getting-started/installation/) or set UV=/path/to/uv"
    )


def run(
    command: Sequence[str], step: str, *, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``command``; a failure raises `BundlingError` saying which ``step`` failed, with its output."""
    result = subprocess.run(  # noqa: S603
        list(command), capture_output=True, text=True, check=False, cwd=cwd, env=env
    )
    if result.returncode != 0:
        raise BundlingError(f"could not {step}: {' '.join(command)}\n{result.stderr.strip()}")
    return result


def _uv_package() -> str | None:
    try:
        from uv import find_uv_bin  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    try:
        return str(find_uv_bin())
    except FileNotFoundError:
        return None
