"""Strands Agents on the kit: its sessions kept in the kit's session store.

`StrandsSessionRepository` is a `SessionRepository` for Strands' `RepositorySessionManager`;
`DurableStrandsA2AExecutor` is Strands' A2A executor building each turn's agent anew from it;
`session_manager` wires the two for one context. The only package of the kit that imports
``strands``; install the ``strands`` extra.
"""

from a2a_core.adapters.strands.executor import DurableStrandsA2AExecutor, session_manager
from a2a_core.adapters.strands.repository import StrandsSessionRepository

__all__ = ["DurableStrandsA2AExecutor", "StrandsSessionRepository", "session_manager"]
