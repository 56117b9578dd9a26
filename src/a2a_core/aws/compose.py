"""The AWS adapters built from settings and clients, shared by every Lambda composition root.

Each function asks only for the resources its adapter uses, so a function that needs just the
table (the worker, the DLQ consumer) is not made to configure the queue too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from a2a_core.aws.blobs import S3Blobs
from a2a_core.aws.clients import AwsClients
from a2a_core.aws.dynamodb_context_store import DynamoDBContextStore
from a2a_core.aws.dynamodb_push_store import DynamoDBPushConfigStore
from a2a_core.aws.dynamodb_store import DynamoDBTaskStore
from a2a_core.aws.sqs_broker import SqsBroker
from a2a_core.broker import Broker
from a2a_core.push_store import PushConfigStore
from a2a_core.settings import ENV_PREFIX, Settings, SettingsError
from a2a_core.store import TaskStore

if TYPE_CHECKING:
    from mypy_boto3_kms import KMSClient

    from a2a_core.push.metrics import DeliveryMetrics
    from a2a_core.push.notifier import PushNotifier
    from a2a_core.push.signing import KmsSigner, Signer

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
    return DynamoDBTaskStore(
        clients.dynamodb,
        _required(settings.table_name, "table_name"),
        blobs=S3Blobs(lambda: clients.s3, _required(settings.bucket_name, "bucket_name")),
        retention_seconds=settings.retention_days * _DAY,
        offload_threshold=settings.offload_threshold_bytes,
    )


def build_broker(settings: Settings, clients: AwsClients) -> SqsBroker:
    return SqsBroker(clients.sqs, _required(settings.queue_url, "queue_url"))


def build_push_store(settings: Settings, clients: AwsClients) -> DynamoDBPushConfigStore:
    return DynamoDBPushConfigStore(
        clients.dynamodb,
        _required(settings.table_name, "table_name"),
        retention_seconds=settings.retention_days * _DAY,
    )


def build_context_store(settings: Settings, clients: AwsClients) -> DynamoDBContextStore:
    return DynamoDBContextStore(
        clients.dynamodb,
        _required(settings.table_name, "table_name"),
        retention_seconds=settings.retention_days * _DAY,
        chunk_bytes=settings.offload_threshold_bytes,
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
    import functools

    from a2a_core.push.signing import KmsSigner

    client = kms or functools.cache(lambda: build_kms_client(settings))
    key_ids = [
        _required(settings.push_signing_key_id, "push_signing_key_id"),
        *settings.push_published_key_ids,
    ]
    return tuple(KmsSigner(client, key_id) for key_id in dict.fromkeys(key_ids))


def build_push_notifier(
    settings: Settings, clients: AwsClients, *, signer: Signer, metrics: DeliveryMetrics | None = None
) -> PushNotifier:
    """What the push function runs: task log, configs, the webhook sender, the push DLQ."""
    from a2a_core.ledger import TaskLedger
    from a2a_core.push.dead_letters import SqsPushDeadLetters
    from a2a_core.push.notifier import PushNotifier
    from a2a_core.push.wiring import build_sender

    # Read-only: the push function may not write the table, so it never stores a snapshot.
    ledger = TaskLedger(
        build_task_store(settings, clients), history_cap=settings.max_history_length, repair_snapshots=False
    )
    return PushNotifier(
        ledger,
        build_push_store(settings, clients),
        build_sender(settings, signer, metrics=metrics),
        SqsPushDeadLetters(clients.sqs, _required(settings.push_dlq_url, "push_dlq_url")),
        events=settings.push_events,
        history_length=settings.max_history_length,
    )


def build_lambda_push_notifier(
    settings: Settings, clients: AwsClients, *, metrics: DeliveryMetrics | None = None
) -> PushNotifier:
    """`build_push_notifier` signing with the KMS key; refuses settings meant for dev only."""
    if settings.push_allow_insecure_loopback:
        raise SettingsError(f"{ENV_PREFIX}PUSH_ALLOW_INSECURE_LOOPBACK is for local development only")
    signer = build_push_signers(settings)[0]
    return build_push_notifier(settings, clients, signer=signer, metrics=metrics)


def _required(value: str | None, field: str) -> str:
    if not value:
        raise SettingsError(f"{ENV_PREFIX}{field.upper()} is required for the AWS backend")
    return value
