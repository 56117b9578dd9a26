"""Which of the kit's own modules a function's bundle carries.

Those its trace imported (`closures`: recorded by the maintainers' tool), and every module of the
kit those can import, found by reading their sources: each ``import`` and ``from ... import``
statement, at module level or inside a function (a lazy import a trace may never have taken: the
1.0 codec a 0.3 round does not load, S3 for bodies past the offload threshold), and, in a package
whose names load on first use (`a2a_core._lazy`), its ``TYPE_CHECKING`` imports too. Imports made
only for type checkers are left out, as are modules nothing reaches (the client, the CLI, dev's
server and emulator, the examples, the deploy-time packages). Data files go with their package
(``aws/amazon_roots.pem``), as do data directories inside an included package (``static/``).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator
from pathlib import Path


def reachable(starts: Iterable[str], root: Path) -> frozenset[str]:
    """``starts`` and every kit module (under ``root``, the kit's package directory) they can
    import, with the packages above each."""
    known = _modules(root)
    seen: set[str] = set()
    pending = [name for name in starts if name in known]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        pending += [imported for imported in _imports(known[name], name) if imported in known]
        parent = name.rpartition(".")[0]
        if parent:
            pending.append(parent)
    return frozenset(seen)


def imported_by(paths: Iterable[Path], kit: str) -> frozenset[str]:
    """The ``kit`` modules the code at ``paths`` (a project's packages and modules: directories or
    ``.py`` files) imports, as named in its import statements (its own relative imports aside)."""
    files = [file for path in paths for file in ([path] if path.suffix == ".py" else path.rglob("*.py"))]
    return frozenset(
        name
        for file in files
        if "__pycache__" not in file.parts
        for name in _imports(file, "")
        if name == kit or name.startswith(f"{kit}.")
    )


def bundled_files(modules: Iterable[str], root: Path) -> Iterator[tuple[Path, str]]:
    """The files that carry ``modules`` (with the kit's name at their head), and their packages'
    data: each as (its path, its path in the bundle), sorted."""
    known = _modules(root)
    chosen = {known[name] for name in modules if name in known}
    packages = {path.parent for path in chosen if path.name == "__init__.py"}
    for directory in list(packages):
        for child in directory.iterdir():
            if child.is_dir() and not (child / "__init__.py").exists() and child.name != "__pycache__":
                packages.add(child)  # a data directory (static/)
    files = set(chosen)
    for directory in packages:
        files.update(
            path for path in directory.iterdir() if path.is_file() and path.suffix not in (".py", ".pyc")
        )
    for path in sorted(files):
        yield path, f"{root.name}/{path.relative_to(root).as_posix()}"


@functools.cache
def _modules(root: Path) -> dict[str, Path]:
    found = {}
    for path in root.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


@functools.cache
def _imports(path: Path, name: str) -> frozenset[str]:
    source = path.read_text()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    visitor = _ImportStatements(lazy="lazy_attributes(" in source)  # TYPE_CHECKING names load on use
    visitor.visit(ast.parse(source))
    found: set[str] = set()
    for node in visitor.found:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        else:
            module = _absolute(node, package)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)  # submodules imported
    return frozenset(found)


class _ImportStatements(ast.NodeVisitor):
    """Every import statement, nested ones too, but those under ``if TYPE_CHECKING:`` (unless
    ``lazy``)."""

    def __init__(self, *, lazy: bool) -> None:
        self.lazy = lazy
        self.found: list[ast.Import | ast.ImportFrom] = []

    def visit_If(self, node: ast.If) -> None:
        if not _type_checking(node.test):
            self.generic_visit(node)
            return
        for statement in [*(node.body if self.lazy else []), *node.orelse]:
            self.visit(statement)

    def visit_Import(self, node: ast.Import) -> None:
        self.found.append(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self.found.append(node)


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
    return f"{base}.{node.module}" if node.module else base
