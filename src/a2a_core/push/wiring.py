"""Push parts built from `Settings`, for the composition roots (API, push function, dev)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a_core.core.ledger import TaskLedger
from a2a_core.core.push_store import InMemoryPushConfigStore, PushConfigStore
from a2a_core.push.service import PushConfigService
from a2a_core.push.urls import Resolver, UrlPolicy, system_resolver
from a2a_core.settings import Settings

# The API imports this module at cold start; delivery (httpx) and signing are the push function's.
if TYPE_CHECKING:
    from a2a_core.push.delivery import WebhookSender
    from a2a_core.push.metrics import DeliveryMetrics
    from a2a_core.push.signing import Signer

# What notifications say in ``iss`` when A2A_PUBLIC_URL is not set (set it: receivers pin ``iss``).
FALLBACK_ISSUER = "urn:a2a-serverless"


def url_policy(settings: Settings, resolver: Resolver = system_resolver) -> UrlPolicy:
    return UrlPolicy(
        allow_insecure_loopback=settings.push_allow_insecure_loopback,
        allowed_domains=tuple(settings.push_allowed_domains),
        resolver=resolver,
    )


def issuer(settings: Settings) -> str:
    """The agent's URL as the card gives it (with its trailing slash), the JWT's ``iss``."""
    return settings.public_url.rstrip("/") + "/" if settings.public_url else FALLBACK_ISSUER


def build_push_config_service(
    settings: Settings,
    ledger: TaskLedger,
    store: PushConfigStore | None = None,
    *,
    resolver: Resolver = system_resolver,
) -> PushConfigService:
    """The config methods; without ``store``, the one the backend implies (a second set of AWS
    clients on "aws": pass the composition root's store to save them)."""
    return PushConfigService(
        store or _settings_store(settings),
        ledger,
        url_policy(settings, resolver),
        max_configs_per_task=settings.push_max_configs_per_task,
    )


def default_signers(settings: Settings) -> tuple[Signer, ...]:
    """The KMS keys the settings name (empty when none is configured)."""
    if not settings.push_signing_key_id:
        return ()
    from a2a_core.aws.compose import build_push_signers

    return build_push_signers(settings)


def build_sender(
    settings: Settings,
    signer: Signer,
    *,
    metrics: DeliveryMetrics | None = None,
    resolver: Resolver = system_resolver,
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


def _settings_store(settings: Settings) -> PushConfigStore:
    if settings.backend == "memory":
        return InMemoryPushConfigStore()
    from a2a_core.aws.clients import build_clients
    from a2a_core.aws.compose import build_push_store

    return build_push_store(settings, build_clients(settings.aws_region, settings.aws_endpoint_url))
