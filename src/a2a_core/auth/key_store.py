"""API keys the app checks itself (behind a Lambda function URL): their format, and the store.

A key reads ``a2a_<key id>_<secret>``: the id (12 hex digits) is how the store finds the key and
how listings and revocations name it; the secret is 32 random bytes. Only the SHA-256 of the
whole key is stored. A fast hash is right here, unlike for passwords: 256 random bits leave
nothing to guess, so a slow hash would only add CPU to every lookup.

Several keys may share a name (the caller). Tasks belong to the name, so a rotation (create a
second key, move the client over, revoke the first) keeps the caller's tasks.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace

PREFIX = "a2a"
_KEY = re.compile(r"^a2a_(?P<id>[0-9a-f]{12})_[A-Za-z0-9_-]{43}$")
NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class KeyExistsError(Exception):
    """A key with this id is stored already (ids are random: a retry, never a second key)."""


@dataclass(frozen=True)
class StoredKey:
    """What is stored about a key: never the key itself."""

    key_id: str
    name: str
    digest: str  # hex SHA-256 of the whole key
    created_at: float
    expires_at: float | None = None
    revoked_at: float | None = None
    # Per-key rate limit (requests per second, bucket size); None: the deployment's default.
    rate_limit: float | None = None
    burst_limit: int | None = None

    def usable(self, now: float) -> bool:
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)

    def matches(self, presented: str) -> bool:
        """Whether ``presented`` is this key, compared in constant time."""
        return hmac.compare_digest(self.digest, digest(presented))


@dataclass(frozen=True)
class NewKey:
    key: str  # shown once, to whoever created it
    stored: StoredKey


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def key_id_of(presented: str) -> str | None:
    """The id inside a presented key, or None when it is not shaped like one of ours."""
    match = _KEY.match(presented)
    return match.group("id") if match else None


def generate_key(
    name: str,
    *,
    now: float,
    expires_at: float | None = None,
    rate_limit: float | None = None,
    burst_limit: int | None = None,
) -> NewKey:
    """A fresh random key for ``name``; raises ValueError on a bad name or limit."""
    if not NAME.match(name):
        raise ValueError(f"key name must be 1-64 letters, digits, '-' or '_', got {name!r}")
    if (rate_limit is not None and rate_limit <= 0) or (burst_limit is not None and burst_limit < 1):
        raise ValueError("rate_limit must be positive and burst_limit at least 1")
    if expires_at is not None and expires_at <= now:
        raise ValueError("expires_at must be in the future")
    key = f"{PREFIX}_{secrets.token_hex(6)}_{secrets.token_urlsafe(32)}"
    key_id = key_id_of(key)
    assert key_id is not None
    stored = StoredKey(key_id, name, digest(key), now, expires_at, None, rate_limit, burst_limit)
    return NewKey(key, stored)


class ApiKeyStore(ABC):
    """Stored keys by id. Records are immutable values; the store holds no key in clear."""

    @abstractmethod
    async def get(self, key_id: str) -> StoredKey | None:
        """The key with ``key_id``, revoked and expired ones included; None when there is none."""

    @abstractmethod
    async def add(self, key: StoredKey) -> None:
        """Store a new key; raises `KeyExistsError` (and changes nothing) if the id is taken."""

    @abstractmethod
    async def revoke(self, key_id: str, *, at: float) -> StoredKey | None:
        """Mark the key revoked from ``at`` on; None when there is no such key. Idempotent: an
        already revoked key keeps its first revocation time."""

    @abstractmethod
    async def list(self) -> list[StoredKey]:
        """Every stored key, by name then creation time."""


class InMemoryApiKeyStore(ApiKeyStore):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys: dict[str, StoredKey] = {}

    async def get(self, key_id: str) -> StoredKey | None:
        with self._lock:
            return self._keys.get(key_id)

    async def add(self, key: StoredKey) -> None:
        with self._lock:
            if key.key_id in self._keys:
                raise KeyExistsError(key.key_id)
            self._keys[key.key_id] = key

    async def revoke(self, key_id: str, *, at: float) -> StoredKey | None:
        with self._lock:
            key = self._keys.get(key_id)
            if key is None or key.revoked_at is not None:
                return key
            self._keys[key_id] = replace(key, revoked_at=at)
            return self._keys[key_id]

    async def list(self) -> list[StoredKey]:
        with self._lock:
            return sorted(self._keys.values(), key=lambda k: (k.name, k.created_at, k.key_id))
