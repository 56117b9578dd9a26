"""``auth_mode=api_key`` behind a Lambda function URL: the app checks ``x-api-key`` itself.

Nothing in front of a function URL knows API keys, so the app looks the key up in an
`ApiKeyStore` (hashed; see `a2a_core.auth.key_store`), then spends one of the caller's tokens
(`LeasedRateLimiter`). Lookups are kept per instance for ``cache_seconds``, misses included, so
a warm instance reads each key once per period: a revoked key keeps working at most that long.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from a2a_core.auth.api_key import CHALLENGE, HEADER
from a2a_core.auth.base import (
    Authenticator,
    AuthError,
    CredentialsMissingError,
    CredentialsRejectedError,
    Principal,
    RateLimitedError,
)
from a2a_core.auth.key_store import ApiKeyStore, StoredKey, key_id_of
from a2a_core.auth.rate_limit import LeasedRateLimiter, Limit
from a2a_core.core.errors import StoreUnavailableError

logger = logging.getLogger(__name__)
# Distinct key ids remembered per instance; beyond it the oldest lookups are dropped.
CACHE_ENTRIES = 4096
REJECTED = "Access denied: the API key is not valid"


class KeysUnavailableError(AuthError):
    """The key store cannot be read: the key can be neither accepted nor refused. 503."""

    status_code = 503

    def headers(self) -> dict[str, str]:
        return {"Retry-After": "1"}


class _KeyCache:
    def __init__(self, ttl: float, clock: Callable[[], float]) -> None:
        self._ttl = ttl
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, StoredKey | None]] = OrderedDict()

    def get(self, key_id: str) -> tuple[bool, StoredKey | None]:
        entry = self._entries.get(key_id)
        if entry is None or self._clock() - entry[0] >= self._ttl:
            return False, None
        return True, entry[1]

    def put(self, key_id: str, key: StoredKey | None) -> None:
        if self._ttl <= 0:
            return
        self._entries[key_id] = (self._clock(), key)
        self._entries.move_to_end(key_id)
        while len(self._entries) > CACHE_ENTRIES:
            self._entries.popitem(last=False)


class StoredKeyAuthenticator(Authenticator):
    def __init__(
        self,
        store: ApiKeyStore,
        limiter: LeasedRateLimiter,
        *,
        default_limit: Limit,
        cache_seconds: float = 60.0,
        now: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._limiter = limiter
        self._default = default_limit
        self._cache = _KeyCache(cache_seconds, monotonic)
        self._now = now

    async def authenticate(self, scope: Mapping[str, Any], headers: Mapping[str, str]) -> Principal:
        # Whatever request context arrives with the call is ignored: behind a function URL no
        # gateway vouched for anything, and the x-api-key header is the only credential.
        presented = headers.get(HEADER)
        if not presented:
            raise CredentialsMissingError(
                f"Authentication required: send your API key in the {HEADER} header", challenge=CHALLENGE
            )
        key_id = key_id_of(presented)
        key = await self._lookup(key_id) if key_id is not None else None
        if key is None or not key.matches(presented) or not key.usable(self._now()):
            logger.info("API key refused (id %s)", key_id or "malformed")
            raise CredentialsRejectedError(REJECTED)
        limit = Limit(key.rate_limit or self._default.rate, key.burst_limit or self._default.burst)
        try:
            retry_after = await self._limiter.acquire(key.name, limit)
        except StoreUnavailableError:
            raise KeysUnavailableError("Cannot check rate limits right now; retry later") from None
        if retry_after is not None:
            raise RateLimitedError(retry_after)
        return Principal("api_key", key.name)

    async def _lookup(self, key_id: str) -> StoredKey | None:
        cached, key = self._cache.get(key_id)
        if cached:
            return key
        try:
            key = await self._store.get(key_id)
        except StoreUnavailableError:
            raise KeysUnavailableError("Cannot check API keys right now; retry later") from None
        self._cache.put(key_id, key)
        return key
