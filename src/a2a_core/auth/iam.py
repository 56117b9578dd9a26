"""``auth_mode=iam``: SigV4-signed requests, verified by API Gateway (``AWS_IAM`` authorization)
or by Lambda (a function URL with ``AWS_IAM`` auth).

Only AWS can check a SigV4 signature against IAM, so this mode works only behind one of them;
the caller is the signing identity's ARN from the request context.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from a2a_core.auth import gateway
from a2a_core.auth.base import Authenticator, CredentialsMissingError, Principal

CHALLENGE = "AWS4-HMAC-SHA256"


class IamAuthenticator(Authenticator):
    def __init__(self, *, trust_context_header: bool = False) -> None:
        self._trust_header = trust_context_header

    async def authenticate(self, scope: Mapping[str, Any], headers: Mapping[str, str]) -> Principal:
        context = gateway.request_context(scope, headers, trust_header=self._trust_header)
        arn = gateway.iam_caller(context) if context is not None else None
        if arn is None:
            raise CredentialsMissingError(
                "Authentication required: sign the request with AWS Signature Version 4", challenge=CHALLENGE
            )
        return Principal("iam", arn)
