"""Which commits the push function is invoked for: every commit item says so in ``notify``.

The table's stream delivers every new commit, and the push function's event source filters them
on ``notify`` (`a2a_core.aws.event_filters`), so a task nobody asked to be notified about costs no
invocation. A commit is marked true when the notifier would notify it (a notified state:
`a2a_core.push.notified.notified_seq`) and its task has a push config, however it was set: with
the message (either generation's ``configuration``) or later by the config methods
(``tasks/pushNotificationConfig/set``, ``CreateTaskPushNotificationConfig``). The writer checks
for configs with one strongly consistent ``Query`` of the task's ``PUSH#`` items (``COUNT``, one
read unit), only for a notified commit, and remembers the tasks it found configs for (and those
this process stored one for): a config set after that check, while the commit is being written,
is not notified for it, as one set after the push function read the configs was not before.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from a2a_core.aws.calls import Item, aws_call
from a2a_core.aws.dynamodb.keys import PUSH_MARK, PUSH_PREFIX, task_key
from a2a_core.aws.resources import TABLE
from a2a_core.core.tasklog.records import Commit
from a2a_core.push.notified import PushEvents, notified_seq

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

_REMEMBERED = 1024  # tasks with configs kept in mind (a worker runs few at a time)


class PushMarks:
    def __init__(self, client: DynamoDBClient, table: str, *, events: PushEvents = "status") -> None:
        self._client = client
        self._table = table
        self._events = events
        self._configured: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    async def mark(self, item: Item, commit: Commit) -> None:
        """Set ``item``'s ``notify`` for ``commit``."""
        notify = notified_seq(commit, self._events) is not None and await self._has_configs(commit.task_id)
        item[PUSH_MARK] = {"BOOL": notify}

    def configured(self, task_id: str) -> None:
        """``task_id`` has a push config now (this process stored it)."""
        with self._lock:
            self._configured[task_id] = None
            self._configured.move_to_end(task_id)
            while len(self._configured) > _REMEMBERED:
                self._configured.popitem(last=False)

    async def _has_configs(self, task_id: str) -> bool:
        with self._lock:
            if task_id in self._configured:
                return True
        answer = await aws_call(
            self._client.query,
            TableName=self._table,
            KeyConditionExpression="#pk = :pk AND begins_with(#sk, :push)",
            ExpressionAttributeNames={"#pk": TABLE.partition_key, "#sk": TABLE.sort_key},
            ExpressionAttributeValues={":pk": {"S": task_key(task_id)}, ":push": {"S": PUSH_PREFIX}},
            Select="COUNT",
            Limit=1,
            ConsistentRead=True,
        )
        if not answer.get("Count"):
            return False
        self.configured(task_id)
        return True
