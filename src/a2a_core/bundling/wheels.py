"""Locked wheels installed for a Lambda platform and Python version with uv, without Docker."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from a2a_core.bundling import closures
from a2a_core.bundling.uv import run

# The C library of the Lambda runtime's Amazon Linux: python3.11's is AL2 (glibc 2.26; uv's
# nearest tag below it is manylinux2014, glibc 2.17), later ones AL2023 (2.34). Some projects
# ship no wheel as old as manylinux2014 any more (greenlet, which SQLAlchemy needs).
MANYLINUX = {"3.11": "manylinux2014"}
AL2023 = "manylinux_2_34"


def lambda_platform(platform: str, python_version: str) -> str:
    """uv's ``--python-platform`` for a Lambda runtime: ``aarch64-manylinux_2_34`` for 3.13 on arm64."""
    return f"{platform}-{MANYLINUX.get(python_version, AL2023)}"


def install_wheels(
    output: Path, requirements: str, *, platform: str, python_version: str, uv: str, cwd: Path | None = None
) -> None:
    """Install ``requirements`` (locked and complete: no resolution) as ``platform``'s manylinux
    wheels for ``python_version`` into ``output``. Relative paths in them mean ``cwd``."""
    with tempfile.TemporaryDirectory(prefix="a2a-wheels-") as scratch:
        requirements_file = Path(scratch) / "requirements.txt"
        requirements_file.write_text(requirements)
        run(
            [
                uv,
                "pip",
                "install",
                "--quiet",
                "--target",
                str(output),
                "--python",
                sys.executable,  # only for uv's own bookkeeping: the platform and version are given
                "--python-platform",
                lambda_platform(platform, python_version),
                "--python-version",
                python_version,
                "--only-binary",
                ":all:",
                "--no-deps",  # the requirements are the complete, locked set
                "--link-mode",
                "copy",
                "--requirement",
                str(requirements_file),
            ],
            f"install the {platform} wheels for Python {python_version}",
            cwd=cwd,
            # Bytecode is compiled afterwards, by the runtime's Python version or not at all.
            env={key: value for key, value in os.environ.items() if key != "UV_COMPILE_BYTECODE"},
        )
    strip_machine_paths(output)


def strip_machine_paths(output: Path) -> None:
    """Remove what names this machine: console scripts (they start with this machine's Python)
    and the install records of local or URL sources (``direct_url.json``)."""
    shutil.rmtree(output / "bin", ignore_errors=True)
    for record in output.glob("*.dist-info/direct_url.json"):
        record.unlink()


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
