"""What to notify about, and to whom: one task-log commit in, one POST per config out.

By default a commit that leaves its task in input-required, auth-required or a terminal state
(completed, canceled, failed, rejected) is notified: the moments a disconnected client must act
or can collect the result. With ``events="all"`` every commit holding a status or artifact
event is. The body is the task right after that commit (as ``tasks/get`` without historyLength
would have returned it) in the payload of the generation that created the config
(`a2a_core.push.payloads`: the Task for 0.x configs, a StreamResponse for 1.0 ones): a receiver
needs no follow-up call, and a retry or a replay of the same event sends the same bytes. A commit
yields at most one notification per config; its event id is ``<taskId>:<seq>`` with ``seq`` the
commit's last notified event, which is also that event's SSE id in ``message/stream``.

All configs of a task are delivered concurrently, each with its own retry budget, so one slow
webhook never delays another. A delivery that fails for good becomes a dead letter; only when a
dead letter cannot be kept (or the task cannot be read) does the commit fail, for the stream
to retry it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from a2a_core.core.errors import TaskNotFoundError
from a2a_core.core.push_store import PushConfigStore
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.records import Commit
from a2a_core.core.tasklog.task_reads import TaskView
from a2a_core.domain import PushNotificationConfig, Task, TaskState
from a2a_core.push.dead_letters import PushDeadLetter, PushDeadLetters
from a2a_core.push.metrics import DELIVERED, FAILED, DeliveryMetrics
from a2a_core.push.notification import Notification
from a2a_core.push.notified import NOTIFIED_STATES, PushEvents, notified_seq
from a2a_core.push.payloads import PushPayloads
from a2a_core.push.webhooks import DeliveryResult, WebhookSender

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CommitRef:
    """A commit as announced by the table's stream (the commit itself when it was inline)."""

    task_id: str
    first_seq: int
    state: TaskState
    commit: Commit | None = None


class PushNotifier:
    def __init__(
        self,
        ledger: TaskLedger,
        push_store: PushConfigStore,
        sender: WebhookSender,
        dead_letters: PushDeadLetters,
        *,
        events: PushEvents = "status",
        history_length: int | None = None,
        payloads: PushPayloads | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``ledger`` reads tasks (it may be read-only: ``repair_snapshots=False``);
        ``history_length``: the cap ``tasks/get`` applies to history when none is asked for (None:
        the ledger's); ``payloads``: each protocol generation's body (None: the 0.x Task only)."""
        self.ledger = ledger
        self.push_store = push_store
        self.sender = sender
        self.dead_letters = dead_letters
        self.events = events
        self.history_length = history_length
        self.payloads = payloads or PushPayloads()
        self._clock = clock

    @property
    def metrics(self) -> DeliveryMetrics:
        """The counters deliveries count into (the sender's retries, our outcomes); whoever runs
        the notifier flushes them once per batch."""
        return self.sender.metrics

    async def on_commit(self, ref: CommitRef, *, deadline: float | None = None) -> list[DeliveryResult]:
        """Notify every config of the task about ``ref`` if it is notified at all; idempotent up to
        duplicates (a receiver drops them by event id)."""
        if self.events == "status" and ref.state not in NOTIFIED_STATES:
            return []  # decided from the stream record alone: no read for most commits
        if ref.commit is not None and self._notified_seq(ref.commit) is None:
            return []
        configs = await self.push_store.list(ref.task_id)
        if not configs:
            return []
        view = await self._view(ref.task_id, ref.first_seq)
        if view is None or view.head.first_seq != ref.first_seq:
            logger.warning("commit %s of task %s is gone; nothing to notify", ref.first_seq, ref.task_id)
            return []
        seq = self._notified_seq(view.head)
        if seq is None:
            return []
        return await self.deliver(view.task, seq, configs, deadline=deadline)

    async def deliver(
        self,
        task: Task,
        seq: int,
        configs: list[PushNotificationConfig],
        *,
        deadline: float | None = None,
    ) -> list[DeliveryResult]:
        """Notify each config about ``task`` as of event ``seq``, in its generation's payload
        (each payload is encoded once, however many configs share it)."""
        notifications: dict[str, Notification] = {}
        for config in configs:
            if config.generation not in notifications:
                notifications[config.generation] = self._notification(task, seq, config.generation)
        deliveries = (self._deliver_one(notifications[c.generation], c, deadline) for c in configs)
        results = await asyncio.gather(*deliveries, return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise errors[0]
        return [r for r in results if isinstance(r, DeliveryResult)]

    async def replay(self, letter: PushDeadLetter) -> DeliveryResult | None:
        """Deliver a dead letter again to its config as it is now; None if the config or the
        task is gone. The kept body is sent again unless the config has since been replaced
        through another protocol generation: then it is rebuilt, in that generation's payload."""
        config = await self.push_store.get(letter.task_id, letter.config_id)
        if config is None:
            return None
        version = config.generation
        if letter.body is not None and letter.protocol_version == version:
            content_type = self.payloads.for_version(version).content_type
            notification = Notification(letter.task_id, letter.seq, letter.body.encode(), content_type)
        else:
            view = await self._view(letter.task_id, letter.seq)
            if view is None:
                return None
            notification = self._notification(view.task, letter.seq, version)
        return await self._deliver_one(notification, config, None)

    def _notification(self, task: Task, seq: int, protocol_version: str) -> Notification:
        payload = self.payloads.for_version(protocol_version)
        return Notification(task.id, seq, payload.encode(task), payload.content_type)

    async def _view(self, task_id: str, through: int) -> TaskView | None:
        """The task right after its commit starting at or before ``through``; None if gone."""
        try:
            return await self.ledger.view(task_id, history_length=self.history_length, through=through)
        except TaskNotFoundError:
            return None

    async def _deliver_one(
        self, notification: Notification, config: PushNotificationConfig, deadline: float | None
    ) -> DeliveryResult:
        result = await self.sender.send(notification, config, deadline=deadline)
        if result.delivered:
            self.metrics.count(DELIVERED)
            return result
        logger.warning(
            "push notification %s to config %s not delivered (%s); dead-lettering it",
            notification.event_id,
            config.id,
            result.reason,
        )
        await self.dead_letters.put(
            PushDeadLetter(
                task_id=notification.task_id,
                config_id=config.id or "",
                event_id=notification.event_id,
                seq=notification.seq,
                url=config.url,
                reason=result.reason,
                attempts=result.attempts,
                failed_at=self._clock(),
                body=notification.body.decode(),
                protocol_version=config.generation,
            )
        )
        self.metrics.count(FAILED)
        return result

    def _notified_seq(self, commit: Commit) -> int | None:
        return notified_seq(commit, self.events)
