"""fasta2a's ``Storage`` and ``Broker`` for a ``FastA2A`` app of your own, over the backend the
settings name (`a2a_core.adapters.fasta2a.app_backends`)."""

from __future__ import annotations

from a2a_core.adapters.fasta2a.app_backends import KitBroker, KitStorage
from a2a_core.compose import compose_server
from a2a_core.compose.backends import build_adapters
from a2a_core.settings import Settings


def fasta2a_backends(settings: Settings | None = None) -> tuple[KitStorage, KitBroker]:
    """``FastA2A(storage=..., broker=...)``'s two, over the task store and run queue of
    ``settings`` (the ``A2A_*`` environment when None): one engine shared by both."""
    settings = settings or Settings.from_env()
    engine = compose_server(build_adapters(settings, function="fasta2a app")).engine
    return KitStorage(engine), KitBroker(engine=engine)
