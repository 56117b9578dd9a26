"""Package attributes that load on first use (PEP 562), for packages whose names are cheap to
list but costly to import (the author API at the package root, the client's httpx, the domain
model's types where a process needs only some, such as the JWT authorizer's).

A package lists each name once, as an import in its ``if TYPE_CHECKING:`` block
(``from a2a_core.domain.tasks import Task as Task``): mypy reads those as the package's names, and
`lazy_attributes` reads the same lines, on the first lookup, to learn where each name lives.

This module imports nothing at import time (not even typing or importlib, ~1 ms each), so that
``import a2a_core``, whose root is lazy too, stays nearly free.
"""

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; mypy reads it the same
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def lazy_attributes(package: str) -> "tuple[Callable[[str], Any], Callable[[], list[str]]]":
    """The module ``__getattr__`` and ``__dir__`` of ``package``: each name its ``TYPE_CHECKING``
    block imports from the kit is imported from that module on first use, then kept in the
    package, so the next use is a plain lookup."""
    homes: dict[str, str] = {}

    def home(name: str) -> "str | None":
        if not homes:
            homes.update(type_checking_imports(package))
        return homes.get(name)

    def __getattr__(name: str) -> "Any":
        module = home(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        from importlib import import_module

        value = getattr(import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        home("")
        return sorted({*vars(sys.modules[package]), *homes})

    return __getattr__, __dir__


def type_checking_imports(package: str) -> dict[str, str]:
    """Name -> module, for each ``from a2a_core... import name`` in the package's
    ``if TYPE_CHECKING:`` block (imports of other libraries there serve annotations only)."""
    import ast
    from importlib.util import find_spec

    spec = find_spec(package)
    get_source = getattr(spec.loader, "get_source", None) if spec else None  # an InspectLoader's
    source = get_source(package) if get_source else None
    if source is None:
        raise ImportError(f"{package} has no source to read its lazy names from", name=package)
    root = package.partition(".")[0]
    homes: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if (
                    isinstance(statement, ast.ImportFrom)
                    and statement.module
                    and not statement.level
                    and statement.module.partition(".")[0] == root
                ):
                    homes.update({alias.asname or alias.name: statement.module for alias in statement.names})
    return homes
