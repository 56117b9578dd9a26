"""`DurableStrandsA2AExecutor`: Strands' A2A executor with each turn's agent built anew from the
session store, and `session_manager`, the session manager it builds them with.

Strands' executor keeps one agent per contextId in the process that first ran it. In Lambda
that cached agent goes stale as soon as another worker runs a turn of the context, and a second
caller naming the same contextId in a warm worker would get the first caller's agent. Building
the agent for every turn (its conversation and pending interrupt read from the store, in the
space of the task's owner) removes both: what a turn sees is what is stored.
"""

from __future__ import annotations

import asyncio

from strands import Agent
from strands.multiagent.a2a import StrandsA2AExecutor
from strands.session.repository_session_manager import RepositorySessionManager

from a2a_core.adapters.strands.repository import StrandsSessionRepository
from a2a_core.core.turn.session_store import SessionStore


def session_manager(context_id: str, store: SessionStore | None = None) -> RepositorySessionManager:
    """The session manager of a context's agent: its Strands session, kept in the kit's store
    (the turn's; ``store`` outside a turn)."""
    return RepositorySessionManager(session_id=context_id, session_repository=StrandsSessionRepository(store))


class DurableStrandsA2AExecutor(StrandsA2AExecutor):
    """`StrandsA2AExecutor` whose ``agent_factory`` runs for every turn, never cached."""

    async def _acquire_context_agent(self, context_id: str) -> tuple[Agent, asyncio.Lock]:
        if self._agent_factory is None:
            raise ValueError("DurableStrandsA2AExecutor needs an agent_factory: it builds each turn's agent")
        return self._agent_factory(context_id), asyncio.Lock()
