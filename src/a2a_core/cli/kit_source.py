"""Where a project made by ``a2a-serverless init`` gets the kit: ``--kit-source``, or how the
running kit was installed.

The project depends on ``a2a-serverless``; uv reads where from ``[tool.uv.sources]``. By default
that is what works on this machine even with no package index that carries the kit: the source
this a2a-serverless was installed from, as its PEP 610 ``direct_url.json`` records it (a local
wheel, a checkout, a git commit, an archive URL), else the package index at the installed version.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

import a2a_core
from a2a_core.cli.errors import CommandError
from a2a_core.project import KIT_DISTRIBUTION

_REQUIREMENT = re.compile(r"^\s*a2a[-_.]serverless\s*(\[[^\]]*\])?\s*(?P<specifier>[^\[\]]*)$", re.I)
_VERSION = re.compile(r"^\d+(\.\d+)*([a-z]+\d*)?(\.(post|dev)\d+)?$")
_ARCHIVES = (".whl", ".tar.gz", ".zip")


@dataclass(frozen=True)
class KitSource:
    """The kit as the project's pyproject.toml names it."""

    description: str  # what init says it chose
    specifier: str = ""  # after the name in [project] dependencies: "==0.1.0", ">=0.2"
    source: dict[str, str | bool] | None = None  # its [tool.uv.sources] entry; None: the index

    def requirement(self, extras: str = "") -> str:
        return f"{KIT_DISTRIBUTION}{extras}{self.specifier}"

    def sources_table(self) -> str:
        """The ``[tool.uv.sources]`` table naming it ("" for the package index)."""
        if self.source is None:
            return ""
        entry = ", ".join(f"{key} = {json.dumps(value)}" for key, value in self.source.items())
        return f"\n[tool.uv.sources]\n# The kit: {self.description}.\n{KIT_DISTRIBUTION} = {{ {entry} }}\n"


def kit_source(value: str | None, project: Path) -> KitSource:
    """``--kit-source`` (``value``) or the installed kit's source, for a project in ``project``."""
    return given(value, project) if value else installed(project)


def given(value: str, project: Path) -> KitSource:
    """A path to a checkout or a wheel, a git URL (``git+https://...@rev``), an archive URL, or a
    requirement (``a2a-serverless>=0.2``, or just a version)."""
    if value.startswith("git+") or value.endswith(".git"):
        return _git(value.removeprefix("git+"), None, "--kit-source")
    if re.match(r"^https?://", value):
        return KitSource(f"{value} (--kit-source)", source={"url": value})
    requirement = _REQUIREMENT.match(value)
    if requirement:
        return _index(requirement.group("specifier").strip(), "--kit-source")
    if _VERSION.match(value):
        return _index(f"=={value}", "--kit-source")
    path = Path(value).expanduser()
    if not path.exists():
        raise CommandError(
            f"--kit-source {value}: no such file or directory (give a checkout of a2a-serverless, a "
            "wheel, a git URL such as git+https://host/repo.git@tag, or a requirement such as "
            "a2a-serverless>=0.1)"
        )
    return _local(path.resolve(), project, "--kit-source")


def installed(project: Path) -> KitSource:
    """The source the running a2a-serverless came from (PEP 610), else the index at its version."""
    try:
        distribution = metadata.distribution(KIT_DISTRIBUTION)
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        checkout = Path(a2a_core.__file__).resolve().parents[2]
        return _local(checkout, project, "this a2a-serverless runs from it", given=False)
    recorded = distribution.read_text("direct_url.json")
    if recorded is None:
        return _index(f"=={distribution.version}", "the version installed here")
    origin = json.loads(recorded)
    url = str(origin.get("url", ""))
    if "vcs_info" in origin:
        commit = origin["vcs_info"].get("commit_id")
        return _git(url, commit, "the commit this a2a-serverless was installed from")
    if not url.startswith("file:"):
        return KitSource(f"{url} (this a2a-serverless was installed from it)", source={"url": url})
    path = Path(unquote(urlparse(url).path))
    if not path.exists():
        gone = f"{path}, which this a2a-serverless was installed from, is gone"
        return _index(f"=={distribution.version}", gone)
    return _local(path, project, "this a2a-serverless was installed from it", given=False)


def _local(path: Path, project: Path, why: str, *, given: bool = True) -> KitSource:
    shown = _relative(path, project)
    if path.is_dir():
        name = _project_name(path)
        if given and name != KIT_DISTRIBUTION:
            found = f"its project is {name!r}" if name else "no pyproject.toml with a [project] name"
            raise CommandError(f"--kit-source {path}: not a checkout of a2a-serverless ({found})")
        return KitSource(f"the checkout {path}, editable ({why})", source={"path": shown, "editable": True})
    archive = path.name.endswith(_ARCHIVES) and re.match(r"^a2a[-_]serverless-", path.name, re.I)
    if given and not archive:
        raise CommandError(f"--kit-source {path}: not a wheel or source archive of a2a-serverless")
    kind = "wheel" if path.suffix == ".whl" else "archive"
    return KitSource(f"the {kind} {path} ({why})", source={"path": shown})


def _git(url: str, rev: str | None, why: str) -> KitSource:
    base, _, tail = url.rpartition("@")
    if rev is None and base and "/" not in tail and "://" in base:  # ...repo.git@tag, not git@host
        url, rev = base, tail
    source: dict[str, str | bool] = {"git": url}
    if rev:
        source["rev"] = rev
    return KitSource(f"git {url}{f' at {rev}' if rev else ''} ({why})", source=source)


def _index(specifier: str, why: str) -> KitSource:
    return KitSource(f"the package index: {KIT_DISTRIBUTION}{specifier or ''} ({why})", specifier=specifier)


def _project_name(checkout: Path) -> str | None:
    pyproject = checkout / "pyproject.toml"
    try:
        name = tomllib.loads(pyproject.read_text()).get("project", {}).get("name")
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return str(name) if name else None


def _relative(path: Path, project: Path) -> str:
    """``path`` as pyproject.toml names it: relative when it is inside the project."""
    try:
        return path.relative_to(project.resolve()).as_posix()
    except ValueError:
        return str(path)
