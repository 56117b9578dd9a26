"""The push-notification config port and its in-memory adapter, and what the engine asks of
push configs."""

from __future__ import annotations

import threading
import uuid
from abc import ABC, abstractmethod
from typing import Protocol

from a2a_core.domain import PushNotificationConfig


class PushConfigStore(ABC):
    """Several webhook configs per task, keyed by config id. Every read returns a config with the
    ``generation`` it was stored with (0.3 for one stored before generations were kept)."""

    @abstractmethod
    async def put(self, task_id: str, config: PushNotificationConfig) -> PushNotificationConfig:
        """Store ``config`` (assigning an id when it has none) with its ``generation``; replaces a
        config with that id, generation included.

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
        # task id -> config id -> the config (a copy: callers' objects are never kept or handed out)
        self._configs: dict[str, dict[str, PushNotificationConfig]] = {}

    async def put(self, task_id: str, config: PushNotificationConfig) -> PushNotificationConfig:
        stored = config.model_copy(update=None if config.id else {"id": str(uuid.uuid4())}, deep=True)
        assert stored.id is not None
        with self._lock:
            self._configs.setdefault(task_id, {})[stored.id] = stored
        return stored.model_copy(deep=True)

    async def get(self, task_id: str, config_id: str | None = None) -> PushNotificationConfig | None:
        configs = await self.list(task_id)
        return next((c for c in configs if config_id is None or c.id == config_id), None)

    async def list(self, task_id: str) -> list[PushNotificationConfig]:
        with self._lock:
            kept = list(self._configs.get(task_id, {}).values())
        return [config.model_copy(deep=True) for config in kept]

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

    async def is_stored(self, task_id: str, config_id: str) -> bool:
        """Whether ``task_id`` has a config of that id."""

    async def detach(self, task_id: str, config_id: str) -> None:
        """Remove a config `attach` stored (for a message the task then refused)."""
