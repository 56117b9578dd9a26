"""Blocking AWS calls, run in a thread, with the clients' errors turned into domain errors here.

Adapters call AWS only through these, so no client's exception reaches the code above them. The
clients are `a2a_core.aws.json_client`'s or botocore's (S3, and where the lean client does not
serve): botocore's exceptions are caught only once botocore is loaded, because only then can a
call raise them, so importing this module imports nothing of botocore.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

from a2a_core.aws.errors import AwsCallError, AwsServiceError
from a2a_core.core.errors import ConcurrentUpdateError, SignerUnavailableError, StoreUnavailableError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

Item = dict[str, Any]
P = ParamSpec("P")
R = TypeVar("R")

logger = logging.getLogger(__name__)


class KeyTakenError(ConcurrentUpdateError):
    """A conditional write lost; ``existing`` is the item that holds the key (when returned)."""

    def __init__(self, existing: Item | None) -> None:
        super().__init__("the item was written by another writer")
        self.existing = existing


class AwsCalls:
    """Calls for adapters whose AWS failures all mean one domain error, ``unavailable``."""

    def __init__(self, unavailable: type[Exception]) -> None:
        self.unavailable = unavailable

    async def __call__(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """Run a blocking AWS call in a thread, with its errors turned into domain errors.

        A failed condition means another writer got there first (`KeyTakenError`); anything
        else (throttling past the client's retries, a missing table or bucket, denied access, a
        timeout) is logged here and surfaces as ``unavailable``, which tells clients nothing
        about AWS.
        """
        try:
            return await asyncio.to_thread(fn, *args, **kwargs)
        except Exception as error:
            answer = error_response(error)
            if answer is None:
                raise
            if answer.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                raise KeyTakenError(cast("Item | None", answer.get("Item"))) from None
            logger.error("AWS call %s failed", getattr(fn, "__name__", fn), exc_info=error)
            raise self.unavailable() from None


def error_response(error: BaseException) -> dict[str, Any] | None:
    """The service's answer in a failed call's ``error`` ({} when there was none: no connection,
    no credentials), or None when ``error`` is not an AWS client's."""
    if isinstance(error, AwsServiceError):
        return error.response
    if isinstance(error, AwsCallError):
        return {}
    exceptions = sys.modules.get("botocore.exceptions")
    if exceptions is not None:
        if isinstance(error, exceptions.ClientError):
            return cast("dict[str, Any]", error.response)
        if isinstance(error, exceptions.BotoCoreError):
            return {}
    return None


# The storage adapters' calls (DynamoDB, S3, the push dead-letter queue), and the signer's (KMS).
aws_call = AwsCalls(StoreUnavailableError)
kms_call = AwsCalls(SignerUnavailableError)


async def query_all(client: DynamoDBClient, limit: int | None = None, **query: Any) -> list[Item]:
    """Every item ``query`` matches across pages (or the first ``limit`` of them)."""
    if limit is not None:
        query["Limit"] = limit
    items: list[Item] = []
    while True:
        page = await aws_call(client.query, **query)
        items.extend(page["Items"])
        if limit is not None or "LastEvaluatedKey" not in page:
            return items[:limit] if limit is not None else items
        query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
