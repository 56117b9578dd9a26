"""POST one notification to one webhook: headers, signature, URL re-check, bounded retries.

What is sent: the body (the caller's bytes, JSON) with its ``Content-Type``,
``X-A2A-Notification-Id: <taskId>:<seq>`` (the same on every retry: receivers drop duplicates
by it), ``X-A2A-Notification-Token`` when the config has a token, ``Authorization`` from the
config's ``authentication`` (``Bearer`` or ``Basic`` with its ``credentials``), and the agent's
JWT: as ``Authorization: Bearer`` when the config gave no credentials, otherwise in
``X-A2A-Signature``.

Every attempt first checks the URL against the policy again (DNS may have changed since `set`)
and then connects to exactly the address that was checked, with TLS and ``Host`` still naming the
host, so there is no window for DNS rebinding. No redirect is followed, no proxy from the
environment is used (it would connect on our behalf to whatever it resolves), and the response
body is never read. A 2xx is delivered; 5xx, 408, 429 and connection failures are retried with
exponential backoff and jitter; anything else is final.
"""

from __future__ import annotations

import asyncio
import logging
import random
import socket
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx

from a2a_core.domain import PushNotificationConfig
from a2a_core.push.headers import headers_for
from a2a_core.push.metrics import RETRIED, CountingMetrics, DeliveryMetrics
from a2a_core.push.notification import Notification
from a2a_core.push.signing import Signer, encode_jwt, notification_claims
from a2a_core.push.urls import CheckedUrl, UnresolvableHostError, UrlPolicy, WebhookRefusedError

logger = logging.getLogger(__name__)

_RETRYABLE = {408, 429}
_NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 3
    timeout: float = 5.0  # per attempt: connect, send, and wait for the status line
    backoff: float = 0.5  # before the 2nd attempt; doubles for each further one
    max_backoff: float = 8.0

    def delay(self, retry: int, draw: Callable[[], float] = random.random) -> float:
        """Wait before retry number ``retry`` (1-based): half fixed, half random ("equal jitter")."""
        ceiling = min(self.max_backoff, self.backoff * 2.0 ** (retry - 1))
        return ceiling / 2 + draw() * ceiling / 2


@dataclass(frozen=True)
class DeliveryResult:
    delivered: bool
    attempts: int  # POSTs sent (a refused or unresolvable URL sends none)
    reason: str = ""  # why it was not delivered


@dataclass
class WebhookSender:
    """Delivers notifications; safe to share between concurrent deliveries and event loops."""

    policy: UrlPolicy
    signer: Signer
    issuer: str
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    token_ttl: int = 300
    metrics: DeliveryMetrics = field(default_factory=CountingMetrics)
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    clock: Callable[[], float] = time.time
    ssl_context: ssl.SSLContext = field(default_factory=ssl.create_default_context)

    async def send(
        self, notification: Notification, config: PushNotificationConfig, *, deadline: float | None = None
    ) -> DeliveryResult:
        """Deliver with retries; ``deadline`` (``time.monotonic``) ends the retries early.

        Never raises for the webhook's sake (refusals and failures are results); only the signer
        can raise (KMS unreachable), and then nothing was sent.
        """
        jwt: str | None = None
        attempts, reason = 0, "no attempt"
        # A fresh client per delivery: connections are never shared between hosts (each was
        # verified for one name) nor between event loops (Powertools may run one per batch).
        # Headers and body go out as separate writes; without TCP_NODELAY, Nagle may hold the body
        # back until the receiver's delayed ACK (up to 40 ms).
        transport = httpx.AsyncHTTPTransport(
            verify=self.ssl_context, trust_env=False, socket_options=_NODELAY
        )
        async with httpx.AsyncClient(
            transport=transport, trust_env=False, follow_redirects=False, timeout=self.retry.timeout
        ) as client:
            for number in range(1, self.retry.max_attempts + 1):
                if deadline is not None and number == 1 and time.monotonic() + self.retry.timeout > deadline:
                    return DeliveryResult(False, 0, "out of time before the first attempt")
                if number > 1:
                    delay = self.retry.delay(number - 1)
                    if deadline is not None and time.monotonic() + delay + self.retry.timeout > deadline:
                        return DeliveryResult(False, attempts, f"{reason}; out of time for another attempt")
                    self.metrics.count(RETRIED)
                    await self.sleep(delay)
                try:
                    checked = await self.policy.check(config.url)
                    if jwt is None:
                        jwt = await self._jwt(notification, config)
                    headers = headers_for(notification, config, jwt)
                except UnresolvableHostError as error:
                    reason = error.detail
                    continue
                except WebhookRefusedError as error:
                    return DeliveryResult(False, attempts, f"refused: {error.detail}")
                attempts += 1
                status = await self._post(client, checked, number - 1, headers, notification)
                if isinstance(status, int) and 200 <= status < 300:
                    return DeliveryResult(True, attempts)
                reason = f"HTTP {status}" if isinstance(status, int) else status
                if isinstance(status, int) and status < 500 and status not in _RETRYABLE:
                    return DeliveryResult(False, attempts, reason)
        return DeliveryResult(False, attempts, reason)

    async def _jwt(self, notification: Notification, config: PushNotificationConfig) -> str:
        claims = notification_claims(
            issuer=self.issuer,
            audience=config.url,
            event_id=notification.event_id,
            task_id=notification.task_id,
            body=notification.body,
            now=self.clock(),
            ttl=self.token_ttl,
        )
        return await encode_jwt(self.signer, claims)

    async def _post(
        self,
        client: httpx.AsyncClient,
        checked: CheckedUrl,
        attempt: int,
        headers: dict[str, str],
        notification: Notification,
    ) -> int | str:
        """The response status, or a description of the transport failure."""
        request = client.build_request(
            "POST",
            checked.pinned(attempt),
            content=notification.body,
            headers={**headers, "Host": checked.host_header},
            extensions={"sni_hostname": checked.host} if checked.scheme == "https" else {},
        )
        try:
            response = await client.send(request, stream=True)
        except httpx.TransportError as error:
            logger.info("push to %s failed: %r", checked.host, error)
            return f"{type(error).__name__} connecting to {checked.host}"
        await response.aclose()  # never read what the receiver sends back
        return response.status_code
