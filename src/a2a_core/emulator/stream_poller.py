"""Stand-in for the DynamoDB stream event source mapping that drives the push function.

`DynamoDBStreamPoller` reads the table's stream (moto implements DynamoDB Streams), keeps the
records the mapping's filter lets through (``accept``: the deployed one passes new commits only,
so a push config's item, token and credentials included, never reaches the function or its
logged events), hands each batch to the handler as the Lambda event the mapping would send,
and retries a batch from its
first reported failure at most ``retry_attempts`` times before dropping what is left (in AWS:
the mapping's on-failure destination), as the CDK stack configures the real mapping.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from a2a_core.emulator.lambda_shapes import LocalLambdaContext
from a2a_core.emulator.pollers import LambdaHandler

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_dynamodbstreams import DynamoDBStreamsClient
    from mypy_boto3_dynamodbstreams.literals import ShardIteratorTypeType
    from mypy_boto3_dynamodbstreams.type_defs import RecordTypeDef


logger = logging.getLogger(__name__)


def stream_event(records: Sequence[RecordTypeDef], *, stream_arn: str, region: str) -> dict[str, Any]:
    """A DynamoDB-stream event-source-mapping event from ``GetRecords`` results."""
    return {"Records": [lambda_record(r, stream_arn=stream_arn, region=region) for r in records]}


def lambda_record(record: RecordTypeDef, *, stream_arn: str, region: str) -> dict[str, Any]:
    dynamodb: dict[str, Any] = dict(record["dynamodb"])
    created = dynamodb.get("ApproximateCreationDateTime")
    if isinstance(created, datetime):  # boto3 parses it; Lambda events carry epoch seconds
        dynamodb["ApproximateCreationDateTime"] = created.timestamp()
    return {
        "eventID": record.get("eventID"),
        "eventName": record.get("eventName"),
        "eventVersion": record.get("eventVersion", "1.1"),
        "eventSource": "aws:dynamodb",
        "awsRegion": region,
        "dynamodb": dynamodb,
        "eventSourceARN": stream_arn,
    }


class DynamoDBStreamPoller:
    def __init__(
        self,
        streams: DynamoDBStreamsClient,
        stream_arn: str,
        handler: LambdaHandler,
        *,
        function_name: str,
        region: str,
        batch_size: int = 10,
        retry_attempts: int = 3,
        idle_seconds: float = 0.05,
        timeout_seconds: float = 60.0,
        accept: Callable[[dict[str, Any]], bool] = lambda record: True,
    ) -> None:
        self.streams = streams
        self.accept = accept
        self.stream_arn = stream_arn
        self.handler = handler
        self.function_name = function_name
        self.region = region
        self.batch_size = batch_size
        self.retry_attempts = retry_attempts
        self.idle_seconds = idle_seconds
        self.timeout_seconds = timeout_seconds
        self._iterators: dict[str, str] = {}
        self._seen_shards: set[str] = set()
        self._described = float("-inf")

    @classmethod
    def for_table(
        cls,
        dynamodb: DynamoDBClient,
        streams: DynamoDBStreamsClient,
        table: str,
        handler: LambdaHandler,
        **options: Any,
    ) -> DynamoDBStreamPoller:
        arn = dynamodb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
        return cls(streams, arn, handler, **options)

    def skip_existing(self) -> None:
        """Start every shard that exists now after its last record: what a restored table was
        replayed with is not news to the push function."""
        self._discover_shards("LATEST")

    def poll_once(self) -> int:
        """One GetRecords per open shard, each batch handed to the handler; records handled."""
        if not self._iterators or time.monotonic() - self._described > 30:
            self._discover_shards()
        handled = 0
        for shard_id, iterator in list(self._iterators.items()):
            response = self.streams.get_records(ShardIterator=iterator, Limit=self.batch_size)
            following = response.get("NextShardIterator")
            if following is None:
                del self._iterators[shard_id]  # the shard is closed and fully read
            else:
                self._iterators[shard_id] = following
            records = response.get("Records", [])
            if records:
                self._invoke(records)
                handled += len(records)
        return handled

    async def run(self, stop: asyncio.Event) -> None:
        """Poll until ``stop`` is set; each cycle runs in a thread (the handler owns its loop)."""
        while not stop.is_set():
            try:
                handled = await asyncio.to_thread(self.poll_once)
            except Exception:
                logger.exception("polling stream %s failed; retrying", self.stream_arn)
                handled = 0
                await asyncio.sleep(1.0)
            if not handled:
                await asyncio.sleep(self.idle_seconds)

    def _discover_shards(self, position: ShardIteratorTypeType = "TRIM_HORIZON") -> None:
        shards = self.streams.describe_stream(StreamArn=self.stream_arn)["StreamDescription"].get(
            "Shards", []
        )
        for shard in shards:
            shard_id = shard["ShardId"]
            if shard_id in self._seen_shards:
                continue
            # From the start of each new shard: the local table is created with the stream.
            self._iterators[shard_id] = self.streams.get_shard_iterator(
                StreamArn=self.stream_arn,
                ShardId=shard_id,
                ShardIteratorType=position,
            )["ShardIterator"]
            self._seen_shards.add(shard_id)
        self._described = time.monotonic()

    def _invoke(self, records: Sequence[RecordTypeDef]) -> None:
        shaped = (lambda_record(r, stream_arn=self.stream_arn, region=self.region) for r in records)
        pending = [record for record in shaped if self.accept(record)]
        if not pending:
            return
        for _ in range(self.retry_attempts + 1):
            context = LocalLambdaContext(self.function_name, timeout_seconds=self.timeout_seconds)
            try:
                response = self.handler({"Records": pending}, context) or {}
                failed = {f["itemIdentifier"] for f in response.get("batchItemFailures", [])}
            except Exception:
                logger.exception("%s failed as a whole; retrying the batch", self.function_name)
                failed = {r["dynamodb"]["SequenceNumber"] for r in pending}
            if not failed:
                return
            # Like the mapping: resume from the first failed record (later ones are sent again).
            first = next(i for i, r in enumerate(pending) if r["dynamodb"]["SequenceNumber"] in failed)
            pending = pending[first:]
        logger.error(
            "%s: %d stream records still failing after %d retries; dropped (AWS: on-failure destination)",
            self.function_name,
            len(pending),
            self.retry_attempts,
        )
