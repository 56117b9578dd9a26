"""Snapshots agree with the log on moto's DynamoDB too, with snapshots and bodies in S3.

The same random interleavings of racing writers and readers as in memory
(`tests/unit/test_snapshot_agreement.py`), on the real DynamoDB adapter: conditional puts, the
last-entries Query, range reads and BatchGetItem. A small offload threshold sends most snapshots
(and some commits) to S3, so their fetch is on every read path.
"""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings

from a2a_core.aws.blobs import S3Blobs
from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore
from a2a_core.aws.resources import ResourceNames
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.emulator.moto_server import EmulatedAws
from log_checks import Step, interleavings, run_interleaving


@settings(
    max_examples=25,
    deadline=None,
    # One table for every example: each example writes a task of its own.
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(script=interleavings())
def test_every_read_is_the_fold_of_the_log_up_to_its_head(
    local_aws: EmulatedAws,
    aws_resources: ResourceNames,
    script: tuple[list[list[Step]], list[tuple[int, int | None]]],
) -> None:
    store = DynamoDBTaskStore(
        local_aws.clients.dynamodb,
        aws_resources.table,
        blobs=S3Blobs(lambda: local_aws.clients.s3, aws_resources.bucket),
        retention_seconds=3600,
        offload_threshold=1500,
    )
    ledger = TaskLedger(store, snapshot_every=2, history_cap=15)
    asyncio.run(run_interleaving(ledger, *script))
