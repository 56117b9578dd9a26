"""boto3 clients, built once per cold start by composition roots and passed to adapters."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_sqs import SQSClient


class AwsClients:
    """The service's clients. DynamoDB and SQS serve nearly every request and are built at once;
    S3 holds only bodies over the offload threshold, so its client (~25 ms of a cold start) is
    built on first use, once, whichever thread asks first."""

    def __init__(self, dynamodb: DynamoDBClient, sqs: SQSClient, s3: Callable[[], S3Client]) -> None:
        self.dynamodb = dynamodb
        self.sqs = sqs
        self._build_s3 = s3
        self._s3: S3Client | None = None
        self._lock = threading.Lock()

    @property
    def s3(self) -> S3Client:
        with self._lock:
            if self._s3 is None:
                self._s3 = self._build_s3()
            return self._s3


def build_clients(region: str, endpoint_url: str | None = None) -> AwsClients:
    """Clients for ``region``; ``endpoint_url`` points every service at an emulator (moto)."""
    import boto3
    from botocore.config import Config

    session = boto3.session.Session(region_name=region)
    config = Config(retries={"max_attempts": 4, "mode": "standard"}, connect_timeout=2, read_timeout=10)
    return AwsClients(
        dynamodb=session.client("dynamodb", endpoint_url=endpoint_url, config=config),
        sqs=session.client("sqs", endpoint_url=endpoint_url, config=config),
        s3=lambda: session.client("s3", endpoint_url=endpoint_url, config=config),
    )
