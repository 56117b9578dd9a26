"""The turn's session scope: set by the worker for the agent's run, in the task owner's space."""

from __future__ import annotations

import pytest

from a2a_core.core.caller import Caller
from a2a_core.core.tasklog.records import ANONYMOUS_OWNER
from a2a_core.core.turn.context import TaskContext
from a2a_core.core.turn.session_scope import SessionScope, current_session_scope, entered, owner_space
from a2a_core.core.turn.session_store import InMemorySessionStore
from a2a_core.testing import run_agent

pytestmark = pytest.mark.anyio


async def test_the_agent_runs_with_its_turns_scope_current() -> None:
    seen: list[SessionScope | None] = []

    async def agent(ctx: TaskContext) -> str:
        scope = current_session_scope()
        seen.append(scope)
        assert scope is not None
        await scope.store.append(scope.key("notes", ctx.context_id), ctx.text)
        return "noted"

    async with run_agent(agent) as a:
        first = await a.send("one")
        await a.send("two", context_id=first.context_id)
        scope = seen[0]
        assert scope is not None
        assert scope.store is a.session_store
        notes = await a.session_store.read_entries(scope.key("notes", first.context_id))
        assert [entry.value for entry in notes] == ["one", "two"]
    assert current_session_scope() is None  # only inside a turn


def test_each_owner_has_a_space_of_its_own() -> None:
    assert owner_space(None) == owner_space(ANONYMOUS_OWNER) == "-"
    alice, bob = owner_space("alice"), owner_space("bob")
    assert len({alice, bob, "-"}) == 3
    store = InMemorySessionStore()
    assert SessionScope(store, alice).key("adk", "ctx-1") != SessionScope(store, bob).key("adk", "ctx-1")


def test_key_parts_cannot_reach_into_other_keys() -> None:
    scope = SessionScope(InMemorySessionStore(), "space")
    assert scope.key("a/b", "c") != scope.key("a", "b/c")
    assert scope.key("a/b", "c") == "space/a%2Fb/c"


def test_entered_sets_the_scope_for_the_block_only() -> None:
    scope = SessionScope(InMemorySessionStore(), "s")
    with entered(scope):
        assert current_session_scope() is scope
    assert current_session_scope() is None


async def test_a_caller_reusing_another_callers_context_id_gets_a_session_space_of_its_own() -> None:
    """The space comes from the task's owner (the authenticated principal the engine stored),
    not from the contextId the request names."""

    async def agent(ctx: TaskContext) -> str:
        scope = current_session_scope()
        assert scope is not None
        key = scope.key("notes", ctx.context_id)
        earlier = [entry.value for entry in await scope.store.read_entries(key)]
        await scope.store.append(key, ctx.text)
        return f"earlier: {earlier}"

    async with run_agent(agent) as a:
        a._caller = Caller(principal="alice")
        first = await a.send("alice's note", context_id="shared")
        again = await a.send("alice again", context_id="shared")
        a._caller = Caller(principal="bob")
        bobs = await a.send("bob's note", context_id="shared")
    assert first.text == "earlier: []"
    assert again.text == 'earlier: ["alice\'s note"]'
    assert bobs.text == "earlier: []"
