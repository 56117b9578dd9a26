"""Packages whose names load on first use list each name once, as their ``TYPE_CHECKING``
imports (what mypy reads); the same lines tell the package where each name lives at run time."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from a2a_core._lazy import type_checking_imports

LAZY = ["a2a_core.domain", "a2a_core.client"]


@pytest.mark.parametrize("package", LAZY)
def test_every_listed_name_is_its_modules_object(package: str) -> None:
    homes = type_checking_imports(package)
    assert homes
    module = importlib.import_module(package)
    for name, home in homes.items():
        assert getattr(module, name) is getattr(importlib.import_module(home), name), name
    assert set(homes) <= set(dir(module))
    with pytest.raises(AttributeError, match="has no attribute 'Missing'"):
        module.Missing  # noqa: B018


def test_a_name_loads_only_its_own_module() -> None:
    probe = (
        "import sys; import a2a_core.domain as d, a2a_core.client as c; d.AgentSkill; c.Interface; "
        "print(sorted(m for m in sys.modules if m.startswith('a2a_core.domain.')), 'httpx' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)  # noqa: S603
    assert done.stdout.split() == ["['a2a_core.domain._base',", "'a2a_core.domain.card']", "False"]
