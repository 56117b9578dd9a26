"""What a bundle installs: the kit's closure pinned to what is installed, plus the agent's own.

The kit's distributions (a function's traced closure) are pinned to the versions installed beside
this package: the kit runs in Lambda with what it was installed and tested with here, whether
this is the kit's own repository or a user's project. The worker also gets the agent project's
dependencies: ``uv export`` of its ``uv.lock`` (the project's dependencies, pruned of the kit and
of what only the kit needs, or the dependency groups it names), or its requirements file resolved
by uv for the Lambda platform against the kit's pins; either way with what the kit's agent extras
it asks for bring (``a2a-serverless[adk]``: `kit_extras`). A distribution both pin must agree.
"""

from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Iterable, Sequence
from importlib import metadata
from pathlib import Path

from a2a_core.bundling import closures, kit_extras
from a2a_core.bundling.uv import BundlingError, run
from a2a_core.bundling.wheels import lambda_platform
from a2a_core.project import KIT_DISTRIBUTION, LockedDependencies, Project, RequirementsFile

_PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;]+)")


def requirement_name(line: str) -> str:
    """The canonical distribution a requirement line names ("" for comments and options)."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", line.strip())
    return closures.canonical(match.group()) if match and not line.lstrip().startswith("#") else ""


def kit_pins(distributions: Iterable[str]) -> list[str]:
    """``name==version`` of each distribution as installed here."""
    pins, missing = [], []
    for name in sorted({closures.canonical(name) for name in distributions}):
        try:
            pins.append(f"{name}=={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            missing.append(name)
    if missing:
        raise BundlingError(
            f"{', '.join(missing)} not installed: the Lambda bundles pin the kit's dependencies to what is "
            f"installed beside it; install {KIT_DISTRIBUTION}[cdk] (which brings the aws and web extras)"
        )
    return pins


def agent_requirements(
    project: Project, uv: str, *, platform: str, python_version: str, constraints: Sequence[str]
) -> list[str]:
    """The agent project's locked dependencies (requirement lines; none without a source)."""
    source = project.dependency_source()
    if isinstance(source, LockedDependencies):
        return _exported(project, source, uv)
    if isinstance(source, RequirementsFile):
        return _resolved(source.path, uv, platform, python_version, constraints).splitlines()
    return []


def merge(kit: Sequence[str], agent: Sequence[str], *, source: str = "the agent's dependencies") -> list[str]:
    """The kit's pins and the agent's requirements as one sorted list; the agent's lines for a
    distribution the kit pins go, and must pin the same version."""
    pinned = {requirement_name(line): line for line in kit}
    conflicts = []
    merged = list(kit)
    for line in agent:
        name = requirement_name(line)
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if name not in pinned:  # or no name: a path or URL (a wheel of the project's), an option
            merged.append(line.strip())
            continue
        theirs, ours = _version(line), _version(pinned[name])
        if theirs is not None and theirs != ours:
            conflicts.append(f"{name} {theirs} there, {ours} installed")
    if conflicts:
        raise BundlingError(
            f"{source} and the a2a-serverless installed here disagree ({'; '.join(conflicts)}): bring "
            "them in line (`uv sync` installs what uv.lock pins; or change the pin)"
        )
    return sorted(merged, key=lambda line: (requirement_name(line), line))


def _version(line: str) -> str | None:
    match = _PIN.match(line)
    return match.group(2) if match else None


def _exported(project: Project, source: LockedDependencies, uv: str) -> list[str]:
    """The export pruned of the kit, with the lines of a whole export for what the agent extras
    the project asks for reach (their pins and markers exactly uv's)."""
    command = [
        uv,
        "export",
        "--project",
        str(project.root),
        "--locked",  # a dependency added to pyproject.toml but not locked is an error, not left out
        # The interpreter running the CDK app (the project's), never one uv would download.
        "--python",
        sys.executable,
        "--no-python-downloads",
        "--no-emit-project",
        "--no-editable",
        "--no-hashes",
        "--no-header",
        "--no-annotate",
        *([f"--only-group={group}" for group in source.groups] or ["--no-default-groups"]),
    ]
    step = f"export the agent's locked dependencies from {source.lock}"
    if project.is_kit:  # the kit is the root of its own repository: pruning it prunes all
        return run(command, step).stdout.splitlines()
    pruned = run([*command, f"--prune={KIT_DISTRIBUTION}"], step).stdout.splitlines()
    brought = kit_extras.locked_closure(source.lock, project.distribution, source.groups, project.pyproject)
    if not brought:
        return pruned
    whole = run(command, step).stdout.splitlines()
    return [line for line in pruned if requirement_name(line) not in brought] + [
        line for line in whole if requirement_name(line) in brought
    ]


def _resolved(path: Path, uv: str, platform: str, python_version: str, constraints: Sequence[str]) -> str:
    """``path``'s requirements resolved for the Lambda platform, held to the kit's pins. A line on
    the kit becomes what its agent extras require (the kit is bundled from what is installed)."""
    lines: list[str] = []
    for line in path.read_text().splitlines():
        is_kit = requirement_name(line) == KIT_DISTRIBUTION
        lines += kit_extras.requirement_lines(line, path) if is_kit else [line]
    with tempfile.TemporaryDirectory(prefix="a2a-requirements-") as scratch:
        requirements, pins = Path(scratch) / "requirements.in", Path(scratch) / "constraints.txt"
        requirements.write_text("\n".join(lines) + "\n")
        pins.write_text("".join(f"{line}\n" for line in constraints))
        command = [
            uv,
            "pip",
            "compile",
            "--quiet",
            "--no-header",
            "--no-annotate",
            "--python",
            sys.executable,
            "--no-python-downloads",
            "--python-platform",
            lambda_platform(platform, python_version),
            "--python-version",
            python_version,
            "--constraint",
            str(pins),
            str(requirements),
        ]
        # Relative paths in the file mean the file's directory.
        return run(command, f"resolve {path} for {platform} Python {python_version}", cwd=path.parent).stdout
