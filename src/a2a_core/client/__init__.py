"""An async A2A client (1.0 over JSON-RPC or HTTP+JSON, 0.3 and 0.2.5 over JSON-RPC): `A2AClient`,
domain results, the server's errors as exceptions.

Needs ``httpx`` (the ``client`` extra: ``pip install 'a2a-serverless[client]'``). Names load on
first use (PEP 562), so the CLI can register its commands without importing httpx.
"""

from typing import TYPE_CHECKING

from a2a_core._lazy import lazy_attributes

if TYPE_CHECKING:  # the names of the package, each read from its module on first use
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

__getattr__, __dir__ = lazy_attributes(__name__)
