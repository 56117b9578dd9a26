"""The user's agent, named in the settings as ``package.module:attribute``."""

from __future__ import annotations

from a2a_core.core.turn.executor import Agent
from a2a_core.discovery import import_agent


def load_agent(spec: str) -> Agent:
    """Import ``package.module:attribute`` and return it as an agent (`a2a_core.discovery`
    says what is wrong when it cannot; `a2a_core.adapters.resolve` what it may name)."""
    return import_agent(spec)
