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
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from a2a_core.bundling.uv import BundlingError, find_uv, run

MODE = "unchecked-hash"
# The interpreter a user names for the bytecode (it must be of the runtime's version).
NAMED = "A2A_BYTECODE_PYTHON"
# Where version managers keep their interpreters (``<root>/<version>/bin/pythonX.Y``): a pyenv
# shim on PATH runs only the active version, so the others are found here.
MANAGERS = (
    ("PYENV_ROOT", ".pyenv", "versions"),
    ("ASDF_DATA_DIR", ".asdf", "installs/python"),
    ("MISE_DATA_DIR", ".local/share/mise", "installs/python"),
)
# Where Lambda puts the code: the path tracebacks show, instead of the machine that built it.
TASK_ROOT = "/var/task"


class Bytecode(enum.Enum):
    """Whether the bundles carry bytecode for the runtime's Python version."""

    # Compile with an interpreter of that version if this machine has one (``$A2A_BYTECODE_PYTHON``,
    # ``python3.X`` on PATH, one pyenv, asdf or mise installed, or one uv knows); otherwise ship
    # sources and warn at synth time.
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
            f"name one with {NAMED}=/path/to/python{self.python_version}, "
            "or let uv fetch it with bytecode=Bytecode.DOWNLOAD"
        )


@functools.cache
def find_compiler(python_version: str, mode: Bytecode, uv: str) -> Compiler:
    """The interpreter that compiles bytecode for ``python_version`` under ``mode`` (looked up once)."""
    if mode is Bytecode.OFF:
        return Compiler(python_version, None, "bytecode=Bytecode.OFF")
    named = os.environ.get(NAMED)
    if named:
        if _version(named) != python_version:
            raise BundlingError(f"{NAMED}={named} is not a Python {python_version} interpreter")
        return Compiler(python_version, named)
    for candidate in (sys.executable, shutil.which(f"python{python_version}"), *_managed(python_version)):
        if candidate and _version(candidate) == python_version:
            return Compiler(python_version, candidate)
    found = _uv_find(uv, python_version)
    if found is None and mode is Bytecode.DOWNLOAD:
        run([uv, "python", "install", python_version], f"download Python {python_version}")
        found = _uv_find(uv, python_version, managed=True)
    if found is not None:
        return Compiler(python_version, found)
    looked = f"looked for python{python_version} on PATH, in pyenv, asdf and mise, and asked uv"
    return Compiler(python_version, None, looked)


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


def _managed(python_version: str) -> list[str]:
    """The version managers' interpreters of ``python_version``, the newest patch release first."""
    found: list[tuple[int, Path]] = []
    for variable, default, versions in MANAGERS:
        root = Path(os.environ.get(variable) or Path.home() / default) / versions
        for folder in root.glob(f"{python_version}.*"):
            patch = folder.name.removeprefix(f"{python_version}.")
            interpreter = folder / "bin" / f"python{python_version}"
            if patch.isdigit() and interpreter.is_file():  # not 3.13.0t (free-threaded) nor a dev build
                found.append((int(patch), interpreter))
    return [str(interpreter) for _, interpreter in sorted(found, reverse=True)]


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


def main(argv: list[str] | None = None) -> int:
    """``python -m a2a_core.bundling.bytecode 3.13``: print the interpreter the bundler would use."""
    (python_version,) = argv if argv is not None else sys.argv[1:]
    try:
        compiler = find_compiler(python_version, Bytecode.AUTO, find_uv(Path.cwd()))
    except BundlingError as error:
        print(error, file=sys.stderr)
        return 1
    if compiler.interpreter is None:
        print(compiler.warning(), file=sys.stderr)
        return 1
    print(compiler.interpreter)
    return 0


if __name__ == "__main__":
    sys.exit(main())
