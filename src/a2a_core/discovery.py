"""Which agent to serve, and importing it as the user's project lays it out.

A project names its agent once, in ``[tool.a2a-serverless]`` (`a2a_core.project`). `find_agent`
finds that table from a directory up, as ruff finds its configuration, with the project's import
roots (the folders holding its code, ``src/`` in what ``a2a-serverless init`` writes), and
`import_agent` puts those first on ``sys.path``, as uvicorn's ``--app-dir`` does, so no
``PYTHONPATH`` is needed. ``a2a-serverless dev`` and `a2a_core.testing.project_agent` serve what
it finds; a Lambda function imports ``A2A_AGENT`` from the top of its bundle. A failure says
which module, where it was looked for, and what named it.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from a2a_core.adapters.resolve import is_agent, resolve_agent
from a2a_core.core.turn.executor import Agent
from a2a_core.settings import SettingsError

if TYPE_CHECKING:
    from a2a_core.project import Project

DEFAULT_AGENT = "a2a_core.examples.echo:agent"


class AgentLoadError(SettingsError):
    """The agent cannot be imported; the message says where it was looked for and what named it."""


@dataclass(frozen=True)
class AgentRef:
    """An agent to import: ``package.module:attribute``, the folders its code is imported from,
    the project it belongs to (if any), and what named it (said in errors and dev's banner)."""

    spec: str
    roots: tuple[Path, ...] = ()
    project: Project | None = None
    named_by: str = "A2A_AGENT"

    def describe(self) -> str:
        return f"{self.spec} ({self.named_by})"


def find_agent(
    agent: str | None = None,
    *,
    named_by: str = "--agent",
    project_dir: Path | str | None = None,
    start: Path | str | None = None,
    default: str | None = DEFAULT_AGENT,
) -> AgentRef:
    """The agent to serve: ``agent`` if given (``named_by`` says by what), else the one the project
    names; the project is ``project_dir``'s, else the nearest from ``start`` (default: the current
    directory) up. Outside any project, ``agent`` or ``default`` (None: raise
    `ProjectNotFoundError`). Raises `ProjectError` for a project whose table is wrong."""
    from a2a_core.project import ProjectNotFoundError, find_project, load_project

    if project_dir is not None:
        project = load_project(project_dir)
    else:
        try:
            project = find_project(start)
        except ProjectNotFoundError:
            if agent is None and default is None:
                raise
            where = Path(start if start is not None else Path.cwd()).resolve()
            if agent is not None:  # the directory is importable, as uvicorn's default --app-dir
                return AgentRef(agent, (where,), named_by=named_by)
            fallback = (
                f"the kit's example: no [tool.a2a-serverless] table in {where} or above; "
                "`a2a-serverless init DIR` makes a project"
            )
            return AgentRef(str(default), named_by=fallback)
    if agent is None:
        return AgentRef(project.agent, project.import_roots(), project, _table(project))
    return AgentRef(agent, _roots(project, agent), project, named_by)


def import_agent(ref: AgentRef | str) -> Agent:
    """Import the agent ``ref`` names (its roots first on ``sys.path``) as the worker runs it (any
    `a2a_core.adapters.resolve` takes: a function, an `Agent`, an a2a-sdk executor, either's
    class, or a factory); raises `AgentLoadError` saying what to fix. An exception the module
    itself raises propagates."""
    ref = AgentRef(ref) if isinstance(ref, str) else ref
    module_name, _, attribute = ref.spec.partition(":")
    if not module_name or not attribute:
        raise _error(ref, "it must look like 'package.module:attribute'")
    for root in reversed(ref.roots):
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
    module = _import(ref, module_name)
    try:
        target: Any = functools.reduce(getattr, attribute.split("."), module)
    except AttributeError:
        found = ", ".join(_agents_in(module)) or "none"
        where = f"{module_name} ({module.__file__})"
        raise _error(ref, f"{where} has no attribute {attribute!r}; the agents it defines: {found}") from None
    problem = _not_an_agent(target)
    if problem:
        raise _error(ref, f"{ref.spec} is {problem}")
    try:
        return resolve_agent(target, name=ref.spec)
    except TypeError as error:
        raise _error(ref, str(error)) from None


def _import(ref: AgentRef, module_name: str) -> ModuleType:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name
        if not missing:  # raised by hand, naming no module: the module's own doing
            raise
        if not (module_name == missing or module_name.startswith(f"{missing}.")):
            raise _error(ref, _dependency_missing(module_name, missing)) from None
        raise _error(ref, f"no module {missing!r} {_looked_in(ref, missing)}") from None


def _dependency_missing(module_name: str, missing: str) -> str:
    top = missing.partition(".")[0]
    if top in sys.modules or importlib.util.find_spec(top) is not None:  # a module of an existing package
        return f"{module_name} imports {missing!r}, which does not exist"
    return (
        f"{module_name} imports {missing!r}, which is not installed for {sys.executable}: run in the "
        f"project's environment (`uv run ...` installs what pyproject.toml names; `uv add NAME` adds a "
        f"dependency), or pip install the package that provides {top!r}"
    )


def _looked_in(ref: AgentRef, missing: str) -> str:
    parent = missing.rpartition(".")[0]
    if parent and parent in sys.modules:  # the package was found: the module is not in it
        package = sys.modules[parent]
        return f"in the package {parent} ({', '.join(getattr(package, '__path__', [])) or package.__file__})"
    if ref.roots:
        return f"in {', '.join(str(root) for root in ref.roots)} or among the installed packages"
    return "among the installed packages"


def _not_an_agent(target: Any) -> str | None:
    """What is plainly wrong with ``target`` as an agent (what `resolve_agent` cannot tell: a
    plain function taking arguments, written without ``async``)."""
    if inspect.isfunction(target) and not inspect.iscoroutinefunction(target):
        required = [p for p in inspect.signature(target).parameters.values() if p.default is p.empty]
        if required:
            return f"a plain function; an agent is an async function: async def {target.__name__}(ctx)"
    return None


def _agents_in(module: ModuleType) -> list[str]:
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (
            is_agent(value)
            or (inspect.iscoroutinefunction(value) and getattr(value, "__module__", None) == module.__name__)
        )
    ]


def _roots(project: Project, agent: str) -> tuple[Path, ...]:
    """The project's code stays importable beside another agent (``--agent``), which may be
    installed rather than in the project."""
    from a2a_core.project import ProjectError

    roots: list[Path] = []
    with contextlib.suppress(ProjectError):
        roots += project.with_agent(agent).import_roots()
    with contextlib.suppress(ProjectError):
        roots += project.import_roots()
    return tuple(dict.fromkeys(roots))


def _table(project: Project) -> str:
    return f"[tool.a2a-serverless] agent in {project.pyproject}"


def _error(ref: AgentRef, problem: str) -> AgentLoadError:
    return AgentLoadError(f"cannot load agent {ref.spec!r} ({ref.named_by}): {problem}")
