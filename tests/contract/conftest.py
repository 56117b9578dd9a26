"""Every adapter of a port runs the same contract suite: add adapters to ``params``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from a2a_core.auth.key_store import ApiKeyStore, InMemoryApiKeyStore
from a2a_core.auth.rate_limit import InMemoryRateBuckets, RateBuckets
from a2a_core.aws.blobs import S3Blobs
from a2a_core.aws.clients import build_clients
from a2a_core.aws.dynamodb.api_keys import DynamoDBApiKeyStore
from a2a_core.aws.dynamodb.context_store import DynamoDBContextStore
from a2a_core.aws.dynamodb.push_store import DynamoDBPushConfigStore
from a2a_core.aws.dynamodb.rate_buckets import DynamoDBRateBuckets
from a2a_core.aws.dynamodb.session_store import DynamoDBSessionStore
from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore
from a2a_core.aws.resources import ResourceNames
from a2a_core.core.push_store import InMemoryPushConfigStore, PushConfigStore
from a2a_core.core.tasklog.store import InMemoryTaskStore, TaskStore
from a2a_core.core.tasklog.waking_store import WakingTaskStore
from a2a_core.core.turn.context_store import ContextStore, InMemoryContextStore
from a2a_core.core.turn.session_store import InMemorySessionStore, SessionStore
from a2a_core.emulator.moto_server import EmulatedAws
from clock import Clock

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

RETENTION = 7 * 24 * 3600


def _aws(request: pytest.FixtureRequest) -> tuple[EmulatedAws, ResourceNames]:
    # Looked up lazily so the in-memory runs never start the emulator.
    return request.getfixturevalue("local_aws"), request.getfixturevalue("aws_resources")


def _dynamodb(request: pytest.FixtureRequest, aws: EmulatedAws) -> DynamoDBClient:
    """The emulator's botocore client, or for a ``-lean`` param the lean client (what the
    functions use), so every DynamoDB adapter passes its contract on both."""
    if str(request.param).endswith("-lean"):
        return build_clients(aws.region, aws.endpoint_url, credentials=aws.credentials).dynamodb
    return aws.clients.dynamodb


@pytest.fixture(params=["memory", "dynamodb", "dynamodb-lean", "dynamodb+s3", "local"])
def store(request: pytest.FixtureRequest) -> TaskStore:
    if request.param == "memory":
        return InMemoryTaskStore()
    aws, names = _aws(request)
    if request.param == "local":
        # dev's store on the emulator: it answers reads of the tasks it wrote from memory.
        return WakingTaskStore(
            DynamoDBTaskStore(
                aws.clients.dynamodb,
                names.table,
                blobs=S3Blobs(lambda: aws.clients.s3, names.bucket),
                retention_seconds=RETENTION,
            )
        )
    return DynamoDBTaskStore(
        _dynamodb(request, aws),
        names.table,
        blobs=S3Blobs(lambda: aws.clients.s3, names.bucket),
        retention_seconds=RETENTION,
        # "dynamodb+s3" moves every body to S3, so the whole contract also holds for offloaded commits.
        offload_threshold=0 if request.param == "dynamodb+s3" else 300_000,
    )


@pytest.fixture(params=["memory", "dynamodb", "dynamodb-lean"])
def push_store(request: pytest.FixtureRequest) -> PushConfigStore:
    if request.param == "memory":
        return InMemoryPushConfigStore()
    aws, names = _aws(request)
    return DynamoDBPushConfigStore(_dynamodb(request, aws), names.table, retention_seconds=RETENTION)


@pytest.fixture(params=["memory", "dynamodb", "dynamodb-lean", "dynamodb+chunks"])
def context_store(request: pytest.FixtureRequest) -> ContextStore:
    # "dynamodb+chunks" splits every value into 64-byte chunks, so the whole contract also holds
    # for chunked values (tests of large values use `big_context_store`, with real chunk sizes).
    return _context_store(request, chunk_bytes=64 if request.param == "dynamodb+chunks" else 300_000)


@pytest.fixture(params=["memory", "dynamodb"])
def big_context_store(request: pytest.FixtureRequest) -> ContextStore:
    return _context_store(request, chunk_bytes=300_000)


def _context_store(request: pytest.FixtureRequest, *, chunk_bytes: int) -> ContextStore:
    if request.param == "memory":
        return InMemoryContextStore()
    aws, names = _aws(request)
    return DynamoDBContextStore(
        _dynamodb(request, aws), names.table, retention_seconds=RETENTION, chunk_bytes=chunk_bytes
    )


@pytest.fixture(params=["memory", "dynamodb", "dynamodb-lean", "dynamodb+s3"])
def session_store(request: pytest.FixtureRequest) -> SessionStore:
    # "dynamodb+s3" moves every value to S3, so the whole contract also holds for offloaded values.
    if request.param == "memory":
        return InMemorySessionStore()
    aws, names = _aws(request)
    return DynamoDBSessionStore(
        _dynamodb(request, aws),
        names.table,
        retention_seconds=RETENTION,
        blobs=S3Blobs(lambda: aws.clients.s3, names.bucket),
        offload_bytes=0 if request.param == "dynamodb+s3" else 300_000,
    )


@pytest.fixture(params=["memory", "dynamodb", "dynamodb-lean"])
def api_key_store(request: pytest.FixtureRequest) -> ApiKeyStore:
    if request.param == "memory":
        return InMemoryApiKeyStore()
    aws, names = _aws(request)
    return DynamoDBApiKeyStore(_dynamodb(request, aws), names.table)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["memory", "dynamodb", "dynamodb-lean"])
def make_buckets(request: pytest.FixtureRequest, clock: Clock) -> Callable[[], RateBuckets]:
    """Builds one instance's view of the shared buckets (call it twice for two instances)."""
    if request.param == "memory":
        shared = InMemoryRateBuckets(clock)
        return lambda: shared
    aws, names = _aws(request)
    dynamodb = _dynamodb(request, aws)
    return lambda: DynamoDBRateBuckets(dynamodb, names.table, clock=clock)
