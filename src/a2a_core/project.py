"""The agent project: what its ``pyproject.toml`` says under ``[tool.a2a-serverless]``.

    [tool.a2a-serverless]
    agent = "research.agent:agent"      # required: package.module:attribute
    name = "Research agent"             # the agent card's name, description, version and skills
    description = "Finds and summarises papers."
    skills = [{ id = "search", name = "Search", description = "Finds papers.", tags = ["papers"] }]
    packages = ["src/research"]         # your code, deployed to the worker (default: the agent's package)
    requirements = "requirements.txt"   # the agent's dependencies when they are not in uv.lock
    dependency-groups = ["agent"]       # or: these groups of uv.lock instead of [project] dependencies
    max_turn_seconds = 3600             # the longest a turn may run (default: the Lambda worker's limit)

`find_project` walks up from a directory to the nearest ``pyproject.toml`` that has the table, as
ruff finds its configuration. ``a2a-serverless dev``, the testing helper and the CDK construct
(`a2a_core.cdk`) read the project here, so the agent is named once.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from a2a_core.domain import AgentSkill
from a2a_core.settings import MAX_TURN_SECONDS

TABLE = "a2a-serverless"
# The kit itself: its package is always deployed, and its distribution is no agent dependency.
KIT_PACKAGE = "a2a_core"
KIT_DISTRIBUTION = "a2a-serverless"
_AGENT = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_EXAMPLE = f'[tool.{TABLE}] agent = "my_package.agent:agent" (package.module:attribute)'


class ProjectError(ValueError):
    """The project's configuration is missing or wrong; the message names the file and the fix."""


class ProjectNotFoundError(ProjectError):
    """No ``pyproject.toml`` with a ``[tool.a2a-serverless]`` table from the directory up."""


class ProjectConfig(BaseModel):
    """The ``[tool.a2a-serverless]`` table, validated."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=lambda name: name.replace("_", "-"),
        populate_by_name=True,
    )

    agent: str
    name: str | None = None
    description: str | None = None
    version: str | None = None  # default: [project] version
    skills: tuple[AgentSkill, ...] = ()
    packages: tuple[str, ...] | None = None
    requirements: str | None = None
    dependency_groups: tuple[str, ...] | None = Field(default=None, min_length=1)
    # Longer than the Lambda worker allows (900 s), and turns run on the long-turn worker.
    max_turn_seconds: float | None = Field(default=None, gt=0, le=MAX_TURN_SECONDS)

    @field_validator("agent")
    @classmethod
    def _agent(cls, agent: str) -> str:
        if not _AGENT.match(agent):
            raise ValueError(f"must look like 'package.module:attribute', got {agent!r}")
        return agent

    @field_validator("skills", mode="before")
    @classmethod
    def _skills(cls, skills: Any) -> Any:
        """Keys as TOML writes them (``input-modes``) or as the card does (``inputModes``); a key
        the card does not know is refused, where the card model would drop it."""
        if not isinstance(skills, list | tuple):
            return skills
        known = {name: name for name in AgentSkill.model_fields}
        known |= {str(field.alias): name for name, field in AgentSkill.model_fields.items() if field.alias}
        renamed = []
        for skill in skills:
            if not isinstance(skill, Mapping):
                return skills
            unknown = [key for key in skill if known.get(str(key).replace("-", "_"), known.get(key)) is None]
            if unknown:
                raise ValueError(
                    f"unknown key {unknown[0]!r} (a skill has {', '.join(AgentSkill.model_fields)})"
                )
            renamed.append({known.get(str(k).replace("-", "_"), known.get(k)): v for k, v in skill.items()})
        return renamed


@dataclass(frozen=True)
class LockedDependencies:
    """The agent's dependencies as ``uv.lock`` pins them: the project's own (without the kit and
    what only the kit needs), or only those of ``groups``."""

    lock: Path
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class RequirementsFile:
    path: Path


@dataclass(frozen=True)
class Project:
    root: Path  # the directory of pyproject.toml
    config: ProjectConfig
    distribution: str | None = None  # [project] name
    version: str | None = None  # [project] version
    dependencies: tuple[str, ...] = ()  # [project] dependencies, as written

    @property
    def pyproject(self) -> Path:
        return self.root / "pyproject.toml"

    @property
    def agent(self) -> str:
        return self.config.agent

    @property
    def is_kit(self) -> bool:
        """This is a2a-serverless's own repository (whose agents are the kit's examples)."""
        return self.distribution == KIT_DISTRIBUTION

    def with_agent(self, agent: str) -> Project:
        """The same project serving another agent (say, another of its modules)."""
        return replace(self, config=_validated(self.pyproject, {**_table_of(self.config), "agent": agent}))

    def code_paths(self) -> tuple[Path, ...]:
        """The user's packages and modules to deploy (directories or ``.py`` files), each landing at
        the top of the worker's bundle under its own name; none when the agent is the kit's."""
        top = self.agent.partition(":")[0].partition(".")[0]
        if self.config.packages is None:
            return () if top == KIT_PACKAGE else (self._find_module(top),)
        paths = tuple(self.root / package for package in self.config.packages)
        missing = [str(p.relative_to(self.root)) for p in paths if not (p.is_dir() or p.suffix == ".py")]
        missing += [str(p.relative_to(self.root)) for p in paths if p.suffix == ".py" and not p.is_file()]
        if missing:
            raise self._error(f"packages: {', '.join(missing)} are neither directories nor .py files")
        names = [_import_name(path) for path in paths]
        if KIT_PACKAGE in names or len(set(names)) != len(names):
            raise self._error(f"packages: the names {names} must be unique and not {KIT_PACKAGE!r}")
        if top not in names and top != KIT_PACKAGE:
            raise self._error(f"packages: the agent's package {top!r} is not among {names}")
        return paths

    def import_roots(self) -> tuple[Path, ...]:
        """What goes on ``sys.path`` so the agent imports as it will in Lambda (uvicorn's
        ``--app-dir``): the directories holding `code_paths`."""
        return tuple(dict.fromkeys(path.parent for path in self.code_paths()))

    def dependency_source(self) -> LockedDependencies | RequirementsFile | None:
        """Where the agent's dependencies (the worker's, beside the kit's) come from."""
        config, lock = self.config, self.root / "uv.lock"
        if config.requirements is not None and config.dependency_groups is not None:
            raise self._error("name either requirements or dependency-groups, not both")
        if config.requirements is not None:
            path = self.root / config.requirements
            if not path.is_file():
                raise self._error(f"requirements: {path} does not exist")
            return RequirementsFile(path)
        if lock.is_file():
            return LockedDependencies(lock, config.dependency_groups or ())
        if config.dependency_groups is not None:
            raise self._error(f"dependency-groups need a uv.lock beside it: run `uv lock` in {self.root}")
        if (self.root / "requirements.txt").is_file():
            return RequirementsFile(self.root / "requirements.txt")
        others = [d for d in self.dependencies if _distribution(d) != KIT_DISTRIBUTION]
        if others:
            raise self._error(
                f"[project] dependencies list {others} but there is no uv.lock to pin them: run "
                '`uv lock`, or name a pinned file with requirements = "requirements.txt"'
            )
        return None

    def card_environment(self) -> dict[str, str]:
        """The agent card's name, description, version and skills as the app reads them (``A2A_*``)."""
        config = self.config
        values = {
            "A2A_NAME": config.name,
            "A2A_DESCRIPTION": config.description,
            "A2A_VERSION": config.version or self.version,
            "A2A_SKILLS": json.dumps([s.model_dump(mode="json", exclude_none=True) for s in config.skills])
            if config.skills
            else None,
        }
        return {key: value for key, value in values.items() if value is not None}

    def turn_environment(self) -> dict[str, str]:
        """How long the project's turns may run, as the functions read it (``A2A_MAX_TURN_SECONDS``)."""
        seconds = self.config.max_turn_seconds
        return {} if seconds is None else {"A2A_MAX_TURN_SECONDS": f"{seconds:g}"}

    def _find_module(self, top: str) -> Path:
        for base in (self.root, self.root / "src"):
            for candidate in (base / top, base / f"{top}.py"):
                if candidate.exists():
                    return candidate
        raise self._error(
            f"agent {self.agent!r}: no {top}/ package or {top}.py module in {self.root} or "
            f'{self.root / "src"}; name where your code is: packages = ["path/to/{top}"]'
        )

    def _error(self, problem: str) -> ProjectError:
        return ProjectError(f"{self.pyproject}: [tool.{TABLE}] {problem}")


def find_project(start: Path | str | None = None) -> Project:
    """The project of the nearest ``pyproject.toml`` with a ``[tool.a2a-serverless]`` table, from
    ``start`` (default: the current directory) up to the filesystem root."""
    here = Path(start if start is not None else Path.cwd()).resolve()
    seen: list[Path] = []
    for directory in (here, *here.parents):
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            if TABLE in _read(pyproject).get("tool", {}):
                return load_project(pyproject)
            seen.append(pyproject)
    where = f"{seen[0]} has" if seen else f"there is no pyproject.toml in {here} or above it, so nothing has"
    raise ProjectNotFoundError(
        f"no a2a-serverless project found: {where} no [tool.{TABLE}] table. Add one naming your "
        f"agent, {_EXAMPLE}, or make a project with `a2a-serverless init DIR`"
    )


def load_project(path: Path | str) -> Project:
    """The project of ``path``: a ``pyproject.toml`` or the directory holding one."""
    pyproject = Path(path).resolve()
    if pyproject.is_dir():
        pyproject = pyproject / "pyproject.toml"
    if not pyproject.is_file():
        raise ProjectError(f"{pyproject} does not exist")
    document = _read(pyproject)
    table = document.get("tool", {}).get(TABLE)
    if not isinstance(table, Mapping):
        raise ProjectError(f"{pyproject} has no [tool.{TABLE}] table: add one naming your agent, {_EXAMPLE}")
    project = document.get("project", {})
    return Project(
        root=pyproject.parent,
        config=_validated(pyproject, table),
        distribution=project.get("name"),
        version=project.get("version"),
        dependencies=tuple(project.get("dependencies", ())),
    )


def _read(pyproject: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(pyproject.read_text())
    except tomllib.TOMLDecodeError as error:
        raise ProjectError(f"{pyproject} is not valid TOML: {error}") from None


def _validated(pyproject: Path, table: Mapping[str, Any]) -> ProjectConfig:
    try:
        return ProjectConfig.model_validate(dict(table))
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in e['loc']) or 'table'}: {e['msg'].removeprefix('Value error, ')}"
            for e in error.errors(include_url=False)
        )
        raise ProjectError(f"{pyproject}: [tool.{TABLE}] {problems}") from None


def _table_of(config: ProjectConfig) -> dict[str, Any]:
    return config.model_dump(by_alias=True, exclude_unset=True)


def _import_name(path: Path) -> str:
    return path.stem if path.suffix == ".py" else path.name


def _distribution(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return re.sub(r"[-_.]+", "-", match.group(1)).lower() if match else ""
