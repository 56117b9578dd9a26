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

from a2a_core.core.executor import AgentExecutor, as_executor
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


def import_agent(ref: AgentRef | str) -> AgentExecutor:
    """Import the agent ``ref`` names (its roots first on ``sys.path``) as an executor; raises
    `AgentLoadError` saying what to fix. An exception the module itself raises propagates."""
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
    return as_executor(target)


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
    if isinstance(target, AgentExecutor):
        return None
    if isinstance(target, type) and issubclass(target, AgentExecutor):
        return f"the class {target.__name__}, not an agent: name an instance (agent = {target.__name__}())"
    if inspect.isfunction(target) and not inspect.iscoroutinefunction(target):
        return f"a plain function; an agent is an async function: async def {target.__name__}(ctx)"
    if not callable(target):
        return f"a {type(target).__name__}, neither an async function nor an AgentExecutor"
    return None


def _agents_in(module: ModuleType) -> list[str]:
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (
            isinstance(value, AgentExecutor)
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
