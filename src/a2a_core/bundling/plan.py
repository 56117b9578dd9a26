"""Every function's bundle for one service: the kit's closures and, in the worker, the agent's."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from a2a_core.bundling import closures, modules
from a2a_core.bundling.build import KIT_NAME, KIT_SOURCE, Bundle, BundleSpec
from a2a_core.bundling.bytecode import Bytecode, Compiler, find_compiler
from a2a_core.bundling.requirements import agent_requirements, kit_pins, merge, requirement_name
from a2a_core.bundling.uv import find_uv
from a2a_core.project import Project, RequirementsFile

# The long-turn worker's entry point (`python -m`), in a container on a Python base image.
LONG_WORKER = f"{KIT_NAME}.functions.long_worker"
# What the Lambda runtime gives the worker and no Python base image has: the container's bundle
# carries it (the lean client's credential chain reads a task role's credentials through botocore).
BOTOCORE_FAMILY = ("botocore", "jmespath", "python-dateutil", "six", "urllib3")


@dataclass(frozen=True)
class BundleOptions:
    """The deployment choices that decide what the bundles hold."""

    architecture: str = "arm64"  # or "x86_64"
    python_version: str = "3.13"  # the Lambda runtime's
    auth: str = "api_key"  # the API's auth mode (`closures`: JWT checks need cryptography)
    web_server: bool = False  # the API runs uvicorn behind the Lambda Web Adapter
    include_boto3: bool = False
    bytecode: Bytecode = Bytecode.AUTO


class BundlePlan:
    """The bundles of one service for ``project``: the agent's dependencies are exported (or
    resolved) once, and the bytecode interpreter looked up once."""

    def __init__(self, project: Project, options: BundleOptions, *, uv: str | None = None) -> None:
        self.project = project
        self.options = options
        self.uv = uv or find_uv(project.root)

    @functools.cached_property
    def compiler(self) -> Compiler:
        return find_compiler(self.options.python_version, self.options.bytecode, self.uv)

    def spec(self, function: str) -> BundleSpec:
        options = self.options
        return BundleSpec.for_function(
            function,
            architecture=options.architecture,
            python_version=options.python_version,
            auth=options.auth,
            web_server=options.web_server,
            include_boto3=options.include_boto3,
            agent=self.project.agent,
            agent_imports=self._agent_imports,
        )

    @functools.cached_property
    def _agent_imports(self) -> tuple[str, ...]:
        """The kit's modules the project's code imports (read once)."""
        return tuple(sorted(modules.imported_by(self.project.code_paths(), KIT_NAME)))

    def bundle(self, function: str) -> Bundle:
        """``function``'s bundle (`closures.FUNCTIONS`)."""
        return self._bundle(self.spec(function))

    def long_worker_bundle(self) -> Bundle:
        """The worker's bundle for the long-turn worker's container: the worker's files, the
        entry point's modules (`LONG_WORKER`) and botocore's family."""
        worker = self.spec("worker")
        entry = modules.reachable([LONG_WORKER, f"{LONG_WORKER}.__main__"], KIT_SOURCE)
        spec = dataclasses.replace(
            worker,
            include_boto3=True,
            distributions=tuple(sorted({*worker.distributions, *BOTOCORE_FAMILY})),
            kit_modules=tuple(sorted({*worker.kit_modules, *entry})),
        )
        return self._bundle(spec)

    def _bundle(self, spec: BundleSpec) -> Bundle:
        requirements = kit_pins(spec.installed)
        code = [(KIT_SOURCE, KIT_NAME)]
        if spec.agent:
            requirements = merge(requirements, self._agent_requirements(spec), source=self._source_name())
            code += [(path, path.name) for path in self.project.code_paths()]
        return Bundle(
            spec=spec,
            requirements="".join(f"{line}\n" for line in requirements),
            code=tuple(code),
            interpreter=self.compiler.interpreter,
            uv=self.uv,
            cwd=self.project.root,
        )

    def _agent_requirements(self, spec: BundleSpec) -> list[str]:
        if spec.include_boto3:
            return self.agent_lines
        return [line for line in self.agent_lines if requirement_name(line) not in closures.RUNTIME_PROVIDED]

    @functools.cached_property
    def agent_lines(self) -> list[str]:
        """The agent project's dependencies for the worker's platform, held to the kit's pins."""
        return agent_requirements(
            self.project,
            self.uv,
            platform=self.spec("worker").platform,
            python_version=self.options.python_version,
            constraints=kit_pins(closures.closure("worker").distributions),
        )

    def _source_name(self) -> str:
        source = self.project.dependency_source()
        return (
            str(source.path) if isinstance(source, RequirementsFile) else str(self.project.root / "uv.lock")
        )
