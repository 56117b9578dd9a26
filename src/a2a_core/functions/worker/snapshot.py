"""The worker under SnapStart: what is done once before the snapshot, and after each restore.

The snapshot is taken after the handler's import, so the agent and its framework are imported and
built in it (the first turn of a restored environment imports next to nothing more). Before it,
`prime` loads the TLS context of the AWS endpoints, finds the function's credentials, and notes
the HTTP connection pools the agent's framework built at import (urllib3's ``PoolManager``:
botocore's clients, Bedrock's among them, and requests'); no model is called and nothing is
written. After each restore, `restore` drops the connections of the snapshot (the kit's AWS
clients and those pools: their sockets lead nowhere in a new environment, and two environments
must never share one) and the credentials found before it, so the next call connects and signs
anew. Clients of other HTTP libraries (httpx's, under the OpenAI and Google SDKs) are not
reached: an agent that opens their connections at import drops them in an after-restore hook of
its own (``snapshot_restore_py.register_after_restore``).
"""

from __future__ import annotations

import gc
import logging
import sys
import weakref
from typing import Any

from a2a_core.compose.adapters import Adapters

logger = logging.getLogger(__name__)
# What `prime` found: weak references, so a pool the agent lets go of is not kept for this.
_pools: list[weakref.ref[Any]] = []


def prime(adapters: Adapters) -> None:
    """Before the snapshot: the work a first turn would otherwise do, and the pools to reset."""
    from a2a_core.aws.clients import warm_tls

    warm_tls(adapters.settings.aws_region, adapters.settings.aws_endpoint_url)
    _credentials(adapters)
    _pools[:] = [weakref.ref(pool) for pool in framework_pools()]


def restore(adapters: Adapters) -> None:
    """After a restore: no connection or credentials of the snapshot are used again."""
    adapters.reconnect()
    for ref in _pools:
        pool = ref()
        if pool is not None:
            pool.clear()  # closes its connections; it opens new ones on its next request


def _credentials(adapters: Adapters) -> None:
    """Find the function's credentials once. Where Lambda hands them over as container credentials
    rather than keys in the environment, the chain that reads them (botocore's) is then imported
    and built in the snapshot; `restore` drops what it found, and the first call reads them anew."""
    clients = getattr(adapters, "clients", None)  # the AWS backends' (built, contacting nothing)
    chain = getattr(getattr(clients, "dynamodb", None), "credentials", None)  # the lean client's
    if chain is None:
        return
    try:
        chain()
    except Exception:  # priming only moves work: the first call finds them instead
        logger.warning("priming: no credentials found before the snapshot", exc_info=True)


def framework_pools() -> list[Any]:
    """Every live urllib3 ``PoolManager`` (a proxy's too): none unless urllib3 was imported.
    A walk over every object the collector tracks, so done once, before the snapshot."""
    module = sys.modules.get("urllib3.poolmanager")
    if module is None:
        return []
    manager = module.PoolManager
    return [found for found in gc.get_objects() if isinstance(found, manager)]
