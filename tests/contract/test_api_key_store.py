from __future__ import annotations

import dataclasses

import pytest

from a2a_core.auth.key_store import ApiKeyStore, KeyExistsError, generate_key

pytestmark = pytest.mark.anyio
NOW = 1_800_000_000.0


async def test_a_key_round_trips_without_its_secret(api_key_store: ApiKeyStore) -> None:
    new = generate_key("alice", now=NOW, expires_at=NOW + 86400, rate_limit=2.5, burst_limit=5)
    await api_key_store.add(new.stored)

    stored = await api_key_store.get(new.stored.key_id)
    assert stored == new.stored
    assert stored.matches(new.key)
    assert new.key not in repr(stored)
    assert await api_key_store.get("0123456789ab") is None


async def test_adding_a_taken_id_is_refused_and_changes_nothing(api_key_store: ApiKeyStore) -> None:
    new = generate_key("alice", now=NOW)
    await api_key_store.add(new.stored)
    impostor = dataclasses.replace(new.stored, name="mallory", digest="0" * 64)
    with pytest.raises(KeyExistsError):
        await api_key_store.add(impostor)
    assert await api_key_store.get(new.stored.key_id) == new.stored


async def test_revoking_is_idempotent_and_keeps_the_first_time(api_key_store: ApiKeyStore) -> None:
    new = generate_key("alice", now=NOW)
    await api_key_store.add(new.stored)

    revoked = await api_key_store.revoke(new.stored.key_id, at=NOW + 10)
    again = await api_key_store.revoke(new.stored.key_id, at=NOW + 20)

    assert revoked == again == dataclasses.replace(new.stored, revoked_at=NOW + 10)
    assert await api_key_store.get(new.stored.key_id) == revoked
    assert revoked is not None
    assert not revoked.usable(NOW + 11)
    assert await api_key_store.revoke("0123456789ab", at=NOW) is None
    assert await api_key_store.get("0123456789ab") is None


async def test_list_holds_every_key_of_every_name_in_order(api_key_store: ApiKeyStore) -> None:
    bob = generate_key("bob", now=NOW)
    alice_new = generate_key("alice", now=NOW + 5)
    alice_old = generate_key("alice", now=NOW)
    for new in (bob, alice_new, alice_old):
        await api_key_store.add(new.stored)
    await api_key_store.revoke(alice_old.stored.key_id, at=NOW + 6)

    listed = await api_key_store.list()
    assert [(k.name, k.key_id) for k in listed] == [
        ("alice", alice_old.stored.key_id),
        ("alice", alice_new.stored.key_id),
        ("bob", bob.stored.key_id),
    ]
    assert [k.revoked_at for k in listed] == [NOW + 6, None, None]
