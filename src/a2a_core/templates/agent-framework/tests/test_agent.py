"""The agent, driven through the kit's real engine and worker in memory, on the scripted chat
client (tests/scripted.py): no server, no AWS, no network."""

import pytest
from scripted import agent

from a2a_core.testing import run_agent

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
