"""AWS clients, made once per cold start by composition roots and passed to adapters.

They are botocore clients made by a botocore session, exactly what boto3 would return, without
importing boto3 itself (whose S3 transfer manager costs ~30 ms of a Lambda cold start). Each is
built on its first use, not when the composition root runs: importing botocore and building a
client (service model, endpoint rules) is most of a deployed function's cold start, and a function
that never calls a service (the worker never sends to SQS) never pays for it. The session's data
loader is `KitLoader`, which reads only what the kit's services need.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_sqs import SQSClient


class LazyClient:
    """Stands in for a client until it is first used, then builds it (once, whichever thread asks
    first) and hands every attribute access to it: ``client.put_item(...)``, ``client.meta``."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build: Callable[[], Any] | None = build
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def client(self) -> Any:
        with self._lock:
            if self._build is not None:
                self._client, self._build = self._build(), None
            return self._client

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


class AwsClients:
    """The service's clients: `build_clients` makes DynamoDB and SQS lazy (`LazyClient`); S3 (only
    bodies over the offload threshold) is asked for through ``s3``, built on first use, once,
    whichever thread asks first."""

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
    region: str,
    endpoint_url: str | None = None,
    *,
    credentials: tuple[str, str] | None = None,
    connections: int = 10,
) -> AwsClients:
    """Clients for ``region``, each built on first use; ``endpoint_url`` points every service at
    an emulator (moto), ``credentials`` (key id, secret) replace the usual chain (the
    emulator's own), ``connections`` is how many each client keeps open (botocore's default:
    10). Contacts nothing and imports nothing of botocore."""
    make = client_factory(
        region, endpoint_url, read_timeout=10, credentials=credentials, connections=connections
    )
    return AwsClients(
        dynamodb=cast("DynamoDBClient", LazyClient(lambda: make("dynamodb"))),
        sqs=cast("SQSClient", LazyClient(lambda: make("sqs"))),
        s3=lambda: cast("S3Client", make("s3")),
    )


def client_factory(
    region: str,
    endpoint_url: str | None,
    *,
    read_timeout: float,
    credentials: tuple[str, str] | None = None,
    connections: int = 10,
) -> Callable[[str], Any]:
    """``make(service)``: a client for ``service`` sharing one botocore session (credentials from
    the usual chain: environment, config files, the Lambda role, unless ``credentials`` are
    given), standard retries. The session is created by the first call; calls are serialized (a
    session is not thread-safe)."""
    lock = threading.Lock()
    made: dict[str, Any] = {}
    key_id, secret = credentials or (None, None)

    def make(service: str) -> Any:
        with lock:
            if not made:
                made.update(_session(region, read_timeout, connections))
            return made["session"].create_client(
                service,
                endpoint_url=endpoint_url,
                config=made["config"],
                aws_access_key_id=key_id,
                aws_secret_access_key=secret,
            )

    return make


def _session(region: str, read_timeout: float, connections: int = 10) -> dict[str, Any]:
    import botocore.session
    from botocore.config import Config

    from a2a_core.aws.botocore_loader import KitLoader

    session = botocore.session.Session()
    session.register_component("data_loader", KitLoader())
    config = Config(
        region_name=region,
        retries={"max_attempts": 4, "mode": "standard"},
        connect_timeout=2,
        read_timeout=read_timeout,
        max_pool_connections=connections,
    )
    return {"session": session, "config": config}


def missing_credentials() -> str | None:
    """Why botocore's credential chain finds nothing (the environment, ``AWS_PROFILE`` and the
    config files, SSO, a container or instance role), or None when it finds credentials. Calls
    no AWS API, so credentials that are found may still be expired or refused."""
    import botocore.session
    from botocore.exceptions import BotoCoreError

    try:
        found = botocore.session.Session().get_credentials()
    except BotoCoreError as error:  # e.g. AWS_PROFILE names a profile the config files lack
        return str(error)
    return None if found is not None else "Unable to locate credentials"
