"""Google ADK on the kit: its sessions kept in the kit's session store (`AdkSessionService`).

The only package of the kit that imports ``google.adk``; install the ``adk`` extra.
"""

from a2a_core.adapters.adk.sessions import AdkSessionService

__all__ = ["AdkSessionService"]
