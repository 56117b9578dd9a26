"""One Lambda function's bundle: what goes in, its asset hash, and its build.

A bundle holds the function's closure (`closures`: the distributions it was traced importing),
pinned as installed here and installed as manylinux wheels for the runtime's platform and Python
version; of the installed ``a2a_core`` package, the modules it was traced importing and every kit
module those can import (`a2a_core.bundling.modules`), never its deploy-time parts
(`a2a_core.cdk`, `a2a_core.bundling`, the project templates); in the worker, the agent project's
code and dependencies; and bytecode when an interpreter of the runtime's version compiles it
(`bytecode`). Distributions shipped in part (`closures.PRUNED`, Powertools) keep only the packages
the function imports. botocore and its dependencies come from the Lambda runtime unless
``include_boto3`` pins them into the bundle.

The asset hash covers everything that decides the content (requirements, sources, platform, Python
version, options, bytecode or not) and no path of this machine, so CDK rebuilds exactly when one
of them changes, reuses ``cdk.out/asset.<hash>`` otherwise, and every machine agrees on it.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import a2a_core
from a2a_core.bundling import closures, modules
from a2a_core.bundling.bytecode import compile_bytecode
from a2a_core.bundling.uv import BundlingError
from a2a_core.bundling.wheels import install_wheels, prune_packages

KIT_SOURCE = Path(a2a_core.__file__).resolve().parent
KIT_NAME = "a2a_core"
# Parts of the kit used only on a developer's machine, to deploy or to scaffold a project
# (`a2a-serverless init`'s templates): never imported in Lambda.
DEPLOY_TIME = frozenset({"cdk", "bundling", "templates"})
WEB_SERVER_SCRIPT = "run.sh"
# How the API function's uvicorn runs behind the Lambda Web Adapter (run.sh).
UVICORN_OPTIONS = ("--lifespan", "off", "--no-access-log")
# Bump when the layout or the build steps change without any input changing.
BUNDLE_FORMAT = "4"
PLATFORMS = {"arm64": "aarch64", "x86_64": "x86_64"}
# The start command the Lambda Web Adapter runs (AWS_LAMBDA_EXEC_WRAPPER=/opt/bootstrap): it waits
# for /healthz, then forwards every API Gateway request to this server and streams the answer back.
RUN_SH = (
    "#!/bin/sh\n"
    'cd "$(dirname "$0")" || exit 1\n'
    "exec python3 -m uvicorn a2a_core.functions.api.handler:app \\\n"
    f'  --host 127.0.0.1 --port "${{AWS_LWA_PORT:-8080}}" {" ".join(UVICORN_OPTIONS)}\n'
)


@dataclass(frozen=True)
class BundleSpec:
    """What kind of bundle: for which platform and Python, with which of the kit's distributions."""

    platform: str  # "aarch64" or "x86_64": the manylinux wheels to install
    python_version: str  # "3.13": the Lambda runtime's, also the wheels' ABI and the bytecode's
    distributions: tuple[str, ...] = ()  # the kit's (canonical) distributions to install
    # Of the `closures.PRUNED` distributions, the dotted packages kept (the rest is removed).
    kept_packages: tuple[str, ...] = ()
    include_boto3: bool = False
    web_server: bool = False  # add run.sh, uvicorn's start script for the Lambda Web Adapter
    agent: bool = False  # add the agent project's code and dependencies (the worker's)
    # The kit's modules the bundle carries (`a2a_core.bundling.modules`); empty: all of them.
    kit_modules: tuple[str, ...] = ()

    @classmethod
    def for_function(
        cls,
        function: str,
        *,
        architecture: str,
        python_version: str,
        auth: str = "api_key",
        web_server: bool = False,
        include_boto3: bool = False,
        agent: str | None = None,
        agent_imports: Sequence[str] = (),
    ) -> BundleSpec:
        """The bundle of ``function`` (`closures.FUNCTIONS`) for ``architecture`` ("arm64" or
        "x86_64"); ``auth`` and ``web_server`` matter to the API only, the agent to the worker
        (``agent``, "module:attribute": when it is one of the kit's, its module is bundled too;
        ``agent_imports``: the kit's modules the agent project's code imports, as a framework's
        session adapter, which nothing of the worker's own reaches)."""
        settings = (
            {"auth": auth, "server": "uvicorn" if web_server else "mangum"} if function == "api" else {}
        )
        closure = closures.closure(function, settings)
        starts = [f"{KIT_NAME}.functions.{function}.handler", *closure.modules]
        if function == "worker" and agent is not None:
            starts += [agent.partition(":")[0], *agent_imports]
        return cls(
            platform=PLATFORMS[architecture],
            python_version=python_version,
            distributions=tuple(sorted(closure.distributions)),
            kept_packages=tuple(sorted(closure.packages)),
            include_boto3=include_boto3,
            web_server=web_server and function == "api",
            agent=function == "worker",
            kit_modules=tuple(sorted(modules.reachable(starts, KIT_SOURCE))),
        )

    @property
    def installed(self) -> tuple[str, ...]:
        """The distributions this bundle carries itself (the runtime provides boto3's family)."""
        if self.include_boto3:
            return self.distributions
        return tuple(name for name in self.distributions if name not in closures.RUNTIME_PROVIDED)


@dataclass(frozen=True)
class Bundle:
    """Everything one bundle is built from. ``code`` is each source tree or module with its name
    in the bundle (the kit's package, the agent's); ``interpreter`` compiles the bytecode (None:
    sources only); relative paths in ``requirements`` mean ``cwd``."""

    spec: BundleSpec
    requirements: str  # the complete, locked set (``name==version`` lines)
    code: tuple[tuple[Path, str], ...] = ((KIT_SOURCE, KIT_NAME),)
    interpreter: str | None = field(default=None, compare=False)  # hashed as: bytecode or not
    uv: str = field(default="uv", compare=False)
    cwd: Path | None = field(default=None, compare=False)

    def source_files(self) -> Iterator[tuple[Path, str]]:
        """Every source file that goes into the bundle, with its path inside the bundle, sorted."""
        for source, name in self.code:
            if name == KIT_NAME and self.spec.kit_modules:
                for path, inside in modules.bundled_files(self.spec.kit_modules, source):
                    if not _skipped(name, Path(inside).relative_to(name)):
                        yield path, inside
                continue
            if source.is_file():
                yield source, name
                continue
            if not source.is_dir():
                raise BundlingError(f"{source} is not a directory or a file: it cannot be bundled")
            for path in sorted(source.rglob("*")):
                relative = path.relative_to(source)
                if path.is_file() and not _skipped(name, relative):
                    yield path, f"{name}/{relative.as_posix()}"

    def asset_hash(self) -> str:
        import botocore  # this (the installed) botocore's endpoints.json, pruned, goes into the bundle

        digest = hashlib.sha256()
        parts = (
            BUNDLE_FORMAT,
            repr(self.spec),
            self.requirements,
            RUN_SH if self.spec.web_server else "",
            botocore.__version__,
            f"bytecode={self.interpreter is not None}",
        )
        for part in parts:
            digest.update(part.encode())
            digest.update(b"\0")
        for path, name in [*self.source_files(), *self.local_wheels()]:
            digest.update(name.encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
        return digest.hexdigest()

    def local_wheels(self) -> list[tuple[Path, str]]:
        """The wheel files ``requirements`` names by path (relative to ``cwd``), with that line: a
        wheel rebuilt under the same name is a new input."""
        found = []
        for line in self.requirements.splitlines():
            text = line.split(";")[0].strip().removeprefix("file://")
            path = (self.cwd or Path.cwd()) / text if text.endswith(".whl") else None
            if path is not None and path.is_file():
                found.append((path, line))
        return found

    def build(self, output: Path) -> None:
        """Install, copy and compile everything the function needs into ``output``."""
        spec = self.spec
        install_wheels(
            output,
            self.requirements,
            platform=spec.platform,
            python_version=spec.python_version,
            uv=self.uv,
            cwd=self.cwd,
        )
        prune_packages(output, spec.kept_packages)
        for path, name in self.source_files():
            target = output / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        if "botocore" in spec.distributions:  # see a2a_core.aws.botocore_loader
            from a2a_core.aws.botocore_loader import PRUNED_ENDPOINTS, write_pruned_endpoints

            write_pruned_endpoints(output / KIT_NAME / "aws" / PRUNED_ENDPOINTS.name)
        if spec.web_server:
            script = output / WEB_SERVER_SCRIPT
            script.write_text(RUN_SH)
            script.chmod(0o755)
        if self.interpreter is not None:
            compile_bytecode(output, self.interpreter)


def _skipped(name: str, relative: Path) -> bool:
    if "__pycache__" in relative.parts or relative.suffix in {".pyc", ".pyo"}:
        return True
    return name == KIT_NAME and relative.parts[0] in DEPLOY_TIME
