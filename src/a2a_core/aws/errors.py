"""What `a2a_core.aws.json_client` raises; `a2a_core.aws.calls` turns it into domain errors.

The shapes follow botocore's, so adapters read them the same way: `AwsServiceError` is an
answer from the service (``response`` as botocore's ``ClientError.response``: ``Error.Code``,
``Error.Message``, the error's other fields such as a failed condition's ``Item``), every other
`AwsCallError` is a request that got no usable answer (as botocore's ``BotoCoreError``).
"""

from __future__ import annotations

from typing import Any


class AwsCallError(Exception):
    """An AWS call that failed (after its retries)."""


class AwsServiceError(AwsCallError):
    def __init__(self, operation: str, response: dict[str, Any]) -> None:
        error = response.get("Error", {})
        super().__init__(f"{operation}: {error.get('Code')}: {error.get('Message')}")
        self.operation_name = operation
        self.response = response

    @property
    def code(self) -> str:
        return str(self.response.get("Error", {}).get("Code", ""))


class AwsConnectionError(AwsCallError):
    """No answer: the endpoint could not be reached, or did not answer in time."""


class NoCredentialsError(AwsCallError):
    """Neither the environment nor botocore's credential chain has credentials."""
