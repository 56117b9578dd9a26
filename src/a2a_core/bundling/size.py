"""How big a finished bundle is, unzipped, and what makes it so: each installed distribution's
share (by its ``RECORD``), the rest by the top-level name it sits under (the kit, the agent's
package). Lambda counts the unzipped size against its limit."""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from a2a_core.bundling.closures import canonical

MB = 1024 * 1024
# A zip function's code and layers, unzipped (Lambda quotas: "250 MB"; MiB, as Lambda counts).
ZIP_LIMIT = 250 * MB


@dataclass(frozen=True)
class BundleSize:
    total: int  # bytes, unzipped
    shares: tuple[tuple[str, int], ...]  # (distribution or top-level name, bytes), biggest first

    def biggest(self, count: int = 5) -> str:
        """The ``count`` biggest shares, for a message: ``crewai 120.3 MB, onnxruntime 61.0 MB``."""
        return ", ".join(f"{name} {megabytes(size)}" for name, size in self.shares[:count])


def megabytes(size: int) -> str:
    return f"{size / MB:.1f} MB"


def measure(root: Path) -> BundleSize:
    """The size of the bundle in ``root`` (a directory), by what its files belong to."""
    owners = _owners(root)
    shares: Counter[str] = Counter()
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            relative = path.relative_to(root).as_posix()
            owner = owners.get(relative) or owners.get(_source_of(relative)) or relative.split("/")[0]
            shares[owner] += path.stat().st_size
    ranked = tuple(sorted(shares.items(), key=lambda share: (-share[1], share[0])))
    return BundleSize(total=sum(shares.values()), shares=ranked)


def _owners(root: Path) -> dict[str, str]:
    """Each installed file (relative path) -> its distribution's name, from the RECORD files."""
    owners: dict[str, str] = {}
    for record in root.glob("*.dist-info/RECORD"):
        name = _distribution(record.parent)
        with record.open(newline="", encoding="utf-8") as lines:
            for row in csv.reader(lines):
                if row:
                    owners[row[0]] = name
        owners[record.relative_to(root).as_posix()] = name
    return owners


def _distribution(info: Path) -> str:
    """The distribution's canonical name (PEP 503: ``pydantic_core`` is ``pydantic-core``)."""
    name = info.name.removesuffix(".dist-info").rsplit("-", 1)[0]
    for line in (info / "METADATA").read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("Name:"):
            name = line.removeprefix("Name:").strip()
            break
        if not line:
            break
    return canonical(name)


def _source_of(relative: str) -> str:
    """``pkg/__pycache__/mod.cpython-313.pyc`` -> ``pkg/mod.py`` (bytecode compiled after install
    belongs to the source's distribution)."""
    folder, _, name = relative.rpartition("/__pycache__/")
    if not name.endswith(".pyc"):
        return relative
    module = name.split(".")[0]
    return f"{folder}/{module}.py" if folder else f"{module}.py"
