"""The headers of a notification, from its config; also what `set` checks about them.

No HTTP client here: the API imports this to check configs without paying for one at cold start.
"""

from __future__ import annotations

from a2a_core.domain import PushNotificationConfig
from a2a_core.push.notification import Notification
from a2a_core.push.urls import WebhookRefusedError, check_header_value

USER_AGENT = "a2a-serverless-push/1"
ID_HEADER = "X-A2A-Notification-Id"
TOKEN_HEADER = "X-A2A-Notification-Token"  # noqa: S105 (a header name)
SIGNATURE_HEADER = "X-A2A-Signature"
_SCHEMES = {"bearer": "Bearer", "basic": "Basic"}


def authorization(config: PushNotificationConfig) -> str | None:
    """The ``Authorization`` value the config asks for, or None when it gave no credentials.

    Raises `WebhookRefusedError` for credentials without a scheme we can send, or header values
    with CR/LF (which would let a client inject headers into our request).
    """
    if config.token is not None:
        check_header_value("token", config.token)
    auth = config.authentication
    if auth is None or auth.credentials is None:
        return None
    check_header_value("authentication.credentials", auth.credentials)
    scheme = next((_SCHEMES[s.lower()] for s in auth.schemes if s.lower() in _SCHEMES), None)
    if scheme is None:
        raise WebhookRefusedError(
            f"authentication.schemes {auth.schemes} has no scheme this agent can send credentials "
            "with (Bearer, Basic)",
            field="authentication.schemes",
        )
    return f"{scheme} {auth.credentials}"


def headers_for(notification: Notification, config: PushNotificationConfig, jwt: str) -> dict[str, str]:
    headers = {
        "Content-Type": notification.content_type,
        "User-Agent": USER_AGENT,
        ID_HEADER: notification.event_id,
    }
    if config.token:
        headers[TOKEN_HEADER] = config.token
    credentials = authorization(config)
    if credentials is None:
        headers["Authorization"] = f"Bearer {jwt}"
    else:
        headers["Authorization"] = credentials
        headers[SIGNATURE_HEADER] = jwt
    return headers
