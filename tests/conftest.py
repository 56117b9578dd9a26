from __future__ import annotations

from collections.abc import Iterator

import pytest

from a2a_core.aws.resources import ResourceNames
from a2a_core.local.moto_server import LocalAws, create_resources, start_local_aws


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def local_aws() -> Iterator[LocalAws]:
    """moto's real server on a loopback port, shared by the session (resources are per test)."""
    aws = start_local_aws()
    yield aws
    aws.stop()


@pytest.fixture
def aws_resources(local_aws: LocalAws) -> ResourceNames:
    """A fresh table, queue pair and bucket on the emulator for one test."""
    return create_resources(local_aws.clients, prefix=None, region=local_aws.region)
