"""Runs that were in flight when the previous `a2a-serverless dev` died, handed to the worker again.

The restored table says which turns are pending (a head that is neither terminal nor waiting for
the client, with a run); the queue that held them was not kept, so each is enqueued again, as
the deployed queue would deliver it again: at least once, the worker's claim rules deciding.

A turn the dead process had claimed still carries its lease (900 s on the default settings), and
the worker would not take it over before the lease ends. Only this process can write to the
state directory (it holds its lock), so no worker holding such a lease is alive: recovery releases
it with one conditional commit (a ``working`` status, the run without a lease, its attempt count
kept). The worker then claims the turn as the next attempt, exactly as it would a lease that
expired, so a run that keeps killing dev is still failed after `QueueSpec.max_receive_count`.
The deployed worker's rules are unchanged: nothing outside dev releases a lease.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Any

from a2a_core.aws.dynamodb.keys import EVENT_PREFIX, STATE, TASK_PREFIX
from a2a_core.aws.resources import TABLE
from a2a_core.core.broker import Broker, RunOperation
from a2a_core.core.errors import TaskNotFoundError
from a2a_core.core.tasklog.changes import Change, status
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.lifecycle import INTERRUPTED_STATES, is_terminal
from a2a_core.core.tasklog.records import Commit
from a2a_core.domain import TaskState

logger = logging.getLogger(__name__)


def unfinished_tasks(dynamodb: Any, table: str) -> list[str]:
    """Ids of the tasks whose newest commit is neither terminal nor waiting for the client."""
    heads: dict[str, tuple[str, str]] = defaultdict(lambda: ("", ""))
    names = (TABLE.partition_key, TABLE.sort_key)
    pages = dynamodb.get_paginator("scan").paginate(
        TableName=table,
        ConsistentRead=True,
        ProjectionExpression="#pk, #sk, #state",
        ExpressionAttributeNames={"#pk": names[0], "#sk": names[1], "#state": STATE},
    )
    for page in pages:
        for item in page["Items"]:
            key, sort, state = (item.get(name, {}).get("S", "") for name in (*names, STATE))
            if key.startswith(TASK_PREFIX) and sort.startswith(EVENT_PREFIX) and sort > heads[key][0]:
                heads[key] = (sort, state)
    return [
        key.removeprefix(TASK_PREFIX)
        for key, (_, state) in heads.items()
        if state and not _waiting_or_done(TaskState(state))
    ]


async def resume_runs(ledger: TaskLedger, broker: Broker, task_ids: list[str]) -> list[RunOperation]:
    """Release the dead process's leases on ``task_ids``' pending turns and enqueue each turn."""
    resumed: list[RunOperation] = []
    for task_id in task_ids:
        try:
            head = await ledger.write(task_id, _release)
            if head is None:
                head = await ledger.head(task_id)
        except TaskNotFoundError:
            continue
        if head.run is None or _waiting_or_done(head.state):
            continue
        operation = RunOperation(task_id=task_id, run_id=head.run.run_id)
        await broker.enqueue(operation)
        resumed.append(operation)
    if resumed:
        logger.info("resumed %d run(s) in flight when dev last stopped", len(resumed))
    return resumed


def _release(head: Commit) -> Change | None:
    run = head.run
    if run is None or run.lease_until is None or _waiting_or_done(head.state):
        return None
    return Change([status(TaskState.working)], run=run.model_copy(update={"lease_until": None}))


def _waiting_or_done(state: TaskState) -> bool:
    return is_terminal(state) or state in INTERRUPTED_STATES
