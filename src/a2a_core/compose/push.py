"""Push notifications, composed: the config service, the webhook sender, the signers, the payload
per protocol generation, and the notifier the push function runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a_core.core.push_store import PushConfigStore
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.settings import ENV_PREFIX, Settings, SettingsError

if TYPE_CHECKING:
    from a2a_core.compose.adapters import Adapters
    from a2a_core.push.metrics import DeliveryMetrics
    from a2a_core.push.notifier import PushNotifier
    from a2a_core.push.payloads import PushPayload, PushPayloads
    from a2a_core.push.service import PushConfigService
    from a2a_core.push.signing import Signer
    from a2a_core.push.urls import Resolver, UrlPolicy
    from a2a_core.push.webhooks import WebhookSender

from a2a_core.compose.aws import build_push_signers

# What notifications say in ``iss`` when A2A_PUBLIC_URL is not set (set it: receivers pin ``iss``).
FALLBACK_ISSUER = "urn:a2a-serverless"


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
    from a2a_core.push.metrics import CountingMetrics
    from a2a_core.push.webhooks import RetryPolicy, WebhookSender

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


def push_payloads() -> PushPayloads:
    """Each protocol generation's notification body: the 0.x Task, and the 1.0 StreamResponse
    (the 1.1 draft's: with generations), whose codec is imported only when a config created
    through 1.x is first notified."""
    from a2a_core.generations import V1_0, V1_1
    from a2a_core.push.payloads import PushPayloads

    return PushPayloads({V1_0.version: _v1_push_payload, V1_1.version: _draft_push_payload})


def _v1_push_payload() -> PushPayload:
    from a2a_core.protocol.v1.push_payload import StreamResponsePayload

    return StreamResponsePayload()


def _draft_push_payload() -> PushPayload:
    from a2a_core.protocol.v1.push_payload import DraftStreamResponsePayload

    return DraftStreamResponsePayload()


def build_push_notifier(
    adapters: Adapters, *, signer: Signer, metrics: DeliveryMetrics | None = None
) -> PushNotifier:
    """What the push function runs: task log, configs, the webhook sender, the push DLQ, and
    each generation's payload."""
    from a2a_core.push.notifier import PushNotifier

    settings = adapters.settings
    # Read-only: the push function may not write the table, so it never stores a snapshot.
    ledger = TaskLedger(adapters.store, history_cap=settings.max_history_length, repair_snapshots=False)
    return PushNotifier(
        ledger,
        adapters.push_store,
        build_sender(settings, signer, metrics=metrics),
        adapters.push_dead_letters,
        events=settings.push_events,
        history_length=settings.max_history_length,
        payloads=push_payloads(),
    )


def build_lambda_push_notifier(adapters: Adapters, *, metrics: DeliveryMetrics | None = None) -> PushNotifier:
    """`build_push_notifier` signing with the KMS key; refuses settings meant for dev only."""
    settings = adapters.settings
    if settings.push_allow_insecure_loopback:
        raise SettingsError(f"{ENV_PREFIX}PUSH_ALLOW_INSECURE_LOOPBACK is for local development only")
    signer = build_push_signers(settings)[0]
    return build_push_notifier(adapters, signer=signer, metrics=metrics)
