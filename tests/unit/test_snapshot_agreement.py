"""Snapshots agree with the log whatever the interleaving of writers and readers (in memory).

Several writers race on one task (each write decided afresh on the head it lost to), readers read
it meanwhile with random historyLength values; every read must equal the log's fold up to the head
it saw. Snapshots are taken every 2 commits and the history cap is small, so most reads start
from a snapshot, page older messages and run into the cap.
"""

from __future__ import annotations

import asyncio

from hypothesis import given, settings

from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.store import InMemoryTaskStore
from log_checks import Step, interleavings, run_interleaving


@settings(max_examples=150, deadline=None)
@given(interleavings())
def test_every_read_is_the_fold_of_the_log_up_to_its_head(
    script: tuple[list[list[Step]], list[tuple[int, int | None]]],
) -> None:
    ledger = TaskLedger(InMemoryTaskStore(), snapshot_every=2, history_cap=15)
    asyncio.run(run_interleaving(ledger, *script))
