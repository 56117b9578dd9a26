"""The worker bundle of the project each template makes (``a2a-serverless init --template``), unzipped
and zipped, against the 250 MB a .zip Lambda function may unzip to.

Each project is made in a scratch folder with the kit from this checkout, locked (``uv lock``, from the
package index) to the versions of the kit's dependencies installed here, and its
worker bundle built as the CDK construct builds it for the default runtime, Python 3.13 on arm64
(its manylinux wheels, boto3's family left to the runtime), with bytecode only where a Python 3.13
is found to compile it (as the construct does). Zipped with deflate at zlib's default level, as
CDK's asset zips are. The other functions' bundles carry no framework: `bundle_sizes` has them.

    .venv/bin/python bench/framework_bundles.py [--template adk ...] [--python 3.11] [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

import smoke  # noqa: E402
from a2a_core.bundling import closures  # noqa: E402
from a2a_core.bundling.plan import BundleOptions, BundlePlan  # noqa: E402
from a2a_core.bundling.requirements import kit_pins  # noqa: E402
from a2a_core.bundling.size import MB, ZIP_LIMIT, BundleSize, measure  # noqa: E402
from a2a_core.bundling.uv import find_uv  # noqa: E402
from a2a_core.cli import main as cli  # noqa: E402
from a2a_core.project import load_project  # noqa: E402

TEMPLATES = ("plain", "adk", "agent-framework", "strands")
PYTHON = "3.13"  # the default runtime's (its wheels: AL2023's manylinux)


def worker_bundle(template: str, scratch: Path, *, python: str = PYTHON) -> tuple[BundleSize, int]:
    """The worker bundle of ``template``'s project: its size by share, and zipped."""
    project = scratch / template / "agent"
    with redirect_stdout(io.StringIO()):
        cli(["init", str(project), "--template", template, "--kit-source", str(ROOT)])
    # Held to the kit's pins, as a project synced beside the installed kit would be.
    pins = kit_pins(closures.closure("worker").distributions)
    with (project / "pyproject.toml").open("a") as pyproject:
        pyproject.write(f"\n[tool.uv]\nconstraint-dependencies = {json.dumps(pins)}\n")
    uv = find_uv(ROOT)
    lock = [uv, "lock", "--quiet", "--python", sys.executable]  # the package index, as a user locks
    subprocess.run(lock, cwd=project, check=True, env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"})
    output = scratch / template / "worker"
    options = BundleOptions(architecture="arm64", python_version=python)
    BundlePlan(load_project(project), options, uv=uv).bundle("worker").build(output)
    return measure(output), zipped(output)


def zipped(bundle: Path) -> int:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in bundle.rglob("*") if p.is_file()):
            archive.write(path, path.relative_to(bundle))
    return len(buffer.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--template", nargs="+", choices=TEMPLATES, default=list(TEMPLATES))
    parser.add_argument(
        "--python", default=PYTHON, help="the runtime's Python (3.11: this interpreter compiles bytecode)"
    )
    parser.add_argument("--json", action="store_true", help="print one machine-readable JSON object")
    args = smoke.parse(parser, template=["plain"])
    sizes = {}
    with tempfile.TemporaryDirectory(prefix="a2a-framework-bundles-") as scratch:
        for template in args.template:
            sizes[template] = worker_bundle(template, Path(scratch), python=args.python)
    if args.json:
        report = {
            name: {"unzipped": size.total, "zipped": packed, "biggest": dict(size.shares[:5])}
            for name, (size, packed) in sizes.items()
        }
        print(json.dumps({"benchmark": "framework_bundles", "workers": report}))
        return
    where = f"Python {args.python} on arm64 (MB = 2^20 bytes; limit {ZIP_LIMIT / MB:.0f})"
    print(f"The worker bundle of each template's project, {where}")
    print()
    header = f"{'template':<16} {'unzipped MB':>11} {'zipped MB':>10}  biggest"
    print(header)
    print("-" * len(header))
    for name, (size, packed) in sizes.items():
        print(f"{name:<16} {size.total / MB:>11.1f} {packed / MB:>10.1f}  {size.biggest(4)}")


if __name__ == "__main__":
    main()
