"""The user's agent, named in the settings as ``package.module:attribute``."""

from __future__ import annotations

import importlib

from a2a_core.core.executor import AgentExecutor, as_executor
from a2a_core.settings import SettingsError


def load_agent(spec: str) -> AgentExecutor:
    """Import ``package.module:attribute`` and return it as an executor."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise SettingsError(f"agent {spec!r} must look like 'package.module:attribute'")
    try:
        target = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise SettingsError(f"cannot load agent {spec!r}: {error}") from None
    return as_executor(target)
