"""The agent, driven through the kit's real engine and worker, in memory: no server, no AWS."""

import pytest

from a2a_core.testing import run_agent

pytestmark = pytest.mark.anyio  # async tests, on asyncio (tests/conftest.py)


async def test_it_answers() -> None:
    async with run_agent() as agent:  # the agent [tool.a2a-serverless] names in pyproject.toml
        task = await agent.send("hello there")
        assert task.state == "completed"
        assert task.text == "You said 2 word(s): hello there"


async def test_it_reports_progress_before_it_answers() -> None:
    async with run_agent() as agent:
        turn = await agent.stream("hello")  # every event, as a streaming client sees them
        assert turn.messages == ["Reading your message...", "You said 1 word(s): hello"]
        assert turn.task.state == "completed"
