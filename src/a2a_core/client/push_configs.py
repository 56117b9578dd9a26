"""Push configs as the client returns them: the 0.x ``TaskPushNotificationConfig`` whatever the
generation (the codecs decode to the core's neutral `TaskPushConfig`), and a task's whole list
(1.0 pages it; 0.x answers it at once, which reads as one page with no next token)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from a2a_core.core.requests import PushConfigQuery, TaskPushConfig
from a2a_core.protocol.v0 import TaskPushNotificationConfig
from a2a_core.protocol.v1 import operations as v1


def public(config: TaskPushConfig) -> TaskPushNotificationConfig:
    return TaskPushNotificationConfig(task_id=config.task_id, push_notification_config=config.config)


async def every_config(
    call: Callable[[str, Any], Awaitable[Any]], task_id: str
) -> list[TaskPushNotificationConfig]:
    """Every config of the task, ``call`` (the client's) following the pages to the last; a
    token seen before ends the list (a server repeating itself would loop forever)."""
    configs: list[TaskPushConfig] = []
    token: str | None = None
    tokens: set[str] = set()
    while True:
        page = await call(v1.LIST_PUSH_CONFIGS.name, PushConfigQuery(task_id, page_token=token))
        configs += page.configs
        token = page.next_page_token
        if not token or token in tokens:
            return [public(config) for config in configs]
        tokens.add(token)
