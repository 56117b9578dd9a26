"""The push-notification config port and its in-memory adapter, and what the engine asks of
push configs."""

from __future__ import annotations

import threading
import uuid
from abc import ABC, abstractmethod
from typing import Protocol

from a2a_core.types import PushNotificationConfig


class PushConfigStore(ABC):
    """Several webhook configs per task, keyed by config id."""

    @abstractmethod
    async def put(self, task_id: str, config: PushNotificationConfig) -> PushNotificationConfig:
        """Store ``config`` (assigning an id when it has none); replaces a config with that id.

        A replaced config keeps its place in `list`. Idempotent; returns the stored config.
        """

    @abstractmethod
    async def get(self, task_id: str, config_id: str | None = None) -> PushNotificationConfig | None:
        """The config with ``config_id``, or the task's first one when None; None on a miss."""

    @abstractmethod
    async def list(self, task_id: str) -> list[PushNotificationConfig]:
        """All configs of the task, oldest first; [] when it has none."""

    @abstractmethod
    async def delete(self, task_id: str, config_id: str) -> None:
        """Remove a config; deleting one that does not exist is not an error."""


class InMemoryPushConfigStore(PushConfigStore):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._configs: dict[str, dict[str, str]] = {}

    async def put(self, task_id: str, config: PushNotificationConfig) -> PushNotificationConfig:
        stored = config if config.id else config.model_copy(update={"id": str(uuid.uuid4())})
        assert stored.id is not None
        with self._lock:
            self._configs.setdefault(task_id, {})[stored.id] = stored.model_dump_json()
        return PushNotificationConfig.model_validate_json(self._configs[task_id][stored.id])

    async def get(self, task_id: str, config_id: str | None = None) -> PushNotificationConfig | None:
        configs = await self.list(task_id)
        return next((c for c in configs if config_id is None or c.id == config_id), None)

    async def list(self, task_id: str) -> list[PushNotificationConfig]:
        with self._lock:
            blobs = list(self._configs.get(task_id, {}).values())
        return [PushNotificationConfig.model_validate_json(blob) for blob in blobs]

    async def delete(self, task_id: str, config_id: str) -> None:
        with self._lock:
            self._configs.get(task_id, {}).pop(config_id, None)


class PushConfigs(Protocol):
    """What the engine needs of push notifications when a message carries a config
    (`a2a_core.push.service.PushConfigService` is the one implementation)."""

    async def check(self, config: PushNotificationConfig, *, at: str = "pushNotificationConfig") -> None:
        """Raise `InvalidParamsError` with the reason if ``config`` could never be delivered;
        ``at`` is where the config sits in the params (the error's ``data.field``)."""

    async def attach(self, task_id: str, config: PushNotificationConfig) -> PushNotificationConfig:
        """Store a checked config for ``task_id``, within the per-task limit."""
