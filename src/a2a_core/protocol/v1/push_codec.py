"""Domain push notification configs <-> 1.0 TaskPushNotificationConfig (flattened, one auth scheme)."""

from __future__ import annotations

from dataclasses import replace

from a2a_core.core.requests import TaskPushConfig
from a2a_core.domain import PushNotificationAuthenticationInfo, PushNotificationConfig
from a2a_core.generations import V1_0, V1_1
from a2a_core.protocol.v1.drafts import speaks_1_1
from a2a_core.protocol.v1.wire import push as wp


def push_config_to_v1(config: TaskPushConfig, *, tenant: str | None = None) -> wp.TaskPushNotificationConfig:
    """1.0 has one ``authentication.scheme``: the domain's first scheme travels (as a2a-sdk does);
    with no scheme there is no AuthenticationInfo to send."""
    push = config.config
    auth = push.authentication
    authentication = (
        wp.AuthenticationInfo.model_construct(scheme=auth.schemes[0], credentials=auth.credentials or None)
        if auth is not None and auth.schemes
        else None
    )
    return wp.TaskPushNotificationConfig.model_construct(
        url=push.url,
        tenant=tenant or None,
        id=push.id or None,
        task_id=config.task_id or None,
        token=push.token or None,
        authentication=authentication,
    )


def redacted(config: TaskPushConfig) -> TaskPushConfig:
    """``config`` without its webhook's ``authentication.credentials`` (A2A 1.1 draft, PR #1750:
    Get and List of push configs MUST NOT return them); the scheme stays."""
    auth = config.config.authentication
    if auth is None or not auth.credentials:
        return config
    webhook = config.config.model_copy(
        update={"authentication": auth.model_copy(update={"credentials": None})}
    )
    return replace(config, config=webhook)


def push_notification_config_from_v1(config: wp.TaskPushNotificationConfig) -> PushNotificationConfig:
    """The webhook part of a 1.0 config (its ``taskId``/``tenant`` are the caller's business),
    recorded as created through 1.0 (or the 1.1 draft, for a 1.1 request): its webhook gets that
    generation's payloads."""
    auth = config.authentication
    return PushNotificationConfig(
        url=config.url,
        id=config.id,
        token=config.token,
        authentication=(
            PushNotificationAuthenticationInfo(schemes=[auth.scheme], credentials=auth.credentials)
            if auth is not None
            else None
        ),
        generation=V1_1.version if speaks_1_1() else V1_0.version,
    )


def push_config_from_v1(config: wp.TaskPushNotificationConfig) -> TaskPushConfig:
    return TaskPushConfig(task_id=config.task_id or "", config=push_notification_config_from_v1(config))
