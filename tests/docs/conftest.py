from __future__ import annotations

from collections.abc import Iterator

import pytest

from doc_runs import DocServers


@pytest.fixture(scope="session")
def doc_servers() -> Iterator[DocServers]:
    """The dev servers the documentation's examples run against, kept for the session."""
    servers = DocServers()
    yield servers
    servers.stop()
