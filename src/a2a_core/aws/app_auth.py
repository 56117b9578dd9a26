"""The app's own authenticator on the AWS backend: API keys and rate buckets in the task table.

Only a deployment behind a Lambda function URL with API keys needs it (nothing in front checks
the keys); every other mode's authenticator is built from the settings alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a_core.auth import Authenticator, build_authenticator
from a2a_core.aws.clients import AwsClients
from a2a_core.settings import ENV_PREFIX, Settings, SettingsError

if TYPE_CHECKING:
    from a2a_core.aws.dynamodb.api_keys import DynamoDBApiKeyStore


def build_key_store(settings: Settings, clients: AwsClients) -> DynamoDBApiKeyStore:
    from a2a_core.aws.dynamodb.api_keys import DynamoDBApiKeyStore

    return DynamoDBApiKeyStore(clients.dynamodb, _table(settings))


def build_app_authenticator(settings: Settings, clients: AwsClients) -> Authenticator | None:
    """The authenticator for API keys behind a function URL; None for every other deployment
    (`a2a_core.app.create_app` builds those itself). The adapters are imported only when used,
    so the other deployments' cold starts do not pay for them."""
    if settings.front_door != "function_url" or settings.auth_mode != "api_key":
        return None
    from a2a_core.aws.dynamodb.rate_buckets import DynamoDBRateBuckets

    return build_authenticator(
        settings,
        api_keys=build_key_store(settings, clients),
        rate_buckets=DynamoDBRateBuckets(clients.dynamodb, _table(settings)),
    )


def _table(settings: Settings) -> str:
    if not settings.table_name:
        raise SettingsError(f"{ENV_PREFIX}TABLE_NAME is required for API keys behind a function URL")
    return settings.table_name
