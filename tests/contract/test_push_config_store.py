from __future__ import annotations

import pytest

from a2a_core.core.push_store import PushConfigStore
from a2a_core.domain import PushNotificationAuthenticationInfo, PushNotificationConfig
from a2a_core.generations import V0_3, V1_0

pytestmark = pytest.mark.anyio


def config(url: str = "https://hooks.example.com/a2a", **fields: object) -> PushNotificationConfig:
    return PushNotificationConfig.model_validate({"url": url, **fields})


async def test_a_task_without_configs_has_none(push_store: PushConfigStore) -> None:
    assert await push_store.list("t1") == []
    assert await push_store.get("t1") is None
    assert await push_store.get("t1", "nope") is None


async def test_put_assigns_an_id_and_round_trips_every_field(push_store: PushConfigStore) -> None:
    sent = config(
        token="tok",
        authentication=PushNotificationAuthenticationInfo(schemes=["Bearer"], credentials="secret"),
        generation=V1_0.version,
    )
    stored = await push_store.put("t1", sent)
    assert stored.id
    assert stored == sent.model_copy(update={"id": stored.id})
    assert await push_store.get("t1", stored.id) == stored
    assert await push_store.get("t1") == stored


async def test_put_keeps_a_given_id(push_store: PushConfigStore) -> None:
    stored = await push_store.put("t1", config(id="cfg-1"))
    assert stored.id == "cfg-1"
    assert await push_store.list("t1") == [stored]


async def test_list_is_oldest_first_and_a_replaced_config_keeps_its_place(
    push_store: PushConfigStore,
) -> None:
    first = await push_store.put("t1", config("https://a.example.com/", id="zz"))
    second = await push_store.put("t1", config("https://b.example.com/", id="aa"))
    replaced = await push_store.put("t1", config("https://c.example.com/", id="zz"))
    assert await push_store.list("t1") == [replaced, second]
    assert await push_store.get("t1") == replaced
    assert first != replaced


async def test_put_is_idempotent(push_store: PushConfigStore) -> None:
    once = await push_store.put("t1", config(id="cfg-1"))
    twice = await push_store.put("t1", config(id="cfg-1"))
    assert once == twice
    assert await push_store.list("t1") == [once]


async def test_delete_removes_one_config_and_is_idempotent(push_store: PushConfigStore) -> None:
    kept = await push_store.put("t1", config(id="keep"))
    await push_store.put("t1", config(id="drop"))
    await push_store.delete("t1", "drop")
    await push_store.delete("t1", "drop")
    await push_store.delete("t1", "never-existed")
    assert await push_store.list("t1") == [kept]
    assert await push_store.get("t1", "drop") is None


async def test_tasks_are_kept_apart(push_store: PushConfigStore) -> None:
    mine = await push_store.put("t1", config(id="same"))
    theirs = await push_store.put("t2", config("https://other.example.com/", id="same"))
    await push_store.delete("t2", "same")
    assert await push_store.list("t1") == [mine]
    assert await push_store.get("t2", "same") is None
    assert theirs.id == "same"


async def test_the_generation_that_created_a_config_is_kept_and_a_replacement_takes_its_own(
    push_store: PushConfigStore,
) -> None:
    stored = await push_store.put("t1", config(id="c1", generation=V1_0.version))
    assert stored.generation == V1_0.version
    assert [c.generation for c in await push_store.list("t1")] == [V1_0.version]
    got = await push_store.get("t1", "c1")
    assert got is not None
    assert got.generation == V1_0.version
    assert got == stored

    await push_store.put("t1", config(id="c1"))  # set again through 0.x
    again = await push_store.get("t1")
    assert again is not None
    assert again.generation == V0_3.version
    assert (await push_store.put("t1", config(id="c2"))).generation == V0_3.version
