"""The author's API at the package root: every name there, and ``import a2a_core`` still free."""

from __future__ import annotations

import importlib
import importlib.metadata
import subprocess
import sys

import pytest

import a2a_core
from a2a_core._lazy import type_checking_imports


def test_every_root_name_is_its_home_modules_object() -> None:
    homes = type_checking_imports("a2a_core")
    assert "TaskContext" in homes
    assert {*homes, "__version__"} <= set(dir(a2a_core))
    for name, module in homes.items():
        assert getattr(a2a_core, name) is getattr(importlib.import_module(module), name), name
    assert a2a_core.__version__ == importlib.metadata.version("a2a-serverless")


def test_importing_the_package_loads_nothing_else() -> None:
    """A Lambda imports ``a2a_core`` on its cold start; the names load only when used."""
    code = (
        "import sys, a2a_core\n"
        "print(sorted(m for m in sys.modules if m.startswith(('a2a_core', 'pydantic', 'typing'))))"
    )
    # Our own interpreter with a fixed script.
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)  # noqa: S603
    assert done.stdout.strip() == "['a2a_core', 'a2a_core._lazy']"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchThing'"):
        a2a_core.NoSuchThing  # noqa: B018
