"""`StrandsSessionRepository` under Strands' own `RepositorySessionManager`: an agent built anew
on the same store (a later turn in another worker) continues the conversation and resumes a
pending interrupt; messages are stored once each; multi-agent state; owners kept apart. Runs in
the strands environment (``.venv-frameworks/strands``), on the in-memory store and on DynamoDB
(moto); ``tests/e2e/test_framework_sessions.py`` runs it there."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from strands import Agent, tool
from strands.models import Model
from strands.session.repository_session_manager import RepositorySessionManager
from strands.types.content import Messages
from strands.types.exceptions import SessionException
from strands.types.session import SessionMessage
from strands.types.streaming import StreamEvent
from strands.types.tools import ToolContext

from a2a_core.adapters.strands import StrandsSessionRepository, session_manager
from a2a_core.core.turn.session_scope import SessionScope, entered
from a2a_core.core.turn.session_store import SessionStore

pytest_plugins = ["frameworks.stores"]  # the stores it runs on


class Scripted(Model):
    """``count <text>`` calls the tool; anything else names the conversation's first message."""

    def update_config(self, **model_config: Any) -> None:
        """Nothing to configure."""

    def get_config(self) -> Any:
        return {}

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError
        yield

    async def stream(
        self, messages: Messages, *args: Any, **kwargs: Any
    ) -> AsyncGenerator[StreamEvent, None]:
        last = messages[-1]["content"][-1]
        if "toolResult" in last:
            said = str(
                last["toolResult"]["content"][0].get("json", last["toolResult"]["content"][0].get("text"))
            )
        elif last.get("text", "").startswith("count "):
            call = {"toolUseId": "count-1", "name": "count_words"}
            event: Any
            for event in (
                {"messageStart": {"role": "assistant"}},
                {"contentBlockStart": {"start": {"toolUse": call}}},
                {
                    "contentBlockDelta": {
                        "delta": {"toolUse": {"input": json.dumps({"text": last["text"][6:]})}}
                    }
                },
                {"contentBlockStop": {}},
                {"messageStop": {"stopReason": "tool_use"}},
            ):
                yield event
            return
        else:
            said = "first: " + next(
                b["text"] for m in messages if m["role"] == "user" for b in m["content"] if "text" in b
            )
        for event in (
            {"messageStart": {"role": "assistant"}},
            {"contentBlockStart": {"start": {}}},
            {"contentBlockDelta": {"delta": {"text": said}}},
            {"contentBlockStop": {}},
            {"messageStop": {"stopReason": "end_turn"}},
        ):
            yield event


@tool(context=True)
def count_words(text: str, tool_context: ToolContext) -> dict[str, Any]:
    """Count the words of a text, once approved.

    Args:
        text: the text.
    """
    answer = tool_context.interrupt("approval", reason=f"May I count {text!r}?")
    return {"status": "success", "content": [{"json": {"words": len(text.split()), "approved": answer}}]}


def build(store: SessionStore, context_id: str = "ctx") -> Agent:
    """The agent as a fresh worker builds it: nothing in memory, its session in the store."""
    return Agent(
        model=Scripted(),
        tools=[count_words],
        callback_handler=None,
        session_manager=session_manager(context_id, store),
    )


def text(result: Any) -> str:
    return "".join(block.get("text", "") for block in result.message["content"])


def test_an_agent_built_anew_continues_the_conversation(store: SessionStore) -> None:
    first = build(store)
    first("hello there")
    later = build(store)
    assert later.messages == first.messages
    assert text(later("what did I say?")) == "first: hello there"
    assert len(build(store).messages) == 4


def test_a_pending_interrupt_is_resumed_by_an_agent_built_anew(store: SessionStore) -> None:
    asked = build(store)
    result = asked("count a b c")
    assert result.stop_reason == "interrupt"
    assert result.interrupts is not None
    (interrupt,) = result.interrupts
    resumed = build(store)  # the reply's turn, in another worker
    reply: Any = [{"interruptResponse": {"interruptId": interrupt.id, "response": "yes"}}]
    done = resumed(reply)
    assert done.stop_reason == "end_turn"
    assert text(done) == str({"words": 3, "approved": "yes"})
    # Each message once, in order: the question, the tool call, its result, the answer.
    roles = [m["role"] for m in build(store).messages]
    assert roles == ["user", "assistant", "user", "assistant"]


def test_messages_are_stored_once_and_listed_by_window(store: SessionStore) -> None:
    agent = build(store)
    agent("one")
    agent("two")
    repository = StrandsSessionRepository(store)
    listed = repository.list_messages("ctx", agent.agent_id)
    assert [m.message_id for m in listed] == [0, 1, 2, 3]
    assert [m.message_id for m in repository.list_messages("ctx", agent.agent_id, limit=2, offset=1)] == [
        1,
        2,
    ]
    assert repository.read_message("ctx", agent.agent_id, 2) is not None
    assert repository.read_message("ctx", agent.agent_id, 9) is None
    # A message sent again by a stale worker under a taken id is refused, not stored twice.
    stale = SessionMessage.from_message({"role": "user", "content": [{"text": "stale"}]}, 3)
    with pytest.raises(SessionException, match="another turn"):
        repository.create_message("ctx", agent.agent_id, stale)
    assert len(repository.list_messages("ctx", agent.agent_id)) == 4


def test_a_redacted_message_is_replaced_in_place(store: SessionStore) -> None:
    agent = build(store)
    agent("my secret")
    manager = agent._session_manager
    assert manager is not None
    manager.redact_latest_message({"role": "assistant", "content": [{"text": "[redacted]"}]}, agent)
    assert build(store).messages[-1]["content"] == [{"text": "[redacted]"}]


def test_agent_state_outlives_the_worker(store: SessionStore) -> None:
    agent = build(store)
    agent.state.set("counted", 7)
    agent("hi")
    assert build(store).state.get("counted") == 7


class Team:
    """What a session manager asks of a multi-agent (a Graph or a Swarm): its id and state."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.id = "team"
        self.state = state

    def serialize_state(self) -> dict[str, Any]:
        return dict(self.state)

    def deserialize_state(self, payload: dict[str, Any]) -> None:
        self.state = payload


def test_multi_agent_state_is_kept(store: SessionStore) -> None:
    manager = RepositorySessionManager(session_id="ctx", session_repository=StrandsSessionRepository(store))
    team = Team({"node": "first"})
    manager.initialize_multi_agent(team)  # type: ignore[arg-type]
    team.state = {"node": "second"}
    manager.sync_multi_agent(team)  # type: ignore[arg-type]
    restored = Team({})
    RepositorySessionManager(
        session_id="ctx", session_repository=StrandsSessionRepository(store)
    ).initialize_multi_agent(restored)  # type: ignore[arg-type]
    assert restored.state == {"node": "second"}


def test_a_caller_reusing_another_callers_context_id_reads_nothing_of_theirs(store: SessionStore) -> None:
    with entered(SessionScope(store, "alice")):
        alice = Agent(model=Scripted(), callback_handler=None, session_manager=session_manager("ctx"))
        alice("alice's secret")
    with entered(SessionScope(store, "bob")):
        bob = Agent(model=Scripted(), callback_handler=None, session_manager=session_manager("ctx"))
        assert bob.messages == []
        assert text(bob("hi")) == "first: hi"


def test_outside_a_turn_and_without_a_store_it_says_so() -> None:
    with pytest.raises(RuntimeError, match="during a turn"):
        StrandsSessionRepository()
