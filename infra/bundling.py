"""A Lambda code asset per function, holding only what that function imports; built locally.

A bundle is the function's closure (`infra.closures`: the distributions it was traced importing)
out of the pinned runtime requirements in ``uv.lock`` (``uv export``), installed as manylinux
wheels for the functions' architecture and Python version, plus ``a2a_core`` and ``functions/``,
with bytecode precompiled (unchecked-hash ``.pyc`` files are never re-validated against sources,
so a cold start skips both compiling and the ``stat`` calls). Distributions shipped in part
(`infra.closures.PRUNED`, Powertools) keep only the packages the function imports. The worker,
which runs the agent, also gets the ``agent`` dependency group and the agent's own packages.
botocore and its dependencies come from the Lambda runtime unless ``include_boto3`` pins them
into the bundle.

The asset hash is computed from everything that decides the bundle's content (requirements,
sources, architecture, Python version, options), so CDK rebuilds exactly when one of them changes
and reuses ``cdk.out/asset.<hash>`` otherwise.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsii
from aws_cdk import AssetHashType, BundlingOptions, DockerImage, ILocalBundling
from aws_cdk import aws_lambda as lambda_

from infra import closures
from infra.wheels import (
    AGENT_GROUP,
    EXTRAS,
    UVICORN_OPTIONS,
    BundlingError,
    compile_bytecode,
    install_wheels,
    locked_requirements,
    prune_packages,
    requirement_name,
)

ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER = Path(__file__).resolve().parent / "placeholder"
SKIP_BUNDLING_CONTEXT = "a2a:skip_bundling"
# Where each source tree lands in the bundle (handlers are `functions.<name>.handler.handler`).
SOURCES = {"src/a2a_core": "a2a_core", "functions": "functions"}
WEB_SERVER_SCRIPT = "run.sh"
# Bump when the layout or the build steps change without any input changing.
BUNDLE_FORMAT = "2"

_PLATFORMS = {"arm64": "aarch64", "x86_64": "x86_64"}
# The start command the Lambda Web Adapter runs (AWS_LAMBDA_EXEC_WRAPPER=/opt/bootstrap): it waits
# for /healthz, then forwards every API Gateway request to this server and streams the answer back.
_RUN_SH = (
    "#!/bin/sh\n"
    'cd "$(dirname "$0")" || exit 1\n'
    "exec python3 -m uvicorn functions.api.handler:app \\\n"
    f'  --host 127.0.0.1 --port "${{AWS_LWA_PORT:-8080}}" {" ".join(UVICORN_OPTIONS)}\n'
)


@dataclass(frozen=True)
class BundleSpec:
    platform: str  # "aarch64" or "x86_64": the manylinux wheels to install
    python_version: str  # "3.11": the Lambda runtime's, also the wheels' ABI and the bytecode's
    # The (canonical) distributions to install, out of `EXTRAS`; None installs every one.
    distributions: tuple[str, ...] | None = None
    # Of the `closures.PRUNED` distributions, the dotted packages kept, when ``distributions`` is
    # given (the rest of them is removed).
    kept_packages: tuple[str, ...] = ()
    include_boto3: bool = False
    web_server: bool = False  # add run.sh, uvicorn's start script for the Lambda Web Adapter
    agent_dependencies: bool = False  # add the `agent` dependency group (the worker's)
    # The agent's own packages (directories, relative to the project root or absolute); each lands
    # at the bundle's top level under its directory name. Their dependencies belong in the `agent`
    # dependency group of pyproject.toml, so uv.lock pins them.
    packages: tuple[str, ...] = ()

    @classmethod
    def for_function(
        cls,
        function: str,
        architecture: lambda_.Architecture,
        runtime: lambda_.Runtime,
        *,
        auth: str = "api_key",
        web_server: bool = False,
        include_boto3: bool = False,
        packages: tuple[str, ...] = (),
    ) -> BundleSpec:
        """The bundle of ``function`` (`closures.FUNCTIONS`); ``auth`` and ``web_server`` matter to
        the API only, the agent's ``packages`` to the worker only."""
        settings = (
            {"auth": auth, "server": "uvicorn" if web_server else "mangum"} if function == "api" else {}
        )
        closure = closures.closure(function, settings)
        return cls(
            platform=_PLATFORMS[architecture.name],
            python_version=runtime.name.removeprefix("python"),
            distributions=tuple(sorted(closure.distributions)),
            kept_packages=tuple(sorted(closure.packages)),
            include_boto3=include_boto3,
            web_server=web_server and function == "api",
            agent_dependencies=function == "worker",
            packages=packages if function == "worker" else (),
        )


def export_requirements(spec: BundleSpec, root: Path = ROOT) -> str:
    """The locked runtime requirements (``name==version`` lines) the bundle installs."""
    lines = locked_requirements(EXTRAS, root=root).splitlines()
    if spec.distributions is not None:
        wanted = set(spec.distributions)
        lines = [line for line in lines if requirement_name(line) in wanted]
    if spec.agent_dependencies:
        agent = locked_requirements((), groups=(AGENT_GROUP,), root=root).splitlines()
        present = {requirement_name(line) for line in lines}
        lines += [line for line in agent if requirement_name(line) not in present]
    if not spec.include_boto3:
        lines = [line for line in lines if requirement_name(line) not in closures.RUNTIME_PROVIDED]
    return "".join(f"{line}\n" for line in sorted(lines) if requirement_name(line))


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
    import botocore  # this (the pinned) botocore's endpoints.json, pruned, goes into the bundle

    digest = hashlib.sha256()
    parts = (
        BUNDLE_FORMAT,
        repr(spec),
        requirements,
        _RUN_SH if spec.web_server else "",
        botocore.__version__,
    )
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    for path, name in source_files(root, spec.packages):
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def build_bundle(output: Path, spec: BundleSpec, requirements: str, root: Path = ROOT) -> None:
    """Install, copy and compile everything the functions need into ``output``."""
    python = install_wheels(output, requirements, spec.platform, spec.python_version, root)
    if spec.distributions is not None:
        prune_packages(output, spec.kept_packages)
    for path, name in source_files(root, spec.packages):
        target = output / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    if "botocore" in (spec.distributions or ("botocore",)):  # see a2a_core.aws.botocore_loader
        from a2a_core.aws.botocore_loader import PRUNED_ENDPOINTS, write_pruned_endpoints

        write_pruned_endpoints(output / "a2a_core" / "aws" / PRUNED_ENDPOINTS.name)
    if spec.web_server:
        script = output / WEB_SERVER_SCRIPT
        script.write_text(_RUN_SH)
        script.chmod(0o755)
    compile_bytecode(output, python)


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


def _is_cache(relative: Path) -> bool:
    return "__pycache__" in relative.parts or relative.suffix in {".pyc", ".pyo"}


def function_codes(
    architecture: lambda_.Architecture,
    runtime: lambda_.Runtime,
    *,
    auth: str,
    web_server: bool,
    include_boto3: bool,
    packages: tuple[str, ...],
    skip: bool,
) -> Callable[[str], lambda_.Code]:
    """Each function's own code asset, by its name in `closures.FUNCTIONS` (see `service_code`)."""

    def code(function: str) -> lambda_.Code:
        spec = BundleSpec.for_function(
            function,
            architecture,
            runtime,
            auth=auth,
            web_server=web_server,
            include_boto3=include_boto3,
            packages=packages,
        )
        return service_code(spec, skip=skip)

    return code
