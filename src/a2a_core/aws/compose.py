"""The AWS adapters built from settings and clients, shared by every Lambda composition root.

Each function asks only for the resources its adapter uses, so a function that needs just the
table (the worker, the DLQ consumer) is not made to configure the queue too.
"""

from __future__ import annotations

from dataclasses import dataclass

from a2a_core.aws.blobs import S3Blobs
from a2a_core.aws.clients import AwsClients
from a2a_core.aws.dynamodb_push_store import DynamoDBPushConfigStore
from a2a_core.aws.dynamodb_store import DynamoDBTaskStore
from a2a_core.aws.sqs_broker import SqsBroker
from a2a_core.broker import Broker
from a2a_core.push_store import PushConfigStore
from a2a_core.settings import ENV_PREFIX, Settings, SettingsError
from a2a_core.store import TaskStore

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
        blobs=S3Blobs(clients.s3, _required(settings.bucket_name, "bucket_name")),
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


def _required(value: str | None, field: str) -> str:
    if not value:
        raise SettingsError(f"{ENV_PREFIX}{field.upper()} is required for the AWS backend")
    return value
