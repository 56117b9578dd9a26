"""What API Gateway's access log records of each request (the REST API's and the HTTP API's stage),
defined once for the CDK stack and for the cost benchmark, which prices the lines' bytes.

One JSON object per request, with what an operator looks for and nothing else: which request
(its id, which the API function's event carries too), from where and from whom (the caller the
auth mode names: the API key's id, the IAM principal, the JWT's subject), what (method, path) and
how it went (status, bytes, latency, and why API Gateway refused it or the function failed).
"""

from __future__ import annotations

import json
from typing import Any

_COMMON = {
    "requestId": "$context.requestId",
    "ip": "$context.identity.sourceIp",
    "time": "$context.requestTimeEpoch",
    "method": "$context.httpMethod",
    "path": "$context.path",
    "status": "$context.status",
    "bytes": "$context.responseLength",
    "latency": "$context.responseLatency",
}
# The REST API: why API Gateway answered itself (THROTTLED, UNAUTHORIZED, QUOTA_EXCEEDED, ...).
REST = {**_COMMON, "error": "$context.error.responseType"}
REST_CALLER = {
    "api_key": "$context.identity.apiKeyId",
    "iam": "$context.identity.userArn",
    "jwt": "$context.authorizer.principalId",
}
HTTP = {
    **_COMMON,
    "error": "$context.integrationErrorMessage",
    "authError": "$context.authorizer.error",
}
HTTP_CALLER = {"iam": "$context.identity.userArn", "jwt": "$context.authorizer.claims.sub"}


def rest_format(auth_mode: str) -> dict[str, str]:
    """The REST API stage's fields for ``auth_mode`` (`a2a_core.cdk.options.AuthMode`'s values)."""
    return _with_caller(REST, REST_CALLER.get(auth_mode))


def http_format(auth_mode: str) -> dict[str, str]:
    return _with_caller(HTTP, HTTP_CALLER.get(auth_mode))


def _with_caller(fields: dict[str, str], caller: str | None) -> dict[str, str]:
    return fields if caller is None else {**fields, "caller": caller}


def sample_line(fields: dict[str, str], values: dict[str, Any]) -> str:
    """The line API Gateway writes for a request whose ``$context`` variables have ``values``
    (those it lacks, as API Gateway writes an absent variable: ``-``)."""
    return compact({name: str(values.get(variable, "-")) for name, variable in fields.items()})


def compact(fields: dict[str, str]) -> str:
    """JSON without spaces: every byte of a line is billed."""
    return json.dumps(fields, separators=(",", ":"))
