"""Which adapters serve each backend (``A2A_BACKEND``): the one place that decides, asked by every
composition root (each Lambda function's handler, `a2a-serverless dev`).

- ``memory``: every port in this process's memory (`InMemoryAdapters`): the API and the worker
  share one process (dev's ``--backend memory``, the API function in tests and benchmarks);
- ``aws``: DynamoDB, SQS and S3, named by the settings (`AwsAdapters`): every Lambda function;
- ``local``: the same AWS adapters on the AWS emulator (moto) that dev starts in this process
  (`a2a_core.emulator`), whose task store also wakes this process's streams on each write, as
  the in-memory one does: the worker runs in this process too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from a2a_core.compose.adapters import Adapters, InMemoryAdapters
from a2a_core.compose.aws import AwsAdapters, build_task_store
from a2a_core.core.tasklog.store import TaskStore
from a2a_core.core.tasklog.waking_store import WakingTaskStore
from a2a_core.settings import ENV_PREFIX, Settings, SettingsError

if TYPE_CHECKING:
    from a2a_core.aws.clients import AwsClients


class EmulatedAwsAdapters(AwsAdapters):
    """The ``local`` backend: `AwsAdapters` on the emulator, writes announced in this process."""

    @functools.cached_property
    def store(self) -> TaskStore:
        return WakingTaskStore(build_task_store(self.settings, self.clients, marks=self.push_marks))

    def page_token_key(self) -> bytes:
        return Adapters.page_token_key(self)  # the emulator lives as long as this process


BACKENDS: dict[str, Callable[[Settings, AwsClients | None], Adapters]] = {
    "memory": lambda settings, _clients: InMemoryAdapters(settings),
    "local": EmulatedAwsAdapters,
    "aws": AwsAdapters,
}


def build_adapters(
    settings: Settings, clients: AwsClients | None = None, *, function: str | None = None
) -> Adapters:
    """``settings.backend``'s adapters; ``clients`` (the AWS backends') are built from the
    settings when not given. ``function`` names the Lambda function asking when it is not the
    API: it shares tasks with the API only through AWS, so the memory backend is refused."""
    adapters = BACKENDS[settings.backend](settings, clients)
    if function is not None and isinstance(adapters, InMemoryAdapters):
        raise SettingsError(
            f"the {function} function shares tasks with the API through AWS, not through this "
            f"process's memory: set {ENV_PREFIX}BACKEND=aws (the CDK construct does)"
        )
    return adapters
