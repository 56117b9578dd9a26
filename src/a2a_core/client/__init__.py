"""An async A2A client (1.0 over JSON-RPC or HTTP+JSON, 0.3 and 0.2.5 over JSON-RPC): `A2AClient`,
domain results, the server's errors as exceptions.

Needs ``httpx`` (the ``client`` extra: ``pip install 'a2a-serverless[client]'``). Names load on
first use (PEP 562), so the CLI can register its commands without importing httpx.
"""

from typing import TYPE_CHECKING

from a2a_core._lazy import lazy_attributes

if TYPE_CHECKING:
    from a2a_core.client.client import A2AClient as A2AClient
    from a2a_core.client.errors import A2AClientCardError as A2AClientCardError
    from a2a_core.client.errors import A2AClientConnectionError as A2AClientConnectionError
    from a2a_core.client.errors import A2AClientError as A2AClientError
    from a2a_core.client.errors import A2AClientHTTPError as A2AClientHTTPError
    from a2a_core.client.errors import A2AClientUnsupportedError as A2AClientUnsupportedError
    from a2a_core.client.events import Event as Event
    from a2a_core.client.events import EventStream as EventStream
    from a2a_core.client.events import is_final as is_final
    from a2a_core.client.interfaces import Interface as Interface
    from a2a_core.client.messages import user_message as user_message

_MODULES: dict[str, str] = {
    "A2AClient": "a2a_core.client.client",
    "Event": "a2a_core.client.events",
    "EventStream": "a2a_core.client.events",
    "is_final": "a2a_core.client.events",
    "Interface": "a2a_core.client.interfaces",
    "user_message": "a2a_core.client.messages",
    "A2AClientConnectionError": "a2a_core.client.errors",
    "A2AClientError": "a2a_core.client.errors",
    "A2AClientHTTPError": "a2a_core.client.errors",
    "A2AClientCardError": "a2a_core.client.errors",
    "A2AClientUnsupportedError": "a2a_core.client.errors",
}
__all__ = sorted(_MODULES)

__getattr__ = lazy_attributes(__name__, _MODULES)
