"""One Lambda code asset for every function, built locally without Docker.

The bundle is the pinned runtime requirements from ``uv.lock`` (``uv export``) installed as
manylinux wheels for the functions' architecture and Python version, plus ``a2a_core`` and
``functions/``, with bytecode precompiled (unchecked-hash ``.pyc`` files are never re-validated
against sources, so a cold start skips both compiling and the ``stat`` calls). boto3 and its
dependencies come from the Lambda runtime unless ``include_boto3`` pins them into the bundle.

The asset hash is computed from everything that decides the bundle's content (requirements,
sources, architecture, Python version, options), so CDK rebuilds exactly when one of them changes
and reuses ``cdk.out/asset.<hash>`` otherwise.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsii
from aws_cdk import AssetHashType, BundlingOptions, DockerImage, ILocalBundling
from aws_cdk import aws_lambda as lambda_

ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER = Path(__file__).resolve().parent / "placeholder"
SKIP_BUNDLING_CONTEXT = "a2a:skip_bundling"
# Where each source tree lands in the bundle (handlers are `functions.<name>.handler.handler`).
SOURCES = {"src/a2a_core": "a2a_core", "functions": "functions"}
WEB_SERVER_SCRIPT = "run.sh"
# Bump when the layout or the build steps change without any input changing.
BUNDLE_FORMAT = "1"

_PLATFORMS = {"arm64": "aarch64", "x86_64": "x86_64"}
# The start command the Lambda Web Adapter runs (AWS_LAMBDA_EXEC_WRAPPER=/opt/bootstrap): it waits
# for /healthz, then forwards every API Gateway request to this server and streams the answer back.
_RUN_SH = """#!/bin/sh
cd "$(dirname "$0")" || exit 1
exec python3 -m uvicorn functions.api.handler:app \\
  --host 127.0.0.1 --port "${AWS_LWA_PORT:-8080}" --lifespan off --no-access-log
"""


class BundlingError(RuntimeError):
    """The bundle could not be built; the message says which step failed and how to fix it."""


@dataclass(frozen=True)
class BundleSpec:
    platform: str  # "aarch64" or "x86_64": the manylinux wheels to install
    python_version: str  # "3.11": the Lambda runtime's, also the wheels' ABI and the bytecode's
    extras: tuple[str, ...] = ("aws",)
    include_boto3: bool = False
    web_server: bool = False  # add uvicorn and run.sh for the Lambda Web Adapter
    # The agent's own packages (directories, relative to the project root or absolute); each lands
    # at the bundle's top level under its directory name. Their dependencies belong in the `aws`
    # extra of pyproject.toml, so uv.lock pins them.
    packages: tuple[str, ...] = ()

    @classmethod
    def for_function(
        cls,
        architecture: lambda_.Architecture,
        runtime: lambda_.Runtime,
        *,
        web_server: bool = False,
        include_boto3: bool = False,
        packages: tuple[str, ...] = (),
    ) -> BundleSpec:
        return cls(
            platform=_PLATFORMS[architecture.name],
            python_version=runtime.name.removeprefix("python"),
            extras=("aws", "web") if web_server else ("aws",),
            include_boto3=include_boto3,
            web_server=web_server,
            packages=packages,
        )


def find_uv(root: Path = ROOT) -> str:
    """The uv that manages this project: ``$UV``, then ``.tools/bin/uv`` (``make setup``), then PATH."""
    candidates = [os.environ.get("UV"), str(root / ".tools" / "bin" / "uv"), shutil.which("uv")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise BundlingError("uv not found: run `make setup` (it installs .tools/bin/uv) or set UV=/path/to/uv")


def export_requirements(spec: BundleSpec, root: Path = ROOT) -> str:
    """The locked runtime requirements (``name==version`` lines) the bundle installs."""
    command = [
        find_uv(root),
        "export",
        "--project",
        str(root),
        "--frozen",
        "--no-dev",
        "--no-emit-project",
        "--no-hashes",
        "--no-header",
        "--no-annotate",
        *(f"--extra={extra}" for extra in spec.extras),
    ]
    if not spec.include_boto3:
        command.append("--prune=boto3")  # with botocore, s3transfer, urllib3, ... (runtime-provided)
    return _run(command, "export the locked requirements").stdout


def source_files(root: Path = ROOT, packages: tuple[str, ...] = ()) -> Iterator[tuple[Path, str]]:
    """Every source file that goes into the bundle, with its path inside the bundle, sorted."""
    trees = {**SOURCES, **{package: Path(package).name for package in packages}}
    for source, target in trees.items():
        base = root / source
        if not base.is_dir():
            raise BundlingError(f"{base} is not a directory: it cannot be bundled")
        for path in sorted(base.rglob("*")):
            if path.is_file() and not _is_cache(path.relative_to(base)):
                yield path, f"{target}/{path.relative_to(base).as_posix()}"


def asset_hash(spec: BundleSpec, requirements: str, root: Path = ROOT) -> str:
    digest = hashlib.sha256()
    for part in (BUNDLE_FORMAT, repr(spec), requirements, _RUN_SH if spec.web_server else ""):
        digest.update(part.encode())
        digest.update(b"\0")
    for path, name in source_files(root, spec.packages):
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


MODE = "unchecked-hash"  # bytecode Lambda never re-validates against (read-only) sources


def build_bundle(output: Path, spec: BundleSpec, requirements: str, root: Path = ROOT) -> None:
    """Install, copy and compile everything the functions need into ``output``."""
    python = _interpreter(spec.python_version)
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
                f"{spec.platform}-manylinux2014",
                "--python-version",
                spec.python_version,
                "--only-binary",
                ":all:",
                "--no-deps",  # the export is the complete, locked set
                "--link-mode",
                "copy",
                "--requirement",
                str(requirements_file),
            ],
            f"install the {spec.platform} wheels",
        )
    shutil.rmtree(output / "bin", ignore_errors=True)  # console scripts point at this machine's Python
    for path, name in source_files(root, spec.packages):
        target = output / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    if spec.web_server:
        script = output / WEB_SERVER_SCRIPT
        script.write_text(_RUN_SH)
        script.chmod(0o755)
    _run(
        # -f: the installer may already have written timestamp-checked bytecode (UV_COMPILE_BYTECODE),
        # which compileall would otherwise keep.
        [python, "-m", "compileall", "-f", "-q", "-j", "0", "--invalidation-mode", MODE, str(output)],
        "precompile the bytecode",
    )


@jsii.implements(ILocalBundling)
class LocalBundler:
    def __init__(self, spec: BundleSpec, requirements: str, root: Path = ROOT) -> None:
        self._spec = spec
        self._requirements = requirements
        self._root = root

    def try_bundle(self, output_dir: str, *, image: DockerImage, **options: Any) -> bool:
        build_bundle(Path(output_dir), self._spec, self._requirements, self._root)
        return True


def service_code(spec: BundleSpec, *, skip: bool, root: Path = ROOT) -> lambda_.Code:
    """The shared asset; ``skip`` (context ``a2a:skip_bundling``) gives a placeholder for tests."""
    if skip:
        return lambda_.Code.from_asset(str(PLACEHOLDER))
    requirements = export_requirements(spec, root)
    return lambda_.Code.from_asset(
        str(root / "functions"),
        asset_hash_type=AssetHashType.CUSTOM,
        asset_hash=asset_hash(spec, requirements, root),
        bundling=BundlingOptions(
            # Never pulled: the local bundler always succeeds or raises. Named for anyone who
            # wants to swap in Docker bundling.
            image=DockerImage.from_registry(f"public.ecr.aws/sam/build-python{spec.python_version}"),
            local=LocalBundler(spec, requirements, root),
        ),
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


def _is_cache(relative: Path) -> bool:
    return "__pycache__" in relative.parts or relative.suffix in {".pyc", ".pyo"}


def _run(command: list[str], step: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    if result.returncode != 0:
        raise BundlingError(f"could not {step}: {' '.join(command)}\n{result.stderr.strip()}")
    return result
