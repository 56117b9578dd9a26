"""Locked wheels installed for a Lambda platform with the project's pinned uv; no CDK here.

Shared by the bundler (`infra.bundling`) and the exercise that traces and times the functions
(`infra.exercise`), which must not start CDK's jsii runtime.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from infra import closures

ROOT = Path(__file__).resolve().parent.parent
# The extras the closures are picked from, and the dependency group of the agent's own needs.
EXTRAS = ("aws", "web")
AGENT_GROUP = "agent"
# How the API function's uvicorn runs behind the Lambda Web Adapter (`bundling` writes run.sh).
UVICORN_OPTIONS = ("--lifespan", "off", "--no-access-log")


class BundlingError(RuntimeError):
    """The bundle could not be built; the message says which step failed and how to fix it."""


def find_uv(root: Path = ROOT) -> str:
    """The uv that manages this project: ``$UV``, then ``.tools/bin/uv`` (``make setup``), then PATH."""
    candidates = [os.environ.get("UV"), str(root / ".tools" / "bin" / "uv"), shutil.which("uv")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise BundlingError("uv not found: run `make setup` (it installs .tools/bin/uv) or set UV=/path/to/uv")


def locked_requirements(extras: tuple[str, ...], *, groups: tuple[str, ...] = (), root: Path = ROOT) -> str:
    """``uv export`` of the project's runtime dependencies with ``extras`` (no dependency group, not
    even the default ones); with ``groups``, of those dependency groups alone."""
    command = [
        find_uv(root),
        "export",
        "--project",
        str(root),
        "--frozen",
        "--no-emit-project",
        "--no-hashes",
        "--no-header",
        "--no-annotate",
        *(f"--extra={extra}" for extra in extras),
        *([f"--only-group={group}" for group in groups] if groups else ["--no-default-groups"]),
    ]
    return _run(command, "export the locked requirements").stdout


def requirement_name(line: str) -> str:
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", line.strip())
    return closures.canonical(match.group()) if match and not line.lstrip().startswith("#") else ""


MODE = "unchecked-hash"  # bytecode Lambda never re-validates against (read-only) sources


def prune_packages(output: Path, kept: tuple[str, ...]) -> None:
    """Remove the packages of the `closures.PRUNED` distributions that are not in ``kept``."""
    keep = set(kept)
    for top in closures.PRUNED.values():
        pending = [output / top] if (output / top).is_dir() else []
        while pending:
            directory = pending.pop()
            for child in sorted(path for path in directory.iterdir() if path.is_dir()):
                if child.name == "__pycache__":
                    continue
                if ".".join(child.relative_to(output).parts) in keep:
                    pending.append(child)
                else:
                    shutil.rmtree(child)


def install_wheels(
    output: Path, requirements: str, platform: str, python_version: str, root: Path = ROOT
) -> str:
    """Install ``requirements`` (locked, complete) as ``platform``'s wheels into ``output``;
    returns the interpreter of ``python_version`` that compiles their bytecode."""
    python = _interpreter(python_version)
    with tempfile.TemporaryDirectory() as scratch:
        requirements_file = Path(scratch) / "requirements.txt"
        requirements_file.write_text(requirements)
        _run(
            [
                find_uv(root),
                "pip",
                "install",
                "--quiet",
                "--target",
                str(output),
                "--python",
                python,
                "--python-platform",
                f"{platform}-manylinux2014",
                "--python-version",
                python_version,
                "--only-binary",
                ":all:",
                "--no-deps",  # the export is the complete, locked set
                "--link-mode",
                "copy",
                "--requirement",
                str(requirements_file),
            ],
            f"install the {platform} wheels",
        )
    shutil.rmtree(output / "bin", ignore_errors=True)  # console scripts point at this machine's Python
    return python


def compile_bytecode(output: Path, python: str) -> None:
    _run(
        # -f: the installer may already have written timestamp-checked bytecode (UV_COMPILE_BYTECODE),
        # which compileall would otherwise keep.
        [python, "-m", "compileall", "-f", "-q", "-j", "0", "--invalidation-mode", MODE, str(output)],
        "precompile the bytecode",
    )


def _interpreter(version: str) -> str:
    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return sys.executable
    found = shutil.which(f"python{version}")
    if found is None:
        raise BundlingError(
            f"python{version} not found: the bytecode must be compiled by the runtime's Python"
        )
    return found


def _run(command: list[str], step: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    if result.returncode != 0:
        raise BundlingError(f"could not {step}: {' '.join(command)}\n{result.stderr.strip()}")
    return result
