"""The user's agent, named in the settings as ``package.module:attribute``."""

from __future__ import annotations

from a2a_core.core.executor import AgentExecutor
from a2a_core.discovery import import_agent


def load_agent(spec: str) -> AgentExecutor:
    """Import ``package.module:attribute`` and return it as an executor (`a2a_core.discovery`
    says what is wrong when it cannot)."""
    return import_agent(spec)
