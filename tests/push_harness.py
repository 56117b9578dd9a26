"""A push notifier over in-memory stores and an in-process key, with each generation's payload
as the composition root plugs them in, for tests that POST to real receivers (`push_receiver`):
tasks with configs, commits that move them, and verification."""

from __future__ import annotations

import uuid
from typing import Any

from a2a_core.compose.push import push_payloads
from a2a_core.core.push_store import InMemoryPushConfigStore
from a2a_core.core.tasklog.changes import Change, status
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.records import Commit
from a2a_core.core.tasklog.store import InMemoryTaskStore
from a2a_core.domain import PushNotificationConfig, TaskState
from a2a_core.push.dead_letters import InMemoryPushDeadLetters
from a2a_core.push.metrics import CountingMetrics
from a2a_core.push.notifier import CommitRef, PushNotifier
from a2a_core.push.signing import LocalSigner, jwks
from a2a_core.push.urls import UrlPolicy
from a2a_core.push.verify import verify_notification
from a2a_core.push.webhooks import RetryPolicy, WebhookSender
from support import user_message

ISSUER = "https://agent.example.com/"


class Harness:
    def __init__(self, *, policy: UrlPolicy | None = None, events: Any = "status", **retry: Any) -> None:
        self.store = InMemoryTaskStore()
        self.ledger = TaskLedger(self.store)
        self.configs = InMemoryPushConfigStore()
        self.signer = LocalSigner()
        self.metrics = CountingMetrics()
        self.dead_letters = InMemoryPushDeadLetters()
        self.sleeps: list[float] = []

        async def sleep(seconds: float) -> None:
            self.sleeps.append(seconds)

        self.sender = WebhookSender(
            policy=policy or UrlPolicy(allow_insecure_loopback=True),
            signer=self.signer,
            issuer=ISSUER,
            retry=RetryPolicy(**{"timeout": 2.0, **retry}),
            metrics=self.metrics,
            sleep=sleep,
        )
        self.notifier = PushNotifier(
            self.ledger, self.configs, self.sender, self.dead_letters, events=events, payloads=push_payloads()
        )

    async def task(self, *configs: PushNotificationConfig) -> str:
        task_id = str(uuid.uuid4())
        await self.ledger.create(task_id=task_id, context_id="ctx", message=user_message(), run_id="r1")
        for config in configs:
            await self.configs.put(task_id, config)
        return task_id

    async def move(self, task_id: str, *states: TaskState) -> Commit:
        commit = await self.ledger.write(task_id, lambda head: Change([status(s) for s in states]))
        assert commit is not None
        return commit

    async def notify(self, commit: Commit) -> list[Any]:
        return await self.notifier.on_commit(
            CommitRef(commit.task_id, commit.first_seq, commit.state, commit)
        )

    async def verify(self, request: Any, url: str, **options: Any) -> dict[str, Any]:
        keys = await jwks([self.signer])
        return verify_notification(
            request.headers, request.body, jwks=keys, audience=url, issuer=ISSUER, **options
        )
