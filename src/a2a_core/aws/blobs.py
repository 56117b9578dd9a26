"""Bodies too large for a DynamoDB item, kept as S3 objects.

Calls are synchronous (the stores run them in a thread) and raise botocore's errors unchanged:
the store that uses them maps errors to domain errors in one place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client


class S3Blobs:
    def __init__(self, client: S3Client, bucket: str) -> None:
        self._client = client
        self.bucket = bucket

    def put(self, key: str, data: bytes) -> None:
        self._client.put_object(Bucket=self.bucket, Key=key, Body=data, ContentType="application/json")

    def get(self, key: str) -> bytes:
        return self._client.get_object(Bucket=self.bucket, Key=key)["Body"].read()

    def delete(self, key: str) -> None:
        """Remove ``key``; a key that does not exist is not an error (S3 semantics)."""
        self._client.delete_object(Bucket=self.bucket, Key=key)
