"""The kit's extras an agent project asks for, and what they bring to the worker's bundle.

The kit's own extras (`KIT_EXTRAS`) bring what its functions import, which their traced closures
cover (`closures`), or what only a laptop or a deployment runs. The others bring an agent
framework (``a2a-serverless[adk]``: google-adk): a project that depends on the kit with one imports
the framework in its agent, so the worker carries what the extra brings, though the kit itself
(and what only the kit needs) is bundled from what is installed. A locked project gets the
distributions the extra reaches in its ``uv.lock``; a requirements file's line on the kit becomes
the extra's requirements as the installed kit's metadata states them, for uv to resolve.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from a2a_core.bundling.closures import canonical
from a2a_core.bundling.uv import BundlingError
from a2a_core.project import KIT_DISTRIBUTION

# aws, push, web: what the functions import (traced); local, cdk, client: a laptop's, a
# deployment's, a client's. Any other extra is an agent's: the worker carries what it brings.
KIT_EXTRAS = frozenset({"aws", "push", "web", "local", "cdk", "client"})
_ON_KIT = re.compile(r"^\s*a2a[-_.]serverless(?![\w.-])\s*(?:\[(?P<extras>[^\]]*)\])?", re.I)
# How hatchling, the kit's build backend, writes an extra's requirement (Requires-Dist).
_OF_EXTRA = re.compile(
    r"^(?P<requirement>[^;]+?)\s*;\s*(?:\((?P<marker>.+)\)\s+and\s+)?"
    r"extra\s*==\s*(?P<quote>['\"])(?P<extra>[^'\"]+)(?P=quote)\s*$"
)
Edge = Mapping[str, Any]  # a uv.lock dependency: {name, extra?, marker?}


def requested(requirement: str) -> frozenset[str]:
    """The extras a requirement line asks of the kit (none of a line on anything else)."""
    match = _ON_KIT.match(requirement)
    if not match or not match.group("extras") or requirement.lstrip().startswith("#"):
        return frozenset()
    return frozenset(canonical(extra.strip()) for extra in match.group("extras").split(",") if extra.strip())


def check(extras: Collection[str], where: object) -> None:
    """`BundlingError` unless the installed kit has every one of ``extras``."""
    if not extras:
        return
    provided = {canonical(extra) for extra in _kit().metadata.get_all("Provides-Extra") or ()}
    unknown = sorted(set(extras) - provided)
    if unknown:
        raise BundlingError(
            f"{where} asks for {KIT_DISTRIBUTION}[{','.join(unknown)}], but the {KIT_DISTRIBUTION} "
            f"installed here ({_kit().version}) has no such extra (it has {', '.join(sorted(provided))}): "
            "correct the name, or install the a2a-serverless that has it"
        )


def requirement_lines(line: str, where: object) -> list[str]:
    """A requirements file's ``line`` on the kit as the requirements of the agent extras it asks
    for (none for the kit's own extras), each under the line's marker as well as its own."""
    extras = requested(line)
    check(extras, where)
    marker = re.split(r"(?:^|\s)#", line)[0].partition(";")[2].strip()
    lines: list[str] = []
    if not extras - KIT_EXTRAS:
        return lines
    for requirement, own in _installed_requirements(extras - KIT_EXTRAS):
        both = " and ".join(f"({part})" for part in (marker, own) if part)
        lines.append(f"{requirement} ; {both}" if both else requirement)
    return lines


def locked_closure(lock: Path, root: str | None, groups: Sequence[str], pyproject: Path) -> frozenset[str]:
    """The distributions of ``lock`` that the agent extras reach which the project (its
    ``[project]`` dependencies, or only ``groups``) asks of the kit, anywhere in its graph short
    of the kit; markers aside (the export's lines carry uv's)."""
    graph = _LockGraph(lock)
    start = [
        edge
        for package in graph.packages.get(canonical(root or ""), ())
        for edge in (_group_edges(package, groups) if groups else package.get("dependencies", ()))
    ]
    _, asked = graph.walk(start)
    # uv leaves an extra the kit does not have out of the lock (with a warning): read what is written.
    check(asked | _written(pyproject, groups), pyproject)
    pending, walked, names = set(asked - KIT_EXTRAS), set(), set()
    while pending:
        extra = pending.pop()
        walked.add(extra)
        reached, more = graph.walk(graph.edges(KIT_DISTRIBUTION, extra))
        names |= reached
        pending |= more - KIT_EXTRAS - walked
    return frozenset(names)


class _LockGraph:
    """``uv.lock``'s packages by name, each edge ``{name, extra?}`` leading to a package's
    dependencies and, for each extra it names, that extra's."""

    def __init__(self, lock: Path) -> None:
        self.packages: dict[str, list[Mapping[str, Any]]] = {}
        for package in tomllib.loads(lock.read_text()).get("package", ()):
            self.packages.setdefault(canonical(package["name"]), []).append(package)

    def edges(self, name: str, extra: str | None = None) -> Iterator[Edge]:
        for package in self.packages.get(name, ()):  # forks: one entry per version
            if extra is None:
                yield from package.get("dependencies", ())
            else:
                optional = {
                    canonical(key): value for key, value in package.get("optional-dependencies", {}).items()
                }
                yield from optional.get(extra, ())

    def walk(self, edges: Iterable[Edge]) -> tuple[set[str], set[str]]:
        """The distributions ``edges`` reach short of the kit, and the extras asked of the kit."""
        names: set[str] = set()
        asked: set[str] = set()
        seen: set[tuple[str, str | None]] = set()
        pending = list(edges)
        while pending:
            edge = pending.pop()
            name, extras = canonical(edge["name"]), [canonical(extra) for extra in edge.get("extra", ())]
            if name == KIT_DISTRIBUTION:
                asked.update(extras)
                continue
            names.add(name)
            for node in ((name, None), *((name, extra) for extra in extras)):
                if node not in seen:
                    seen.add(node)
                    pending.extend(self.edges(*node))
        return names, asked


def _group_edges(package: Mapping[str, Any], groups: Sequence[str]) -> list[Edge]:
    locked = {canonical(name): edges for name, edges in package.get("dev-dependencies", {}).items()}
    return [edge for group in groups for edge in locked.get(canonical(group), ())]


def _written(pyproject: Path, groups: Sequence[str]) -> frozenset[str]:
    """The extras the project's requirements on the kit name in ``pyproject``."""
    document = tomllib.loads(pyproject.read_text())
    if not groups:
        return frozenset().union(
            *(requested(line) for line in document.get("project", {}).get("dependencies", ()))
        )
    tables = {canonical(name): items for name, items in document.get("dependency-groups", {}).items()}
    found: set[str] = set()
    pending, seen = [canonical(group) for group in groups], set()
    while pending:
        group = pending.pop()
        seen.add(group)
        for item in tables.get(group, ()):
            included = canonical(str(item.get("include-group", ""))) if isinstance(item, Mapping) else ""
            if isinstance(item, str):
                found |= requested(item)
            elif included and included not in seen:
                pending.append(included)
    return frozenset(found)


def _installed_requirements(extras: Iterable[str]) -> list[tuple[str, str]]:
    """(requirement, its own marker) of each of ``extras`` in the installed kit's metadata; one on
    the kit itself brings the agent extras it names in turn."""
    by_extra: dict[str, list[tuple[str, str]]] = {}
    for line in _kit().requires or ():
        match = _OF_EXTRA.match(line)
        if match:
            by_extra.setdefault(canonical(match["extra"]), []).append(
                (match["requirement"], match["marker"] or "")
            )
        elif "extra" in line.partition(";")[2]:
            raise BundlingError(f"cannot read the installed {KIT_DISTRIBUTION}'s requirement {line!r}")
    found: list[tuple[str, str]] = []
    pending, walked = set(extras), set()
    while pending:
        extra = pending.pop()
        walked.add(extra)
        for requirement, marker in by_extra.get(extra, ()):
            if _ON_KIT.match(requirement):
                pending |= requested(requirement) - KIT_EXTRAS - walked
            else:
                found.append((requirement, marker))
    return sorted(set(found))


def _kit() -> metadata.Distribution:
    try:
        return metadata.distribution(KIT_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise BundlingError(
            f"{KIT_DISTRIBUTION} is not installed (its metadata says what its extras bring): install it"
        ) from None
