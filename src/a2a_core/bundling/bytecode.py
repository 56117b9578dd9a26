"""Bytecode for the Lambda runtime's Python, compiled by an interpreter of that very version.

A ``.pyc`` is specific to a Python minor version: the runtime ignores (and, its code directory being
read-only, cannot replace) bytecode of another. With an interpreter of the runtime's version, the
bundles carry unchecked-hash bytecode (never re-validated against the sources, so a cold start
skips compiling and ``stat`` calls). Without one, they carry sources only, and each cold start
compiles what it imports; the service says so at synth time.
"""

from __future__ import annotations

import enum
import functools
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from a2a_core.bundling.uv import run

MODE = "unchecked-hash"
# Where Lambda puts the code: the path tracebacks show, instead of the machine that built it.
TASK_ROOT = "/var/task"


class Bytecode(enum.Enum):
    """Whether the bundles carry bytecode for the runtime's Python version."""

    # Compile with an interpreter of that version if this machine has one (``python3.X`` on PATH,
    # or one uv knows); otherwise ship sources and warn at synth time.
    AUTO = "auto"
    # As AUTO, and let uv download a managed interpreter of that version when none is found.
    DOWNLOAD = "download"
    # Ship sources only.
    OFF = "off"


@dataclass(frozen=True)
class Compiler:
    """What compiles a service's bytecode: an interpreter of ``python_version``, or none (and why)."""

    python_version: str
    interpreter: str | None
    missing: str = ""  # without an interpreter: what was looked for

    def warning(self) -> str:
        return (
            f"no Python {self.python_version} found to compile the Lambda bundles' bytecode "
            f"({self.missing}): they ship sources, so each cold start compiles what it imports. "
            f"Install Python {self.python_version} (e.g. `uv python install {self.python_version}`), "
            "or let uv fetch it with bytecode=Bytecode.DOWNLOAD"
        )


@functools.cache
def find_compiler(python_version: str, mode: Bytecode, uv: str) -> Compiler:
    """The interpreter that compiles bytecode for ``python_version`` under ``mode`` (looked up once)."""
    if mode is Bytecode.OFF:
        return Compiler(python_version, None, "bytecode=Bytecode.OFF")
    if _version(sys.executable) == python_version:
        return Compiler(python_version, sys.executable)
    on_path = shutil.which(f"python{python_version}")
    if on_path and _version(on_path) == python_version:
        return Compiler(python_version, on_path)
    found = _uv_find(uv, python_version)
    if found is None and mode is Bytecode.DOWNLOAD:
        run([uv, "python", "install", python_version], f"download Python {python_version}")
        found = _uv_find(uv, python_version, managed=True)
    if found is not None:
        return Compiler(python_version, found)
    return Compiler(python_version, None, f"looked for python{python_version} on PATH and asked uv")


def compile_bytecode(output: Path, interpreter: str) -> None:
    """Compile every source under ``output`` as the runtime will find it (under ``/var/task``)."""
    root = str(output.resolve())
    run(
        [
            interpreter,
            "-m",
            "compileall",
            "-f",  # the installer may have written timestamp-checked bytecode, which would be kept
            "-q",
            "-j",
            "0",
            "--invalidation-mode",
            MODE,
            "-s",
            root,
            "-p",
            TASK_ROOT,
            root,
        ],
        "precompile the bytecode",
    )


def _uv_find(uv: str, python_version: str, *, managed: bool = False) -> str | None:
    command = [uv, "python", "find", "--no-python-downloads", *(["--managed-python"] if managed else [])]
    result = subprocess.run(  # noqa: S603
        [*command, python_version], capture_output=True, text=True, check=False
    )
    found = result.stdout.strip()
    return found if result.returncode == 0 and found and _version(found) == python_version else None


def _version(interpreter: str) -> str | None:
    """The interpreter's ``major.minor``, asked of it (a pyenv shim without that version fails)."""
    if interpreter == sys.executable:
        return f"{sys.version_info.major}.{sys.version_info.minor}"
    try:
        result = subprocess.run(  # noqa: S603
            [interpreter, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
    except OSError:
        return None
    return result.stdout.strip() if result.returncode == 0 else None
