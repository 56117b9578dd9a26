"""Token buckets shared by instances: never more than the limit, whoever asks, however they race."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from a2a_core.auth.rate_limit import Limit, RateBuckets
from clock import Clock

pytestmark = pytest.mark.anyio
LIMIT = Limit(rate=10, burst=20)


async def test_a_new_bucket_is_full_and_grants_at_most_its_burst(
    make_buckets: Callable[[], RateBuckets],
) -> None:
    buckets = make_buckets()
    taken = [(await buckets.take("alice", 8, LIMIT)).tokens for _ in range(3)]
    assert taken == [8, 8, 4]  # the last take gets what is left, not nothing

    refused = await buckets.take("alice", 1, LIMIT)
    assert refused.tokens == 0
    assert refused.retry_after == pytest.approx(0.1)


async def test_tokens_refill_at_the_rate_up_to_the_burst(
    make_buckets: Callable[[], RateBuckets], clock: Clock
) -> None:
    buckets = make_buckets()
    assert (await buckets.take("alice", 20, LIMIT)).tokens == 20
    clock.now += 0.55
    assert (await buckets.take("alice", 20, LIMIT)).tokens == 5
    clock.now += 3600
    assert (await buckets.take("alice", 50, LIMIT)).tokens == 20


async def test_buckets_are_per_name(make_buckets: Callable[[], RateBuckets]) -> None:
    buckets = make_buckets()
    assert (await buckets.take("alice", 20, LIMIT)).tokens == 20
    assert (await buckets.take("bob", 20, LIMIT)).tokens == 20
    assert (await buckets.take("alice", 1, LIMIT)).tokens == 0


async def test_two_instances_share_one_bucket(make_buckets: Callable[[], RateBuckets], clock: Clock) -> None:
    first, second = make_buckets(), make_buckets()
    assert (await first.take("alice", 5, LIMIT)).tokens == 5
    # The second has never seen the bucket: it finds out from its (failed) first write.
    assert (await second.take("alice", 5, LIMIT)).tokens == 5
    # The first's picture is out of date now; the bucket still holds 10 and grants them.
    assert (await first.take("alice", 10, LIMIT)).tokens == 10
    assert (await second.take("alice", 1, LIMIT)).tokens == 0
    clock.now += 0.1
    assert (await first.take("alice", 5, LIMIT)).tokens == 1


async def test_racing_instances_never_get_more_than_the_burst(
    make_buckets: Callable[[], RateBuckets],
) -> None:
    instances = [make_buckets() for _ in range(4)]

    async def drain(buckets: RateBuckets) -> int:
        got = 0
        for _ in range(10):
            got += (await buckets.take("alice", 3, LIMIT)).tokens
        return got

    totals = await asyncio.gather(*(drain(b) for b in instances))
    assert sum(totals) == LIMIT.burst  # the clock stands still: no refill, every token once
