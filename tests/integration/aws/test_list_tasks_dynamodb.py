"""ListTasks over DynamoDB on moto's server: the listing indexes, their positions and filters
behind the engine, with the same expectations as the in-memory runs (tests/unit/test_list_tasks.py),
and what the indexes cost: one index query a page, one read a task listed.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from a2a_core.aws.blobs import S3Blobs
from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore
from a2a_core.aws.resources import ResourceNames
from a2a_core.core.engine import TaskEngine
from a2a_core.core.errors import InvalidParamsError
from a2a_core.core.requests import ListTasksQuery
from a2a_core.domain import TaskState
from a2a_core.emulator.moto_server import EmulatedAws
from clock import Clock
from list_support import ALICE, BOB, STATES, Seeded, ids, list_all, listing_order, make_engine, seed

pytestmark = pytest.mark.anyio


@pytest.fixture
def clock() -> Clock:
    return Clock()


def dynamodb_engine(
    aws: EmulatedAws, names: ResourceNames, clock: Clock, *, scan_limit: int = 1000
) -> TaskEngine:
    tasks = DynamoDBTaskStore(
        aws.clients.dynamodb,
        names.table,
        blobs=S3Blobs(lambda: aws.clients.s3, names.bucket),
        retention_seconds=365 * 24 * 3600,
        scan_limit=scan_limit,
    )
    return make_engine(tasks, clock)


async def test_paging_through_250_tasks_on_dynamodb_returns_every_match_exactly_once_in_order(
    local_aws: EmulatedAws, aws_resources: ResourceNames, clock: Clock
) -> None:
    # A small index scan budget, so class filters page through several bounded queries.
    engine = dynamodb_engine(local_aws, aws_resources, clock, scan_limit=40)
    seeded: list[Seeded] = []
    for i in range(250):
        state, context = STATES[(i + i // 4) % 4], "c1" if i % 3 else "c2"
        seeded.append(await seed(engine, clock, ALICE, state, context_id=context))
        if i % 10 == 0:
            await seed(engine, clock, BOB, state, context_id=context)
    newest_first = [t.task_id for t in reversed(seeded)]
    # Each task read is a query on moto (slow): the filters' own combinations run in memory.
    cases = [
        (ListTasksQuery(page_size=7), listing_order(seeded)),
        (
            ListTasksQuery(page_size=9, state=TaskState.input_required),
            listing_order([t for t in seeded if t.state == TaskState.input_required]),
        ),
        (
            ListTasksQuery(page_size=20, context_id="c2"),
            [t for t in newest_first if t in {s.task_id for s in seeded if s.context_id == "c2"}],
        ),
        (
            ListTasksQuery(page_size=25, state=TaskState.working, context_id="c1"),
            [s.task_id for s in reversed(seeded) if s.state == TaskState.working and s.context_id == "c1"],
        ),
    ]
    for query, expected in cases:
        pages = await list_all(engine, ALICE, query)
        assert ids(pages) == expected, query
        assert (pages[-1].next_page_token, pages[-1].total_size) == ("", len(expected)), query


async def test_on_dynamodb_a_caller_lists_only_its_own_tasks_and_cannot_use_another_callers_token(
    local_aws: EmulatedAws, aws_resources: ResourceNames, clock: Clock
) -> None:
    engine = dynamodb_engine(local_aws, aws_resources, clock)
    alice = [await seed(engine, clock, ALICE, TaskState.working, context_id="shared") for _ in range(3)]
    bob = [await seed(engine, clock, BOB, TaskState.working, context_id="shared") for _ in range(3)]
    for caller, mine in ((ALICE, alice), (BOB, bob)):
        pages = await list_all(engine, caller, ListTasksQuery(page_size=2, context_id="shared"))
        assert ids(pages) == [t.task_id for t in reversed(mine)]
        assert [page.total_size for page in pages] == [3, 3]

    query = ListTasksQuery(page_size=1)
    token = (await engine.list_tasks(query, ALICE)).next_page_token
    with pytest.raises(InvalidParamsError, match="pageToken"):
        await engine.list_tasks(replace(query, page_token=token), BOB)
