"""``auth_mode=api_key``: the ``x-api-key`` header.

Behind API Gateway the REST API requires the key and its usage plan validates (and throttles)
it; the app reads the key's id from the request context. HTTP APIs and function URLs have no API
keys, so a request through one is refused. Served directly (``a2a-serverless dev``), the app
compares the header with the configured keys itself, in constant time.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import Any

from pydantic import SecretStr

from a2a_core.auth import gateway
from a2a_core.auth.base import Authenticator, CredentialsMissingError, CredentialsRejectedError, Principal

HEADER = "x-api-key"
CHALLENGE = f'ApiKey realm="a2a", header="{HEADER}"'


class ApiKeyAuthenticator(Authenticator):
    def __init__(self, keys: Mapping[str, SecretStr], *, trust_context_header: bool = False) -> None:
        """``keys`` maps a key id (what tasks record as their owner) to the key itself."""
        self._keys = [(key_id, secret.get_secret_value().encode()) for key_id, secret in keys.items()]
        self._trust_header = trust_context_header

    async def authenticate(self, scope: Mapping[str, Any], headers: Mapping[str, str]) -> Principal:
        context = gateway.request_context(scope, headers, trust_header=self._trust_header)
        if context is not None:
            if gateway.is_payload_v2(context):
                # An HTTP API or function URL checks no API key: an x-api-key header here is unverified.
                raise CredentialsRejectedError(
                    "Access denied: API keys are checked only by an API Gateway REST API, and this "
                    "request came through an HTTP API or a Lambda function URL"
                )
            key_id = gateway.identity(context, "apiKeyId")
            if key_id is None:  # the method does not require a key: a deployment mistake, fail closed
                raise CredentialsMissingError(
                    "Authentication required: API Gateway passed no API key id", challenge=CHALLENGE
                )
            return Principal("api_key", key_id)
        presented = headers.get(HEADER)
        if not presented:
            raise CredentialsMissingError(
                f"Authentication required: send your API key in the {HEADER} header", challenge=CHALLENGE
            )
        return Principal("api_key", self._match(presented.encode()))

    def _match(self, presented: bytes) -> str:
        # Every configured key is compared, so the time taken says nothing about which one matched.
        matched = None
        for key_id, key in self._keys:
            if hmac.compare_digest(presented, key):
                matched = key_id
        if matched is None:
            raise CredentialsRejectedError("Access denied: the API key is not valid")
        return matched
