"""What each Lambda function imports, traced: the closures `a2a_core.bundling` installs.

Every `function_trace.variants.VARIANTS` entry is cold-started in a fresh interpreter against moto
and served its requests; the modules it imported by the end are mapped to the distributions that
installed them. Standard library modules and the kit's own package (``a2a_core``) are no
distribution's; any other module no distribution owns stops the trace.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterable, Mapping
from importlib.metadata import distributions
from pathlib import Path

from a2a_core.bundling import closures
from function_trace.runner import Run, Stage, Variant, exercise, install_site, source_paths
from function_trace.variants import VARIANTS

OWN = frozenset({"a2a_core"})


class TraceError(RuntimeError):
    """A traced module belongs to no distribution, the standard library or our sources."""


def traced(run: Run, owners: Mapping[str, str]) -> closures.Traced:
    """The distributions and pruned packages ``run`` needed: those reachable from our sources
    through imports made by modules that are still loaded (see `needed_modules`)."""
    needed = needed_modules(run)
    found: set[str] = set()
    unknown: set[str] = set()
    for name in needed:
        is_package, has_file = run.modules[name]
        top = name.partition(".")[0]
        if top in owners:
            found.add(owners[top])
        elif not _standard(top) and top not in OWN and (has_file or is_package):
            unknown.add(top)
    if unknown:
        raise TraceError(f"{run.variant.label} imported {sorted(unknown)}, which nothing installed")
    pruned = tuple(closures.PRUNED.values())
    packages = {
        name
        for name in needed
        if run.modules[name][0] and (name in pruned or name.startswith(tuple(f"{top}." for top in pruned)))
    }
    own = {name for name in needed if name.partition(".")[0] in OWN and run.modules[name][1]}
    return closures.Traced(
        run.variant.function, run.variant.settings, frozenset(found), frozenset(packages), frozenset(own)
    )


def needed_modules(run: Run) -> set[str]:
    """The loaded modules reachable from the child script and our sources over the recorded
    imports of loaded modules, with their parent packages. A module imported only by one whose
    import failed (and so is not loaded: an optional import) is not needed."""
    loaded = run.modules
    edges: dict[str, set[str]] = {}
    for importer, imported in run.imports:
        edges.setdefault(importer, set()).add(imported)
    pending = [name for name in loaded if name == "__main__" or name.partition(".")[0] in OWN]
    needed: set[str] = set()
    while pending:
        name = pending.pop()
        if name in needed or name not in loaded:
            continue
        needed.add(name)
        parent = name.rpartition(".")[0]
        pending += [*edges.get(name, ()), *([parent] if parent else [])]
    return needed


def _standard(top: str) -> bool:
    """The interpreter's own: the standard library, built-ins, the script run, platform config."""
    return (
        top in sys.stdlib_module_names
        or top in sys.builtin_module_names
        or top == "__main__"
        or top.startswith("_sysconfigdata_")
    )


def trace(variants: Iterable[Variant] = VARIANTS, *, progress: bool = False) -> list[closures.Traced]:
    with tempfile.TemporaryDirectory(prefix="a2a-trace-site-") as scratch, Stage() as stage:
        site = install_site(Path(scratch))
        owners = top_level_owners(site)
        results = []
        for variant in variants:
            run = exercise(stage, variant, source_paths(site), record_imports=True)
            results.append(traced(run, owners))
            if progress:
                print(
                    f"traced {variant.label}: {len(results[-1].distributions)} distributions", file=sys.stderr
                )
        return results


def differences(recorded: Iterable[closures.Traced], current: Iterable[closures.Traced]) -> list[str]:
    """What changed, one line per variant, as ``+added -removed``."""

    def keyed(items: Iterable[closures.Traced]) -> dict[str, closures.Traced]:
        return {f"{t.function} {sorted(t.settings.items())}": t for t in items}

    old, new = keyed(recorded), keyed(current)
    lines = []
    for key in sorted(old.keys() | new.keys()):
        if key not in new or key not in old:
            lines.append(f"{key}: {'no longer traced' if key not in new else 'not recorded'}")
            continue
        before, after = old[key], new[key]
        for what, a, b in (
            ("distributions", before.distributions, after.distributions),
            ("packages", before.packages, after.packages),
            ("modules", before.modules, after.modules),
        ):
            if a != b:
                change = [f"+{x}" for x in sorted(b - a)] + [f"-{x}" for x in sorted(a - b)]
                lines.append(f"{key} {what}: {' '.join(change)}")
    return lines


def top_level_owners(site: Path) -> dict[str, str]:
    """Top-level module or package name -> the (canonical) distribution that installed it in ``site``."""
    owners: dict[str, str] = {}
    for dist in distributions(path=[str(site)]):
        for file in dist.files or ():
            top = file.parts[0]
            if top.endswith((".dist-info", ".data")) or top in {"..", "__pycache__", "bin"}:
                continue
            owners[top.split(".", 1)[0]] = closures.canonical(dist.metadata["Name"])
    return owners
