"""The AWS resources the service needs, defined once.

The CDK stack (`infra/`) and the local emulation (`a2a_core.emulator`) both build their table,
queues and bucket from these specs, so names, keys, indexes and queue settings cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from a2a_core.aws.dynamodb.keys import STATE
from a2a_core.core.turn.worker import MAX_ATTEMPTS

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_sqs import SQSClient


@dataclass(frozen=True)
class TableSpec:
    partition_key: str = "pk"
    sort_key: str = "sk"
    ttl_attribute: str = "expires_at"
    # Sparse index of each owner's tasks per context, newest created first (ListTasks with a
    # contextId): only a task's first commit carries its keys (the partition key a digest of
    # owner and context, `keys.context_key`), so it holds one entry per task that no later
    # commit writes. Named for what it held before contexts were its partitions: one owner's
    # tasks (`keys.index_owner`); entries of tasks written then are still keyed so.
    owner_index: str = "by-owner"
    owner_key: str = "owner"
    owner_sort_key: str = "created_at"
    # Projected into the owner index besides the keys: the context and the expiry filter.
    context_attribute: str = "context_id"
    # Sparse index of each owner's tasks in listing order (ListTasks without a contextId,
    # `core.tasklog.list_keys`): one entry per task, carried by the commit that entered the class of
    # its state and moved (the old carrier's keys removed) only when that class changes.
    # Short names: they are on the commit that ends each turn, which should fit one write unit.
    list_index: str = "by-update"
    list_key: str = "lo"  # the owner (`keys.index_owner`)
    list_sort_key: str = "la"  # `list_keys.sort_value`, to the millisecond
    # Projected into the listing index: the commit's state (the class filter) and the expiry
    # filter (`keys.STATE`: every commit item holds it).
    state_attribute: str = STATE
    stream_view_type: str = "NEW_IMAGE"

    @property
    def owner_index_attributes(self) -> list[str]:
        """The non-key attributes the owner index projects (INCLUDE)."""
        return [self.context_attribute, self.ttl_attribute]

    @property
    def list_index_attributes(self) -> list[str]:
        """The non-key attributes the listing index projects (INCLUDE)."""
        return [self.state_attribute, self.ttl_attribute]

    @property
    def indexes(self) -> dict[str, tuple[str, str, list[str]]]:
        """Each global secondary index: its partition key, sort key and projected attributes."""
        return {
            self.owner_index: (self.owner_key, self.owner_sort_key, self.owner_index_attributes),
            self.list_index: (self.list_key, self.list_sort_key, self.list_index_attributes),
        }


@dataclass(frozen=True)
class QueueSpec:
    # Worker Lambda timeout; the queue's visibility timeout is 6x this (AWS guidance for
    # Lambda event sources), and a worker's lease on a turn lasts this long.
    worker_timeout_seconds: int = 900
    # Receives before the dead-letter queue: as many as the worker claims a turn before failing it.
    max_receive_count: int = MAX_ATTEMPTS
    retention_seconds: int = 4 * 24 * 3600
    dlq_retention_seconds: int = 14 * 24 * 3600

    @property
    def visibility_timeout_seconds(self) -> int:
        return 6 * self.worker_timeout_seconds


# A long-turn project's run message is received once per launch of the long-turn worker, and a
# launch may fail before any attempt starts (no Fargate capacity, a container that never starts
# within its grace): room for those beside the attempts, which the task log still bounds (the
# hand-off fails the turn once MAX_ATTEMPTS were claimed), so the dead-letter queue is only the
# backstop for a turn that can never be launched.
LONG_TURN_RECEIVES = 10


@dataclass(frozen=True)
class PushQueueSpec:
    """The push dead-letter queue: notifications no webhook accepted, kept for replay."""

    retention_seconds: int = 14 * 24 * 3600


TABLE = TableSpec()
QUEUE = QueueSpec()
PUSH_QUEUE = PushQueueSpec()


@dataclass(frozen=True)
class ResourceNames:
    table: str
    queue_url: str
    dlq_url: str
    bucket: str
    push_dlq_url: str = ""


def create_table(client: DynamoDBClient, name: str, spec: TableSpec = TABLE) -> None:
    client.create_table(
        TableName=name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[
            {"AttributeName": spec.partition_key, "AttributeType": "S"},
            {"AttributeName": spec.sort_key, "AttributeType": "S"},
            {"AttributeName": spec.owner_key, "AttributeType": "S"},
            {"AttributeName": spec.owner_sort_key, "AttributeType": "N"},
            {"AttributeName": spec.list_key, "AttributeType": "S"},
            {"AttributeName": spec.list_sort_key, "AttributeType": "N"},
        ],
        KeySchema=[
            {"AttributeName": spec.partition_key, "KeyType": "HASH"},
            {"AttributeName": spec.sort_key, "KeyType": "RANGE"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": name,
                "KeySchema": [
                    {"AttributeName": partition, "KeyType": "HASH"},
                    {"AttributeName": sort, "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": projected},
            }
            for name, (partition, sort, projected) in spec.indexes.items()
        ],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": spec.stream_view_type},  # type: ignore[typeddict-item]
    )
    client.update_time_to_live(
        TableName=name,
        TimeToLiveSpecification={"Enabled": True, "AttributeName": spec.ttl_attribute},
    )


def create_queues(client: SQSClient, name: str, spec: QueueSpec = QUEUE) -> tuple[str, str]:
    """Create the run queue and its dead-letter queue; returns (queue_url, dlq_url)."""
    dlq_url = client.create_queue(
        QueueName=f"{name}-dlq",
        Attributes={"MessageRetentionPeriod": str(spec.dlq_retention_seconds)},
    )["QueueUrl"]
    dlq_arn = client.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    redrive = f'{{"deadLetterTargetArn":"{dlq_arn}","maxReceiveCount":"{spec.max_receive_count}"}}'
    queue_url = client.create_queue(
        QueueName=name,
        Attributes={
            "VisibilityTimeout": str(spec.visibility_timeout_seconds),
            "MessageRetentionPeriod": str(spec.retention_seconds),
            "RedrivePolicy": redrive,
        },
    )["QueueUrl"]
    return queue_url, dlq_url


def create_push_queue(client: SQSClient, name: str, spec: PushQueueSpec = PUSH_QUEUE) -> str:
    """Create the push dead-letter queue; returns its URL."""
    return client.create_queue(
        QueueName=name, Attributes={"MessageRetentionPeriod": str(spec.retention_seconds)}
    )["QueueUrl"]


def create_bucket(client: S3Client, name: str, region: str) -> None:
    kwargs: dict[str, Any] = {}
    if region != "us-east-1":
        kwargs["CreateBucketConfiguration"] = {"LocationConstraint": region}
    client.create_bucket(Bucket=name, **kwargs)


def create_all(
    *, dynamodb: DynamoDBClient, sqs: SQSClient, s3: S3Client, prefix: str, region: str
) -> ResourceNames:
    """Create every resource under ``prefix`` (the local emulation and the tests use this)."""
    create_table(dynamodb, f"{prefix}-tasks")
    queue_url, dlq_url = create_queues(sqs, f"{prefix}-runs")
    create_bucket(s3, f"{prefix}-parts", region)
    push_dlq_url = create_push_queue(sqs, f"{prefix}-push-dlq")
    return ResourceNames(f"{prefix}-tasks", queue_url, dlq_url, f"{prefix}-parts", push_dlq_url)
