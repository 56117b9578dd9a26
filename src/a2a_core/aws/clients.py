"""AWS clients, built once per cold start by composition roots and passed to adapters.

They are botocore clients made by a botocore session, exactly what boto3 would return, without
importing boto3 itself (whose S3 transfer manager costs ~30 ms of a Lambda cold start).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

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


def build_clients(
    region: str, endpoint_url: str | None = None, *, credentials: tuple[str, str] | None = None
) -> AwsClients:
    """Clients for ``region``; ``endpoint_url`` points every service at an emulator (moto), and
    ``credentials`` (key id, secret) replace the usual chain (the emulator's own)."""
    make = client_factory(region, endpoint_url, read_timeout=10, credentials=credentials)
    return AwsClients(
        dynamodb=cast("DynamoDBClient", make("dynamodb")),
        sqs=cast("SQSClient", make("sqs")),
        s3=lambda: cast("S3Client", make("s3")),
    )


def client_factory(
    region: str,
    endpoint_url: str | None,
    *,
    read_timeout: float,
    credentials: tuple[str, str] | None = None,
) -> Callable[[str], Any]:
    """``make(service)``: a client for ``service`` sharing one botocore session (credentials from
    the usual chain: environment, config files, the Lambda role, unless given), standard retries."""
    import botocore.session
    from botocore.config import Config

    session = botocore.session.Session()
    config = Config(
        region_name=region,
        retries={"max_attempts": 4, "mode": "standard"},
        connect_timeout=2,
        read_timeout=read_timeout,
    )

    key_id, secret = credentials or (None, None)

    def make(service: str) -> Any:
        return session.create_client(
            service,
            endpoint_url=endpoint_url,
            config=config,
            aws_access_key_id=key_id,
            aws_secret_access_key=secret,
        )

    return make
