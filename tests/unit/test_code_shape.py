"""The package keeps the shape docs/architecture.md describes: functions fit on a screen, the
HTTP app is assembled in one short function, and core/'s top level stays a few wings and the
modules that tie them, importing one another in few layers and never in a circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "a2a_core"
CORE = "a2a_core.core"
LONGEST_FUNCTION = 80
CORE_ENTRIES = 16
CORE_LEVELS = 6


def _functions() -> list[tuple[int, str]]:
    """Every function and method of src/: its length in lines (decorators included), and where."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                assert node.end_lineno is not None
                where = f"{path.relative_to(SRC.parent)}:{node.lineno} {node.name}"
                found.append((node.end_lineno - start + 1, where))
    return found


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path, module: str) -> set[str]:
    """The absolute names ``path`` imports (relative imports resolved), at any depth of it."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([base] if base else [])])
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def _core_graph() -> dict[str, set[str]]:
    """core/'s top-level entries (a module, or a subpackage as one whole) and the others each imports."""
    graph: dict[str, set[str]] = {}
    for path in (SRC / "core").rglob("*.py"):
        module = _module(path)
        if module == CORE:
            continue
        entry = module[len(CORE) + 1 :].split(".")[0]
        targets = graph.setdefault(entry, set())
        for name in _imported(path, module):
            if name.startswith(CORE + "."):
                target = name[len(CORE) + 1 :].split(".")[0]
                if target != entry:
                    targets.add(target)
    return {
        entry: {t for t in targets if t in graph or (SRC / "core" / f"{t}.py").exists()}
        for entry, targets in graph.items()
    }


def _levels(graph: dict[str, set[str]]) -> dict[str, int]:
    """Each entry's layer: 1 for one that imports no other, else one above the highest it imports;
    raises on a circle."""
    levels: dict[str, int] = {}

    def level(entry: str, path: tuple[str, ...]) -> int:
        if entry in path:
            raise AssertionError(f"import circle in core/: {' -> '.join((*path, entry))}")
        if entry not in levels:
            levels[entry] = 1 + max((level(t, (*path, entry)) for t in graph.get(entry, ())), default=0)
        return levels[entry]

    for entry in graph:
        level(entry, ())
    return levels


def test_no_function_in_src_is_longer_than_a_screen() -> None:
    too_long = [f"{where} ({lines} lines)" for lines, where in _functions() if lines > LONGEST_FUNCTION]
    assert too_long == []


def test_the_app_is_assembled_in_one_short_function() -> None:
    [lines] = [
        n
        for n, where in _functions()
        if where.startswith("a2a_core/web/app.py") and where.endswith(" create_app")
    ]
    assert lines <= 40


def test_core_s_top_level_is_a_few_wings_in_a_few_layers() -> None:
    graph = _core_graph()
    assert {"tasklog", "turn", "listing"} <= graph.keys()
    assert len(graph) <= CORE_ENTRIES, sorted(graph)
    levels = _levels(graph)
    assert max(levels.values()) <= CORE_LEVELS, levels


def test_a_circle_among_core_s_entries_is_found() -> None:
    with pytest.raises(AssertionError, match="a -> b -> c -> a"):
        _levels({"a": {"b"}, "b": {"c"}, "c": {"a"}})
    assert _levels({"a": {"b"}, "b": set()}) == {"a": 2, "b": 1}
