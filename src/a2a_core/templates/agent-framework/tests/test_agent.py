"""The agent, driven through the kit's real engine and worker in memory, on the scripted chat
client (tests/scripted.py): no server, no AWS, no network."""

import pytest
from scripted import agent, build_executor

from a2a_core.settings import SettingsError
from a2a_core.testing import run_agent, text_of

pytestmark = pytest.mark.anyio  # async tests, on asyncio (tests/conftest.py)


async def test_it_streams_its_answer_in_chunks() -> None:
    async with run_agent(agent) as a:
        turn = await a.stream("the quick brown fox")  # every event, as a streaming client sees them
        assert turn.chunks == ["That ", "is ", "4 ", "words."]
        assert turn.task.state == "completed"


async def test_without_streaming_it_answers_with_a_message() -> None:
    async with run_agent(lambda: agent(stream=False)) as a:
        task = await a.send("the quick brown fox")
        assert task.state == "completed"
        assert task.agent_messages == ["That is 4 words."]


async def test_a_later_task_of_the_context_continues_the_conversation_on_a_fresh_worker() -> None:
    # fresh_worker: each task runs on the agent imported anew, as on another Lambda worker, so
    # only what the kit stored (the conversation's messages) carries over.
    async with run_agent(agent, fresh_worker=True) as a:
        first = await a.send("the quick brown fox")
        later = await a.send("What did I say first?", context_id=first.context_id)
        other = await a.send("What did I say first?")  # another context: another conversation
    assert text_of(later.artifacts[-1].parts) == "You first said: the quick brown fox"
    assert text_of(other.artifacts[-1].parts) == "You first said: What did I say first?"


def test_without_a_chat_client_it_says_what_to_do() -> None:
    with pytest.raises(SettingsError, match="no chat client"):
        build_executor()
