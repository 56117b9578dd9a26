"""Bodies too large for a DynamoDB item, kept as S3 objects.

Calls are synchronous (the stores run them in a thread) and raise the S3 client's (botocore's)
errors unchanged (but for a missing object the caller said it can do without): the store that
uses them maps errors to domain errors in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from a2a_core.aws.calls import error_response

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client


class S3Blobs:
    def __init__(self, client: Callable[[], S3Client], bucket: str) -> None:
        """``client`` returns the S3 client, asked on each use (`AwsClients.s3` builds it on the
        first: most tasks never store a body in S3, so a cold start need not)."""
        self._get_client = client
        self.bucket = bucket

    @property
    def _client(self) -> S3Client:
        return self._get_client()

    def put(self, key: str, data: bytes) -> None:
        self._client.put_object(Bucket=self.bucket, Key=key, Body=data, ContentType="application/json")

    def get(self, key: str, *, missing_ok: bool = False) -> bytes:
        """The object's bytes; with ``missing_ok``, empty bytes when there is no such object."""
        try:
            return self._client.get_object(Bucket=self.bucket, Key=key)["Body"].read()
        except Exception as error:
            answer = error_response(error) or {}
            if missing_ok and answer.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return b""
            raise

    def delete(self, key: str) -> None:
        """Remove ``key``; a key that does not exist is not an error (S3 semantics)."""
        self._client.delete_object(Bucket=self.bucket, Key=key)
