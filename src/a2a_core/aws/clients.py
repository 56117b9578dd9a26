"""boto3 clients, built once per cold start by composition roots and passed to adapters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_sqs import SQSClient


@dataclass(frozen=True)
class AwsClients:
    dynamodb: DynamoDBClient
    sqs: SQSClient
    s3: S3Client


def build_clients(region: str, endpoint_url: str | None = None) -> AwsClients:
    """Clients for ``region``; ``endpoint_url`` points every service at an emulator (moto)."""
    import boto3
    from botocore.config import Config

    session = boto3.session.Session(region_name=region)
    config = Config(retries={"max_attempts": 4, "mode": "standard"}, connect_timeout=2, read_timeout=10)
    return AwsClients(
        dynamodb=session.client("dynamodb", endpoint_url=endpoint_url, config=config),
        sqs=session.client("sqs", endpoint_url=endpoint_url, config=config),
        s3=session.client("s3", endpoint_url=endpoint_url, config=config),
    )
