"""Every TaskStore adapter runs the same contract suite: add adapters to ``params``."""

from __future__ import annotations

import pytest

from a2a_core.store import InMemoryTaskStore, TaskStore


@pytest.fixture(params=["memory"])
def store(request: pytest.FixtureRequest) -> TaskStore:
    factories = {"memory": InMemoryTaskStore}
    return factories[request.param]()
