"""Package attributes that load on first use (PEP 562), for packages whose names are cheap to
list but costly to import (the protocol types at a Lambda cold start, the client's httpx).

This module imports nothing at import time (not even typing or importlib, ~1 ms each), so that
``import a2a_core``, whose root is lazy too, stays nearly free."""

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; mypy reads it the same
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_attributes(package: str, homes: "Mapping[str, str]") -> "Callable[[str], Any]":
    """The module ``__getattr__`` of ``package``: each name in ``homes`` is imported from the
    module named there on first use, then kept in the package, so the next use is a plain lookup."""

    def __getattr__(name: str) -> "Any":
        module = homes.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        from importlib import import_module

        value = getattr(import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
