"""Package attributes that load on first use (PEP 562), for packages whose names are cheap to
list but costly to import (the client's httpx; the domain model's types where a process needs
only some, such as the JWT authorizer's).

A package lists each name once, as an import in its ``if TYPE_CHECKING:`` block
(``from a2a_core.domain.tasks import Task as Task``): mypy reads those as the package's names, and
`lazy_attributes` reads the same lines, on the first lookup, to learn where each name lives.
"""

import ast
import sys
from collections.abc import Callable
from importlib import import_module
from importlib.util import find_spec
from typing import Any


def lazy_attributes(package: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package``: each name its ``TYPE_CHECKING``
    block imports is imported from that module on first use, then kept in the package, so the
    next use is a plain lookup."""
    homes: dict[str, str] = {}

    def home(name: str) -> str | None:
        if not homes:
            homes.update(type_checking_imports(package))
        return homes.get(name)

    def __getattr__(name: str) -> Any:
        module = home(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        home("")
        return sorted({*vars(sys.modules[package]), *homes})

    return __getattr__, __dir__


def type_checking_imports(package: str) -> dict[str, str]:
    """Name -> module, for each ``from module import name`` in the package's ``if TYPE_CHECKING:``."""
    spec = find_spec(package)
    get_source = getattr(spec.loader, "get_source", None) if spec else None  # an InspectLoader's
    source = get_source(package) if get_source else None
    if source is None:
        raise ImportError(f"{package} has no source to read its lazy names from", name=package)
    homes: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
                    homes.update({alias.asname or alias.name: statement.module for alias in statement.names})
    return homes
