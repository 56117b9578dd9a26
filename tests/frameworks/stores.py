"""The session stores a framework adapter's tests run on, in a framework's environment (run
with ``--noconftest``: the suite's conftest needs plugins these environments lack): the
in-memory one, and DynamoDB with S3 on moto's real server."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from a2a_core.aws.blobs import S3Blobs
from a2a_core.aws.dynamodb.session_store import DynamoDBSessionStore
from a2a_core.core.turn.session_store import InMemorySessionStore, SessionStore
from a2a_core.emulator.moto_server import EmulatedAws, create_resources
from emulator_process import start_emulator_process

os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def emulator() -> Iterator[EmulatedAws]:
    aws = start_emulator_process()
    yield aws
    aws.stop()


@pytest.fixture(params=["memory", "dynamodb"])
def store(request: pytest.FixtureRequest) -> SessionStore:
    """A fresh session store (a fresh table and bucket on the emulator)."""
    if request.param == "memory":
        return InMemorySessionStore()
    aws: EmulatedAws = request.getfixturevalue("emulator")
    names = create_resources(aws.clients, prefix=None, region=aws.region)
    return DynamoDBSessionStore(
        aws.clients.dynamodb,
        names.table,
        retention_seconds=86400,
        blobs=S3Blobs(lambda: aws.clients.s3, names.bucket),
        offload_bytes=2000,  # the larger events and agents go through S3
    )
