"""Composition: settings and clients in, adapters and the assembled `AgentServer` out.

The one place that decides which adapter serves which port. `functions/*/handler.py` (one per
Lambda function) and `a2a-serverless dev` (`a2a_core.dev`) are thin roots over it: they read the
settings, build the AWS clients once, and call these. AWS adapters (and botocore) and the push
delivery code are imported by the builders that use them, so an in-memory API never loads them.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from a2a_core.agent_card import CardBuilder
from a2a_core.core.broker import Broker
from a2a_core.core.context_store import ContextStore
from a2a_core.core.engine import EngineConfig, TaskEngine
from a2a_core.core.executor import AgentExecutor, as_executor
from a2a_core.core.ledger import TaskLedger
from a2a_core.core.page_tokens import PageTokens
from a2a_core.core.push_store import InMemoryPushConfigStore, PushConfigStore
from a2a_core.core.store import TaskStore
from a2a_core.protocol.bindings import build_protocols
from a2a_core.server import AgentServer
from a2a_core.settings import ENV_PREFIX, Settings, SettingsError
from a2a_core.streaming import TaskStreams

if TYPE_CHECKING:
    from mypy_boto3_kms import KMSClient

    from a2a_core.aws.clients import AwsClients
    from a2a_core.aws.dynamodb.context_store import DynamoDBContextStore
    from a2a_core.aws.dynamodb.push_store import DynamoDBPushConfigStore
    from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore
    from a2a_core.aws.kms_signer import KmsSigner
    from a2a_core.aws.sqs_broker import SqsBroker
    from a2a_core.core.worker import Worker
    from a2a_core.push.delivery import WebhookSender
    from a2a_core.push.metrics import DeliveryMetrics
    from a2a_core.push.notifier import PushNotifier
    from a2a_core.push.payloads import PushPayload, PushPayloads
    from a2a_core.push.service import PushConfigService
    from a2a_core.push.signing import Signer
    from a2a_core.push.urls import Resolver, UrlPolicy

_DAY = 24 * 3600
# What notifications say in ``iss`` when A2A_PUBLIC_URL is not set (set it: receivers pin ``iss``).
FALLBACK_ISSUER = "urn:a2a-serverless"


def build_server(
    settings: Settings,
    *,
    store: TaskStore,
    broker: Broker,
    context_store: ContextStore | None = None,
    push_store: PushConfigStore | None = None,
    push_signers: Sequence[Signer] | None = None,
) -> AgentServer:
    """``push_store`` and ``push_signers`` matter only with ``settings.push_enabled``. Without a
    store the memory backend keeps configs in memory; any other backend must pass the one built
    with its other adapters. Without signers, the KMS keys the settings name sign."""
    ledger = TaskLedger(store, history_cap=settings.max_history_length)
    push: PushConfigService | None = None
    signers: tuple[Signer, ...] = ()
    if settings.push_enabled:
        push = build_push_config_service(settings, ledger, _push_store(settings, push_store))
        signers = tuple(push_signers) if push_signers is not None else default_signers(settings)
    engine = TaskEngine(
        ledger,
        broker,
        EngineConfig(
            default_blocking=settings.default_blocking,
            blocking_timeout=settings.blocking_timeout_seconds,
            input_modes=tuple(settings.default_input_modes),
            output_modes=tuple(settings.default_output_modes),
            max_parts_per_message=settings.max_parts_per_message,
            max_text_part_chars=settings.max_text_part_chars,
            max_history_length=settings.max_history_length,
            file_uri_schemes=tuple(settings.file_uri_schemes),
        ),
        push=push,
        page_tokens=PageTokens(page_token_secret(settings)),
    )
    streams = TaskStreams(engine) if settings.streaming_enabled else None
    cards = CardBuilder(settings, streaming=streams is not None, push_notifications=push is not None)
    # The 1.0 card is signed with the push key (its JWKS is published) when push is on.
    card_signer = signers[0] if signers else None
    protocols = build_protocols(
        settings, engine, streams=streams, push=push, cards=cards, card_signer=card_signer
    )
    parts = (settings, ledger, engine, protocols, cards)
    return AgentServer(*parts, context_store=context_store, push=push, push_signers=signers)


def page_token_secret(settings: Settings) -> bytes:
    """The key ListTasks page tokens are signed with: ``A2A_PAGE_TOKEN_SECRET`` when set (the
    stack sets it, so every instance and every deploy accepts each other's tokens). Otherwise the
    memory and local backends, whose tasks live in this process, use a key of the process; the
    aws backend derives one from its table, which its instances share, but anyone who knows the
    table name could sign tokens (they would still only page through their own tasks)."""
    if settings.page_token_secret is not None:
        return settings.page_token_secret.get_secret_value().encode()
    if settings.backend == "aws" and settings.table_name:
        return hashlib.sha256(f"a2a-serverless:{settings.aws_region}:{settings.table_name}".encode()).digest()
    return secrets.token_bytes(32)


def load_agent(spec: str) -> AgentExecutor:
    """Import ``package.module:attribute`` and return it as an executor."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise SettingsError(f"agent {spec!r} must look like 'package.module:attribute'")
    try:
        target = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise SettingsError(f"cannot load agent {spec!r}: {error}") from None
    return as_executor(target)


# --- push notifications ------------------------------------------------------------------------


def url_policy(settings: Settings, resolver: Resolver | None = None) -> UrlPolicy:
    from a2a_core.push.urls import UrlPolicy, system_resolver

    return UrlPolicy(
        allow_insecure_loopback=settings.push_allow_insecure_loopback,
        allowed_domains=tuple(settings.push_allowed_domains),
        resolver=resolver or system_resolver,
    )


def issuer(settings: Settings) -> str:
    """The agent's URL as the card gives it (with its trailing slash), the JWT's ``iss``."""
    return settings.public_url.rstrip("/") + "/" if settings.public_url else FALLBACK_ISSUER


def build_push_config_service(
    settings: Settings, ledger: TaskLedger, store: PushConfigStore, *, resolver: Resolver | None = None
) -> PushConfigService:
    """The config methods, over ``store``."""
    from a2a_core.push.service import PushConfigService

    return PushConfigService(
        store, ledger, url_policy(settings, resolver), max_configs_per_task=settings.push_max_configs_per_task
    )


def default_signers(settings: Settings) -> tuple[Signer, ...]:
    """The KMS keys the settings name (empty when none is configured)."""
    return build_push_signers(settings) if settings.push_signing_key_id else ()


def build_sender(
    settings: Settings,
    signer: Signer,
    *,
    metrics: DeliveryMetrics | None = None,
    resolver: Resolver | None = None,
) -> WebhookSender:
    from a2a_core.push.delivery import RetryPolicy, WebhookSender
    from a2a_core.push.metrics import CountingMetrics

    return WebhookSender(
        policy=url_policy(settings, resolver),
        signer=signer,
        issuer=issuer(settings),
        retry=RetryPolicy(
            max_attempts=settings.push_max_attempts,
            timeout=settings.push_timeout_seconds,
            backoff=settings.push_backoff_seconds,
        ),
        token_ttl=settings.push_token_ttl_seconds,
        metrics=metrics or CountingMetrics(),
    )


def _push_store(settings: Settings, store: PushConfigStore | None) -> PushConfigStore:
    if store is not None:
        return store
    if settings.backend == "memory":
        return InMemoryPushConfigStore()
    raise SettingsError(
        f"backend {settings.backend!r} with push notifications on needs the push config store built "
        "with the other adapters (build_server(..., push_store=build_aws_adapters(...).push_store))"
    )


# --- AWS adapters, from settings and the clients a root built once -----------------------------


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
        _required(settings.table_name, "table_name"),
        blobs=S3Blobs(lambda: clients.s3, _required(settings.bucket_name, "bucket_name")),
        retention_seconds=settings.retention_days * _DAY,
        offload_threshold=settings.offload_threshold_bytes,
    )


def build_broker(settings: Settings, clients: AwsClients) -> SqsBroker:
    from a2a_core.aws.sqs_broker import SqsBroker

    return SqsBroker(clients.sqs, _required(settings.queue_url, "queue_url"))


def build_push_store(settings: Settings, clients: AwsClients) -> DynamoDBPushConfigStore:
    from a2a_core.aws.dynamodb.push_store import DynamoDBPushConfigStore

    return DynamoDBPushConfigStore(
        clients.dynamodb,
        _required(settings.table_name, "table_name"),
        retention_seconds=settings.retention_days * _DAY,
    )


def build_context_store(settings: Settings, clients: AwsClients) -> DynamoDBContextStore:
    from a2a_core.aws.dynamodb.context_store import DynamoDBContextStore

    return DynamoDBContextStore(
        clients.dynamodb,
        _required(settings.table_name, "table_name"),
        retention_seconds=settings.retention_days * _DAY,
        chunk_bytes=settings.offload_threshold_bytes,
    )


def build_worker(settings: Settings, clients: AwsClients) -> Worker:
    """What the worker function runs: the agent the settings name, over the task and context
    stores, trying a turn as often as the run queue delivers it."""
    from a2a_core.aws.resources import QUEUE
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
        _required(settings.push_signing_key_id, "push_signing_key_id"),
        *settings.push_published_key_ids,
    ]
    return tuple(KmsSigner(client, key_id) for key_id in dict.fromkeys(key_ids))


def push_payloads() -> PushPayloads:
    """Each protocol generation's notification body: the 0.x Task, and the 1.0 StreamResponse,
    whose codec is imported only when a config created through 1.0 is first notified."""
    from a2a_core.push.payloads import PushPayloads
    from a2a_core.types.push import PUSH_V1

    return PushPayloads({PUSH_V1: _v1_push_payload})


def _v1_push_payload() -> PushPayload:
    from a2a_core.protocol.v1.push_payload import StreamResponsePayload

    return StreamResponsePayload()


def build_push_notifier(
    settings: Settings, clients: AwsClients, *, signer: Signer, metrics: DeliveryMetrics | None = None
) -> PushNotifier:
    """What the push function runs: task log, configs, the webhook sender, the push DLQ, and
    each generation's payload."""
    from a2a_core.aws.sqs_push_dead_letters import SqsPushDeadLetters
    from a2a_core.push.notifier import PushNotifier

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
        payloads=push_payloads(),
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
