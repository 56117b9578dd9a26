"""AWS clients, made once per cold start by composition roots and passed to adapters.

DynamoDB, SQS and KMS, the services of the request path (and Secrets Manager and SSM, which the
worker reads its secrets from), get `AwsJsonClient`s
(`a2a_core.aws.json_client`): botocore's calls and answers on the standard library's HTTP client,
which cost a cold start a few milliseconds where importing botocore and building its clients cost
~90. S3 (only bodies over the offload threshold) gets a botocore client, built on first use, as
does any service where the lean client cannot stand in for botocore: a region outside the
``aws``, ``aws-cn`` and ``aws-us-gov`` partitions, FIPS or dual-stack endpoints, endpoints
configured through ``AWS_ENDPOINT_URL*``. ``sdk="botocore"`` asks for botocore clients
throughout (the emulator's, whose users hook into botocore's events). A botocore client is made
by a botocore session with `KitLoader`, which reads only what the kit's services need, never by
boto3 (its S3 transfer manager costs ~30 ms of a cold start).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, cast

from a2a_core.aws.credentials import CredentialChain

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_kms import KMSClient
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_sqs import SQSClient

Sdk = Literal["lean", "botocore"]
# Regions whose endpoints are https://<service>.<region>.<suffix> for the lean client's services.
_PARTITIONS = (
    (re.compile(r"^cn-[a-z]+-\d+$"), "amazonaws.com.cn"),
    (re.compile(r"^(us|eu|ap|sa|ca|me|af|il|mx|us-gov)-[a-z]+-\d+$"), "amazonaws.com"),
)
# Settings botocore reads to choose another endpoint: with one on, botocore chooses.
_ENDPOINT_FLAGS = ("AWS_USE_FIPS_ENDPOINT", "AWS_USE_DUALSTACK_ENDPOINT")


class LazyClient:
    """Stands in for a client until it is first used, then builds it (once, whichever thread asks
    first) and hands every attribute access to it: ``client.put_item(...)``, ``client.meta``."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = self._build()
            return self._client

    def reset(self) -> None:
        """Build the client again on its next use (its credentials read anew)."""
        with self._lock:
            self._client = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


class AwsClients:
    """The service's clients: DynamoDB and SQS (`build_clients`); S3 is asked for through ``s3``,
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

    def reset(self) -> None:
        """After a SnapStart restore: the snapshot's connections lead nowhere, and a botocore
        client keeps the credentials it was built with (the snapshot's, which expire). The lean
        clients drop their connections (they read credentials on every request), botocore's
        are built again on their next use."""
        for client in (self.dynamodb, self.sqs):
            reset = getattr(client, "reset", None)
            if reset is not None:
                reset()
        with self._lock:
            self._s3 = None


def build_clients(
    region: str,
    endpoint_url: str | None = None,
    *,
    credentials: tuple[str, str] | None = None,
    sdk: Sdk = "lean",
    connections: int = 10,
) -> AwsClients:
    """Clients for ``region``; ``endpoint_url`` points every service at an emulator (moto),
    ``credentials`` (key id, secret) replace the usual chain (the emulator's own), ``connections``
    is how many connections each botocore client keeps open (botocore's default: 10). Contacts
    nothing and imports nothing of botocore."""
    make = client_factory(
        region, endpoint_url, read_timeout=10, credentials=credentials, sdk=sdk, connections=connections
    )
    return AwsClients(
        dynamodb=cast("DynamoDBClient", make("dynamodb")),
        sqs=cast("SQSClient", make("sqs")),
        s3=lambda: cast("S3Client", make("s3")),
    )


def kms_client(region: str, endpoint_url: str | None = None, *, sdk: Sdk = "lean") -> KMSClient:
    """The push signer's client (lean where it can be, see the module's docstring)."""
    return cast("KMSClient", client_factory(region, endpoint_url, read_timeout=5, sdk=sdk)("kms"))


def client_factory(
    region: str,
    endpoint_url: str | None,
    *,
    read_timeout: float,
    credentials: tuple[str, str] | None = None,
    sdk: Sdk = "lean",
    connections: int = 10,
) -> Callable[[str], Any]:
    """``make(service)``: a lean client where one serves (DynamoDB, SQS, KMS; see the module's
    docstring), else a botocore client on first use. botocore's share one session (credentials
    from the usual chain, unless ``credentials`` are given) and retry in ``standard`` mode, as
    the lean ones do; the session is created by the first botocore client built."""
    chain = CredentialChain(credentials)
    botocore = _BotocoreClients(region, endpoint_url, read_timeout, credentials, connections)

    def make(service: str) -> Any:
        url = lean_endpoint(service, region, endpoint_url) if sdk == "lean" else None
        if url is None:
            return LazyClient(lambda: botocore.make(service)) if sdk == "lean" else botocore.make(service)
        from a2a_core.aws.json_client import AwsJsonClient

        return AwsJsonClient(service, region, url, credentials=chain, read_timeout=read_timeout)

    return make


def warm_tls(region: str, endpoint_url: str | None = None) -> None:
    """Load the CA file the lean clients check ``region``'s AWS certificates against (before a
    SnapStart snapshot: its first request then does not)."""
    from urllib.parse import urlsplit

    from a2a_core.aws.http_pool import tls_context

    url = lean_endpoint("dynamodb", region, endpoint_url)
    if url is not None and url.startswith("https://"):
        tls_context(urlsplit(url).hostname or "")


def lean_endpoint(service: str, region: str, endpoint_url: str | None = None) -> str | None:
    """Where the lean client sends ``service``'s requests, or None where only botocore knows."""
    from a2a_core.aws.json_client import SERVICES

    if service not in SERVICES:
        return None
    if endpoint_url:
        return endpoint_url
    if any(os.environ.get(flag, "").lower() == "true" for flag in _ENDPOINT_FLAGS) or any(
        name.startswith("AWS_ENDPOINT_URL") for name in os.environ
    ):
        return None
    for pattern, suffix in _PARTITIONS:
        if pattern.match(region):
            return f"https://{service}.{region}.{suffix}"
    return None


class _BotocoreClients:
    """botocore clients sharing one session, made one at a time (a session is not thread-safe)."""

    def __init__(
        self,
        region: str,
        endpoint_url: str | None,
        read_timeout: float,
        credentials: tuple[str, str] | None,
        connections: int = 10,
    ) -> None:
        self._connections = connections
        self._region = region
        self._endpoint_url = endpoint_url
        self._read_timeout = read_timeout
        self._key_id: str | None = credentials[0] if credentials else None
        self._secret: str | None = credentials[1] if credentials else None
        self._lock = threading.Lock()
        self._session: Any = None
        self._config: Any = None

    def make(self, service: str) -> Any:
        with self._lock:
            if self._session is None:
                self._session, self._config = _session(self._region, self._read_timeout, self._connections)
            return self._session.create_client(
                service,
                endpoint_url=self._endpoint_url,
                config=self._config,
                aws_access_key_id=self._key_id,
                aws_secret_access_key=self._secret,
            )


def _session(region: str, read_timeout: float, connections: int = 10) -> tuple[Any, Any]:
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
    return session, config


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
