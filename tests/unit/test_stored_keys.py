"""API keys the app checks itself (behind a function URL): format, lookup cache, revocation,
expiry and per-key rate limits leased in batches."""

from __future__ import annotations

import dataclasses
import json
import logging
import re

import pytest

from a2a_core.auth import CredentialsMissingError, CredentialsRejectedError, build_authenticator
from a2a_core.auth.base import RateLimitedError
from a2a_core.auth.key_store import InMemoryApiKeyStore, NewKey, StoredKey, generate_key, key_id_of
from a2a_core.auth.rate_limit import Grant, InMemoryRateBuckets, LeasedRateLimiter, Limit
from a2a_core.auth.stored_keys import KeysUnavailableError, StoredKeyAuthenticator
from a2a_core.core.errors import StoreUnavailableError
from a2a_core.settings import Settings, SettingsError
from clock import Clock

pytestmark = pytest.mark.anyio
LIMIT = Limit(rate=10, burst=20)


class CountingStore(InMemoryApiKeyStore):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.down = False

    async def get(self, key_id: str) -> StoredKey | None:
        self.reads += 1
        if self.down:
            raise StoreUnavailableError()
        return await super().get(key_id)


class CountingBuckets(InMemoryRateBuckets):
    def __init__(self, clock: Clock) -> None:
        super().__init__(clock)
        self.takes: list[int] = []

    async def take(self, name: str, wanted: int, limit: Limit) -> Grant:
        self.takes.append(wanted)
        return await super().take(name, wanted, limit)


class Deployment:
    """One instance's authenticator over a store and buckets, all on one clock."""

    def __init__(self, *, cache_seconds: float = 60.0, limit: Limit = LIMIT) -> None:
        self.clock = Clock()
        self.store = CountingStore()
        self.buckets = CountingBuckets(self.clock)
        self.auth = StoredKeyAuthenticator(
            self.store,
            LeasedRateLimiter(self.buckets, lease_seconds=1.0, clock=self.clock),
            default_limit=limit,
            cache_seconds=cache_seconds,
            now=self.clock,
            monotonic=self.clock,
        )

    async def key(self, name: str = "alice", **fields: float | int) -> NewKey:
        new = generate_key(name, now=self.clock.now, **fields)  # type: ignore[arg-type]
        await self.store.add(new.stored)
        return new

    async def call(self, key: str | None) -> str:
        headers = {} if key is None else {"x-api-key": key}
        return (await self.auth.authenticate({}, headers)).key


def test_a_key_names_its_id_and_carries_256_random_bits() -> None:
    first, second = generate_key("alice", now=0), generate_key("alice", now=0)
    assert first.key != second.key
    assert re.fullmatch(rf"a2a_{first.stored.key_id}_[A-Za-z0-9_-]{{43}}", first.key)  # 32 bytes
    assert key_id_of(first.key) == first.stored.key_id
    assert first.stored.matches(first.key)
    assert not first.stored.matches(second.key)
    assert first.key not in repr(first.stored)  # only the digest is kept


@pytest.mark.parametrize("presented", ["", "alice-key", "a2a_0123456789ab_short", "a2a_XYZ_" + "a" * 43])
def test_strings_not_shaped_like_a_key_have_no_id(presented: str) -> None:
    assert key_id_of(presented) is None


@pytest.mark.parametrize(
    "fields",
    [{"name": "no spaces"}, {"name": ""}, {"rate_limit": 0}, {"burst_limit": 0}, {"expires_at": 1.0}],
)
def test_bad_key_fields_are_refused(fields: dict[str, object]) -> None:
    args: dict[str, object] = {"name": "alice", "now": 10.0, **fields}
    with pytest.raises(ValueError, match=r"name|limit|expires_at"):
        generate_key(**args)  # type: ignore[arg-type]


async def test_a_valid_key_is_its_name_and_keys_of_one_name_share_the_owner() -> None:
    deployment = Deployment()
    old, new = await deployment.key("alice"), await deployment.key("alice")
    assert await deployment.call(old.key) == "api_key:alice"
    assert await deployment.call(new.key) == "api_key:alice"  # rotation keeps the caller's tasks


async def test_missing_is_401_and_wrong_is_403() -> None:
    deployment = Deployment()
    alice = await deployment.key("alice")
    with pytest.raises(CredentialsMissingError) as missing:
        await deployment.call(None)
    assert missing.value.challenge == 'ApiKey realm="a2a", header="x-api-key"'

    forged = alice.key[:-1] + ("A" if alice.key[-1] != "A" else "B")  # its id, a wrong secret
    for wrong in ("not-a-key", forged, "a2a_0123456789ab_" + "a" * 43):
        with pytest.raises(CredentialsRejectedError):
            await deployment.call(wrong)
    assert deployment.store.reads == 2  # the malformed key needed no lookup


async def test_the_gateway_context_is_ignored() -> None:
    deployment = Deployment()
    context = {"x-amzn-request-context": json.dumps({"identity": {"apiKeyId": "alice"}})}
    with pytest.raises(CredentialsMissingError):
        await deployment.auth.authenticate({"aws.event": {"requestContext": {"identity": {}}}}, context)


async def test_lookups_are_cached_and_a_revocation_lands_within_the_cache_period() -> None:
    deployment = Deployment(cache_seconds=60)
    alice = await deployment.key("alice")
    for _ in range(5):
        await deployment.call(alice.key)
    assert deployment.store.reads == 1

    await deployment.store.revoke(alice.stored.key_id, at=deployment.clock.now)
    deployment.clock.now += 59
    assert await deployment.call(alice.key) == "api_key:alice"  # still cached: the documented delay
    deployment.clock.now += 1
    with pytest.raises(CredentialsRejectedError):
        await deployment.call(alice.key)
    assert deployment.store.reads == 2


async def test_an_unknown_key_is_cached_too_and_a_new_key_works_at_once() -> None:
    deployment = Deployment()
    for _ in range(3):
        with pytest.raises(CredentialsRejectedError):
            await deployment.call("a2a_0123456789ab_" + "a" * 43)
    assert deployment.store.reads == 1
    bob = await deployment.key("bob")
    assert await deployment.call(bob.key) == "api_key:bob"


async def test_an_expired_key_is_refused() -> None:
    deployment = Deployment(cache_seconds=0)
    alice = await deployment.key("alice", expires_at=deployment.clock.now + 10)
    assert await deployment.call(alice.key) == "api_key:alice"
    deployment.clock.now += 10
    with pytest.raises(CredentialsRejectedError):
        await deployment.call(alice.key)


async def test_over_the_limit_is_429_with_the_wait_and_tokens_are_leased_in_batches() -> None:
    deployment = Deployment(limit=Limit(rate=10, burst=20))
    alice = await deployment.key("alice")
    for _ in range(20):
        await deployment.call(alice.key)
    assert deployment.buckets.takes == [5, 5, 5, 5]  # a quarter of the burst per write

    with pytest.raises(RateLimitedError) as limited:
        await deployment.call(alice.key)
    assert limited.value.status_code == 429
    assert limited.value.headers() == {"Retry-After": "1"}  # 0.1 s, rounded up to whole seconds

    deployment.clock.now += 0.5
    for _ in range(5):
        await deployment.call(alice.key)
    with pytest.raises(RateLimitedError):
        await deployment.call(alice.key)


async def test_a_key_may_carry_its_own_limit() -> None:
    deployment = Deployment()
    slow = await deployment.key("slow", rate_limit=1, burst_limit=2)
    await deployment.call(slow.key)
    await deployment.call(slow.key)
    with pytest.raises(RateLimitedError):
        await deployment.call(slow.key)
    assert deployment.buckets.takes == [1, 1, 1]


async def test_leased_tokens_lapse_after_the_lease() -> None:
    deployment = Deployment()
    alice = await deployment.key("alice")
    await deployment.call(alice.key)  # leases 5, spends 1
    deployment.clock.now += 1.0  # the 4 left lapse (and 10 refill)
    await deployment.call(alice.key)
    assert deployment.buckets.takes == [5, 5]


async def test_an_unreadable_store_is_503_not_a_refusal() -> None:
    deployment = Deployment()
    alice = await deployment.key("alice")
    deployment.store.down = True
    with pytest.raises(KeysUnavailableError) as unavailable:
        await deployment.call(alice.key)
    assert unavailable.value.status_code == 503


def test_batches_are_a_lease_period_of_tokens_at_most_a_quarter_burst() -> None:
    limiter = LeasedRateLimiter(InMemoryRateBuckets(), lease_seconds=1.0)
    assert limiter.batch(Limit(rate=10, burst=20)) == 5
    assert limiter.batch(Limit(rate=2, burst=100)) == 2
    assert limiter.batch(Limit(rate=1, burst=1)) == 1
    assert limiter.batch(Limit(rate=1000, burst=2000)) == 500


def test_behind_a_function_url_api_keys_need_their_stores() -> None:
    settings = Settings(auth_mode="api_key", front_door="function_url")
    with pytest.raises(SettingsError, match="key store"):
        build_authenticator(settings)
    built = build_authenticator(settings, api_keys=InMemoryApiKeyStore(), rate_buckets=InMemoryRateBuckets())
    assert isinstance(built, StoredKeyAuthenticator)


def test_behind_a_function_url_jwt_needs_an_issuer_to_check_against() -> None:
    with pytest.raises(SettingsError, match="A2A_JWT_ISSUER"):
        build_authenticator(Settings(auth_mode="jwt", front_door="function_url"))


def test_stored_key_usable() -> None:
    key = generate_key("alice", now=0).stored
    assert key.usable(1e12)
    assert not dataclasses.replace(key, revoked_at=5).usable(6)
    assert not dataclasses.replace(key, expires_at=5).usable(5)


async def test_keys_never_reach_the_logs(caplog: pytest.LogCaptureFixture) -> None:
    deployment = Deployment(limit=Limit(rate=1, burst=1))
    alice = await deployment.key("alice")
    forged = alice.key[:-1] + ("A" if alice.key[-1] != "A" else "B")
    with caplog.at_level(logging.DEBUG):
        await deployment.call(alice.key)
        for refused in (forged, alice.key):  # a wrong secret, then over the limit
            with pytest.raises((CredentialsRejectedError, RateLimitedError)):
                await deployment.call(refused)
    secret = alice.key.split("_", 2)[2]
    logged = caplog.text + repr([record.__dict__ for record in caplog.records])
    assert "API key refused" in logged
    assert secret not in logged
    assert forged.split("_", 2)[2] not in logged
