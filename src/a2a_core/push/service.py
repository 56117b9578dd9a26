"""Push notification config methods (0.x ``tasks/pushNotificationConfig/*``, 1.0
``*TaskPushNotificationConfig*``) and configs sent with a message, on neutral requests.

Configs are checked when they are set, so a client learns at once (``-32602`` with the reason)
that its webhook will never be called: the URL against the SSRF policy (resolving its host), the
token and credentials for CR/LF, the authentication scheme, the per-task limit. Delivery checks
the URL again before every POST.
"""

from __future__ import annotations

from a2a_core.core.caller import Caller
from a2a_core.core.errors import InvalidParamsError, PushConfigNotFoundError
from a2a_core.core.push_store import PushConfigStore
from a2a_core.core.requests import PushConfigPage, PushConfigQuery, PushConfigRef, TaskPushConfig
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.domain import PushNotificationConfig
from a2a_core.push.headers import authorization
from a2a_core.push.urls import UrlPolicy, WebhookRefusedError


class PushConfigService:
    def __init__(
        self, store: PushConfigStore, ledger: TaskLedger, policy: UrlPolicy, *, max_configs_per_task: int = 10
    ) -> None:
        self.store = store
        self.ledger = ledger
        self.policy = policy
        self.max_configs_per_task = max_configs_per_task

    async def check(self, config: PushNotificationConfig, *, at: str = "pushNotificationConfig") -> None:
        """Raise `InvalidParamsError` with the reason if ``config`` could never be delivered;
        ``at`` is where the config sits in the params, for the error's ``data.field``."""
        try:
            authorization(config)
            await self.policy.check(config.url)
        except WebhookRefusedError as error:
            raise InvalidParamsError(
                f"pushNotificationConfig refused: {error}",
                data={"field": f"{at}.{error.field}", "reason": str(error)},
            ) from None

    async def attach(self, task_id: str, config: PushNotificationConfig) -> PushNotificationConfig:
        """Store a checked config for ``task_id`` (which the caller knows exists), within the limit."""
        existing = await self.store.list(task_id)
        replacing = config.id is not None and any(c.id == config.id for c in existing)
        if not replacing and len(existing) >= self.max_configs_per_task:
            raise InvalidParamsError(
                f"Task {task_id} already has {len(existing)} push notification configs, the most this "
                "agent keeps per task; delete one first"
            )
        return await self.store.put(task_id, config)

    async def is_stored(self, task_id: str, config_id: str) -> bool:
        return await self.store.get(task_id, config_id) is not None

    async def detach(self, task_id: str, config_id: str) -> None:
        await self.store.delete(task_id, config_id)

    async def set(self, request: TaskPushConfig, caller: Caller) -> TaskPushConfig:
        await self.check(request.config)
        await self.ledger.head(request.task_id, owner=caller.principal)  # -32001: unknown, or not theirs
        stored = await self.attach(request.task_id, request.config)
        return TaskPushConfig(task_id=request.task_id, config=stored)

    async def get(self, ref: PushConfigRef, caller: Caller) -> TaskPushConfig:
        await self.ledger.head(ref.task_id, owner=caller.principal)
        config = await self.store.get(ref.task_id, ref.config_id)
        if config is None:
            wanted = ref.config_id
            raise PushConfigNotFoundError(
                f"Task {ref.task_id} has no push notification config"
                + (f" with id {wanted!r}" if wanted is not None else "")
            )
        return TaskPushConfig(task_id=ref.task_id, config=config)

    async def list(self, query: PushConfigQuery, caller: Caller) -> PushConfigPage:
        """Every config of the task: a task keeps at most ``max_configs_per_task``, one page."""
        await self.ledger.head(query.task_id, owner=caller.principal)
        configs = await self.store.list(query.task_id)
        return PushConfigPage(tuple(TaskPushConfig(task_id=query.task_id, config=c) for c in configs))

    async def delete(self, ref: PushConfigRef, caller: Caller) -> None:
        # Deleting a config the task does not have is not an error (the result is null either way).
        await self.ledger.head(ref.task_id, owner=caller.principal)
        if ref.config_id is not None:
            await self.store.delete(ref.task_id, ref.config_id)
