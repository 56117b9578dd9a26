"""The ``aws`` backend's adapters (`AwsAdapters`), built from the settings and the clients a
composition root built once, and the app's own authenticator behind a function URL (API keys and
rate buckets in the task table).

Each builder asks only for the resources its adapter uses, so a function that needs just the
table (the worker, the DLQ consumer) is not made to configure the queue too. AWS adapters (and
botocore) are imported by the builders that use them.
"""

from __future__ import annotations

import functools
import hashlib
from typing import TYPE_CHECKING, Any

from a2a_core.compose.adapters import Adapters
from a2a_core.core.tasklog.store import TaskStore
from a2a_core.settings import ENV_PREFIX, Settings, SettingsError

if TYPE_CHECKING:
    from mypy_boto3_kms import KMSClient

    from a2a_core.auth import Authenticator
    from a2a_core.aws.clients import AwsClients
    from a2a_core.aws.dynamodb.api_keys import DynamoDBApiKeyStore
    from a2a_core.aws.dynamodb.context_store import DynamoDBContextStore
    from a2a_core.aws.dynamodb.push_marks import PushMarks
    from a2a_core.aws.dynamodb.push_store import DynamoDBPushConfigStore
    from a2a_core.aws.dynamodb.session_store import DynamoDBSessionStore
    from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore
    from a2a_core.aws.kms_signer import KmsSigner
    from a2a_core.aws.sqs_broker import SqsBroker, SqsMessages
    from a2a_core.aws.sqs_push_dead_letters import SqsPushDeadLetters
    from a2a_core.core.turn.long_turns import TurnLauncher

_DAY = 24 * 3600


class AwsAdapters(Adapters):
    """The ``aws`` backend: DynamoDB, SQS and S3, named by the settings, through ``clients``
    (built from the settings on first use when not given)."""

    def __init__(self, settings: Settings, clients: AwsClients | None = None) -> None:
        super().__init__(settings)
        self._clients = clients

    @functools.cached_property
    def clients(self) -> AwsClients:
        from a2a_core.aws.clients import build_clients

        settings = self.settings
        return self._clients or build_clients(
            settings.aws_region, settings.aws_endpoint_url, sdk=settings.aws_client
        )

    @functools.cached_property
    def store(self) -> TaskStore:
        return build_task_store(self.settings, self.clients, marks=self.push_marks)

    @functools.cached_property
    def broker(self) -> SqsBroker:
        return build_broker(self.settings, self.clients)

    @functools.cached_property
    def push_store(self) -> DynamoDBPushConfigStore:
        return build_push_store(self.settings, self.clients, marks=self.push_marks)

    @functools.cached_property
    def push_marks(self) -> PushMarks | None:
        """What the task store marks commits with for the push function (push on), and the push
        config store tells of the configs it stores."""
        return build_push_marks(self.settings, self.clients)

    @functools.cached_property
    def context_store(self) -> DynamoDBContextStore:
        return build_context_store(self.settings, self.clients)

    @functools.cached_property
    def session_store(self) -> DynamoDBSessionStore:
        return build_session_store(self.settings, self.clients)

    @functools.cached_property
    def push_dead_letters(self) -> SqsPushDeadLetters:
        from a2a_core.aws.sqs_push_dead_letters import SqsPushDeadLetters

        return SqsPushDeadLetters(self.clients.sqs, required(self.settings.push_dlq_url, "push_dlq_url"))

    @functools.cached_property
    def run_queue_messages(self) -> SqsMessages:
        from a2a_core.aws.sqs_broker import SqsMessages

        return SqsMessages(self.clients.sqs, self.settings.queue_url)

    @functools.cached_property
    def turn_launcher(self) -> TurnLauncher | None:
        """ECS RunTask on the long-turn worker's cluster, where the construct deployed one."""
        return build_turn_launcher(self.settings)

    def reconnect(self) -> None:
        if "clients" in self.__dict__:  # built (`functools.cached_property`)
            self.clients.reset()

    def app_authenticator(self) -> Authenticator | None:
        return build_app_authenticator(self.settings, self.clients)

    def page_token_key(self) -> bytes:
        """Derived from the table, which every instance shares (anyone who knows its name could
        sign tokens, though they would still page only through their own tasks)."""
        if not self.settings.table_name:
            return super().page_token_key()
        seed = f"a2a-serverless:{self.settings.aws_region}:{self.settings.table_name}"
        return hashlib.sha256(seed.encode()).digest()


def build_aws_adapters(settings: Settings, clients: AwsClients) -> AwsAdapters:
    """The API's adapters, built now: raises `SettingsError` naming the first resource that is not
    configured."""
    adapters = AwsAdapters(settings, clients)
    (adapters.store, adapters.broker, adapters.push_store)  # noqa: B018 (built now, not on first use)
    return adapters


def build_task_store(
    settings: Settings, clients: AwsClients, *, marks: PushMarks | None = None
) -> DynamoDBTaskStore:
    """The task store; with push on it marks commits for the push function (``marks``, or its
    own when not given)."""
    from a2a_core.aws.blobs import S3Blobs
    from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore

    return DynamoDBTaskStore(
        clients.dynamodb,
        required(settings.table_name, "table_name"),
        blobs=S3Blobs(lambda: clients.s3, required(settings.bucket_name, "bucket_name")),
        retention_seconds=settings.retention_days * _DAY,
        offload_threshold=settings.offload_threshold_bytes,
        marks=marks or build_push_marks(settings, clients),
    )


def build_push_marks(settings: Settings, clients: AwsClients) -> PushMarks | None:
    if not settings.push_enabled:
        return None
    from a2a_core.aws.dynamodb.push_marks import PushMarks

    table = required(settings.table_name, "table_name")
    return PushMarks(clients.dynamodb, table, events=settings.push_events)


def build_broker(settings: Settings, clients: AwsClients) -> SqsBroker:
    from a2a_core.aws.sqs_broker import SqsBroker

    return SqsBroker(clients.sqs, required(settings.queue_url, "queue_url"))


def build_push_store(
    settings: Settings, clients: AwsClients, *, marks: PushMarks | None = None
) -> DynamoDBPushConfigStore:
    from a2a_core.aws.dynamodb.push_store import DynamoDBPushConfigStore

    return DynamoDBPushConfigStore(
        clients.dynamodb,
        required(settings.table_name, "table_name"),
        retention_seconds=settings.retention_days * _DAY,
        marks=marks,
    )


def build_context_store(settings: Settings, clients: AwsClients) -> DynamoDBContextStore:
    from a2a_core.aws.dynamodb.context_store import DynamoDBContextStore

    return DynamoDBContextStore(
        clients.dynamodb,
        required(settings.table_name, "table_name"),
        retention_seconds=settings.retention_days * _DAY,
        chunk_bytes=settings.offload_threshold_bytes,
    )


def build_session_store(settings: Settings, clients: AwsClients) -> DynamoDBSessionStore:
    from a2a_core.aws.blobs import S3Blobs
    from a2a_core.aws.dynamodb.session_store import DynamoDBSessionStore

    return DynamoDBSessionStore(
        clients.dynamodb,
        required(settings.table_name, "table_name"),
        retention_seconds=settings.retention_days * _DAY,
        blobs=S3Blobs(lambda: clients.s3, required(settings.bucket_name, "bucket_name")),
        offload_bytes=settings.offload_threshold_bytes,
    )


def build_kms_client(settings: Settings) -> KMSClient:
    from a2a_core.aws.clients import kms_client

    return kms_client(settings.aws_region, settings.aws_endpoint_url, sdk=settings.aws_client)


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
    """The API key store in the settings' table: the one the app behind a function URL reads and
    `a2a-serverless keys` writes."""
    from a2a_core.aws.dynamodb.api_keys import DynamoDBApiKeyStore

    return DynamoDBApiKeyStore(clients.dynamodb, _table(settings))


def build_app_authenticator(settings: Settings, clients: AwsClients) -> Authenticator | None:
    """The authenticator for API keys behind a function URL; None for every other deployment
    (`a2a_core.compose.app.compose_app` builds those from the settings). The adapters are
    imported only when used, so the other deployments' cold starts do not pay for them."""
    if settings.front_door != "function_url" or settings.auth_mode != "api_key":
        return None
    from a2a_core.auth import build_authenticator  # the API's: no other function authenticates
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


# --- the long-turn worker on ECS Fargate -------------------------------------------------------


def build_turn_launcher(settings: Settings, ecs: Any = None) -> TurnLauncher | None:
    """What hands turns longer than the Lambda worker allows to a Fargate task
    (`a2a_core.aws.ecs_launcher`), or None when no long-turn cluster is configured. Raises
    `SettingsError` naming what is missing when the cluster is only half configured. ``ecs``
    (a client with ``run_task``) is built from the settings, on first use, when not given."""
    named = {
        "long_turn_cluster": settings.long_turn_cluster,
        "long_turn_task_definition": settings.long_turn_task_definition,
        "long_turn_subnets": settings.long_turn_subnets,
    }
    if not any(named.values()):
        return None
    missing = [f"{ENV_PREFIX}{name.upper()}" for name, value in named.items() if not value]
    if missing:
        raise SettingsError(
            f"the long-turn worker (ECS Fargate) needs {', '.join(missing)} too: "
            "the cluster, its task definition and the subnets its tasks run in"
        )
    from a2a_core.aws.ecs_launcher import EcsLaunchConfig, EcsTurnLauncher

    config = EcsLaunchConfig(
        cluster=required(settings.long_turn_cluster, "long_turn_cluster"),
        task_definition=required(settings.long_turn_task_definition, "long_turn_task_definition"),
        subnets=tuple(settings.long_turn_subnets),
        security_groups=tuple(settings.long_turn_security_groups),
        public_ip=settings.long_turn_public_ip,
        container=settings.long_turn_container,
        capacity=settings.long_turn_capacity,
    )
    return EcsTurnLauncher(ecs if ecs is not None else _ecs_client(settings), config)


def _ecs_client(settings: Settings) -> Any:
    from a2a_core.aws.clients import LazyClient, client_factory

    make = client_factory(
        settings.aws_region, settings.aws_endpoint_url, read_timeout=10, sdk=settings.aws_client
    )
    return LazyClient(lambda: make("ecs"))
