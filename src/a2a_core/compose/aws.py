"""The AWS adapters, built from the settings and the clients a composition root built once, and
the app's own authenticator behind a function URL (API keys and rate buckets in the task table).

Each builder asks only for the resources its adapter uses, so a function that needs just the
table (the worker, the DLQ consumer) is not made to configure the queue too. AWS adapters (and
botocore) are imported by the builders that use them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from a2a_core.auth import Authenticator, build_authenticator
from a2a_core.core.broker import Broker
from a2a_core.core.ledger import TaskLedger
from a2a_core.core.push_store import PushConfigStore
from a2a_core.core.store import TaskStore
from a2a_core.settings import ENV_PREFIX, Settings, SettingsError

if TYPE_CHECKING:
    from mypy_boto3_kms import KMSClient

    from a2a_core.aws.clients import AwsClients
    from a2a_core.aws.dynamodb.api_keys import DynamoDBApiKeyStore
    from a2a_core.aws.dynamodb.context_store import DynamoDBContextStore
    from a2a_core.aws.dynamodb.push_store import DynamoDBPushConfigStore
    from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore
    from a2a_core.aws.kms_signer import KmsSigner
    from a2a_core.aws.sqs_broker import SqsBroker
    from a2a_core.core.worker import Worker

_DAY = 24 * 3600


@dataclass(frozen=True)
class AwsAdapters:
    store: TaskStore
    broker: Broker
    push_store: PushConfigStore


def build_aws_adapters(settings: Settings, clients: AwsClients) -> AwsAdapters:
    """Every adapter; raises `SettingsError` naming the first resource that is not configured."""
    return AwsAdapters(
        store=build_task_store(settings, clients),
        broker=build_broker(settings, clients),
        push_store=build_push_store(settings, clients),
    )


def build_task_store(settings: Settings, clients: AwsClients) -> DynamoDBTaskStore:
    from a2a_core.aws.blobs import S3Blobs
    from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore

    return DynamoDBTaskStore(
        clients.dynamodb,
        required(settings.table_name, "table_name"),
        blobs=S3Blobs(lambda: clients.s3, required(settings.bucket_name, "bucket_name")),
        retention_seconds=settings.retention_days * _DAY,
        offload_threshold=settings.offload_threshold_bytes,
    )


def build_broker(settings: Settings, clients: AwsClients) -> SqsBroker:
    from a2a_core.aws.sqs_broker import SqsBroker

    return SqsBroker(clients.sqs, required(settings.queue_url, "queue_url"))


def build_push_store(settings: Settings, clients: AwsClients) -> DynamoDBPushConfigStore:
    from a2a_core.aws.dynamodb.push_store import DynamoDBPushConfigStore

    return DynamoDBPushConfigStore(
        clients.dynamodb,
        required(settings.table_name, "table_name"),
        retention_seconds=settings.retention_days * _DAY,
    )


def build_context_store(settings: Settings, clients: AwsClients) -> DynamoDBContextStore:
    from a2a_core.aws.dynamodb.context_store import DynamoDBContextStore

    return DynamoDBContextStore(
        clients.dynamodb,
        required(settings.table_name, "table_name"),
        retention_seconds=settings.retention_days * _DAY,
        chunk_bytes=settings.offload_threshold_bytes,
    )


def build_worker(settings: Settings, clients: AwsClients) -> Worker:
    """What the worker function runs: the agent the settings name, over the task and context
    stores, trying a turn as often as the run queue delivers it."""
    from a2a_core.aws.resources import QUEUE
    from a2a_core.compose.agent import load_agent
    from a2a_core.core.worker import Worker

    return Worker(
        TaskLedger(build_task_store(settings, clients), history_cap=settings.max_history_length),
        load_agent(settings.agent),
        lease_seconds=settings.lease_seconds,
        max_attempts=QUEUE.max_receive_count,
        context_store=build_context_store(settings, clients),
    )


def build_kms_client(settings: Settings) -> KMSClient:
    from a2a_core.aws.clients import client_factory

    make = client_factory(settings.aws_region, settings.aws_endpoint_url, read_timeout=5)
    client: KMSClient = make("kms")
    return client


def build_push_signers(settings: Settings, kms: KMSClient | None = None) -> tuple[KmsSigner, ...]:
    """The signing key first, then the other keys the JWKS publishes (during a rotation).

    Without ``kms`` the client is built on first use, shared by the signers.
    """
    from a2a_core.aws.kms_signer import KmsSigner

    client = kms or functools.cache(lambda: build_kms_client(settings))
    key_ids = [
        required(settings.push_signing_key_id, "push_signing_key_id"),
        *settings.push_published_key_ids,
    ]
    return tuple(KmsSigner(client, key_id) for key_id in dict.fromkeys(key_ids))


def required(value: str | None, field: str) -> str:
    if not value:
        raise SettingsError(f"{ENV_PREFIX}{field.upper()} is required for the AWS backend")
    return value


# --- the app's own authenticator (API keys behind a function URL) ------------------------------


def build_key_store(settings: Settings, clients: AwsClients) -> DynamoDBApiKeyStore:
    from a2a_core.aws.dynamodb.api_keys import DynamoDBApiKeyStore

    return DynamoDBApiKeyStore(clients.dynamodb, _table(settings))


def build_app_authenticator(settings: Settings, clients: AwsClients) -> Authenticator | None:
    """The authenticator for API keys behind a function URL; None for every other deployment
    (`a2a_core.app.create_app` builds those itself). The adapters are imported only when used,
    so the other deployments' cold starts do not pay for them."""
    if settings.front_door != "function_url" or settings.auth_mode != "api_key":
        return None
    from a2a_core.aws.dynamodb.rate_buckets import DynamoDBRateBuckets

    return build_authenticator(
        settings,
        api_keys=build_key_store(settings, clients),
        rate_buckets=DynamoDBRateBuckets(clients.dynamodb, _table(settings)),
    )


def _table(settings: Settings) -> str:
    if not settings.table_name:
        raise SettingsError(f"{ENV_PREFIX}TABLE_NAME is required for API keys behind a function URL")
    return settings.table_name
