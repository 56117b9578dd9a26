"""The worker's secrets (``A2A_WORKER_SECRETS``): each variable's value, read from Secrets Manager
or SSM Parameter Store once per cold start, before the agent is imported.

The construct gives the worker, for each variable (``OPENAI_API_KEY``), where its value is: a
secret's ARN (or name) or an SSM parameter's ARN, and read permission on that one alone; the
template and the function's configuration never hold the value. A secret that cannot be read
fails the cold start, naming the variable and where it was looked for (never a value): an agent
without its model's key would fail every task it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from a2a_core.settings import ENV_PREFIX, Settings

ClientFor = Callable[[str, str], Any]  # (service, region) -> a client for it


class SecretError(RuntimeError):
    """A worker secret could not be read; the message names the variable and where it is."""


def read_secrets(where: Mapping[str, str], client_for: ClientFor, default_region: str) -> dict[str, str]:
    """Each variable of ``where`` (name -> secret ARN or name, or SSM parameter ARN) with its
    value. ``client_for(service, region)`` gives a Secrets Manager (``secretsmanager``) or SSM
    (``ssm``) client; a secret is read in the region of its ARN, a name in ``default_region``."""
    values = {}
    for name, ref in where.items():
        service, region = _locate(ref, default_region)
        try:
            values[name] = _READERS[service](client_for(service, region), ref)
        except Exception as error:  # any SDK's error: the cold start must say which secret
            code = _error_code(error)
            raise SecretError(
                f"{ENV_PREFIX}WORKER_SECRETS: {name}: cannot read {ref} ({code}); the worker's role "
                "may read it when A2AServiceProps.worker_secrets names it"
            ) from error
    return values


def worker_secrets(settings: Settings) -> dict[str, str]:
    """``settings.worker_secrets`` with their values, read with the clients the settings choose
    (the lean one where it serves: a Secrets Manager or SSM call costs no botocore import)."""
    if not settings.worker_secrets:
        return {}
    from a2a_core.aws.clients import client_factory

    factories: dict[str, Callable[[str], Any]] = {}

    def client_for(service: str, region: str) -> Any:
        if region not in factories:
            factories[region] = client_factory(
                region, settings.aws_endpoint_url, read_timeout=5, sdk=settings.aws_client
            )
        return factories[region](service)

    return read_secrets(settings.worker_secrets, client_for, settings.aws_region)


def _locate(ref: str, default_region: str) -> tuple[str, str]:
    """(service, region) of an ARN (``arn:aws:ssm:eu-west-1:...``); a secret's name otherwise."""
    if not ref.startswith("arn:"):
        return "secretsmanager", default_region
    parts = ref.split(":", 5)
    if len(parts) < 6 or parts[2] not in _READERS:
        raise SecretError(f"{ENV_PREFIX}WORKER_SECRETS: {ref!r} is not a Secrets Manager or SSM ARN")
    return parts[2], parts[3] or default_region


def _secret_value(client: Any, ref: str) -> str:
    answer = client.get_secret_value(SecretId=ref)
    if "SecretString" in answer:
        return str(answer["SecretString"])
    value: bytes = answer["SecretBinary"]
    return value.decode("utf-8")


def _parameter_value(client: Any, ref: str) -> str:
    # SecureString parameters are stored encrypted: WithDecryption asks SSM for the plain value.
    return str(client.get_parameter(Name=ref, WithDecryption=True)["Parameter"]["Value"])


_READERS: dict[str, Callable[[Any, str], str]] = {
    "secretsmanager": _secret_value,
    "ssm": _parameter_value,
}


def _error_code(error: Exception) -> str:
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        return str(response.get("Error", {}).get("Code") or type(error).__name__)
    return type(error).__name__
