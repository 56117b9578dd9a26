"""The agent, driven through the kit's real engine and worker, in memory: no server, no AWS."""

import pytest

from a2a_core.testing import run_agent

pytestmark = pytest.mark.anyio  # async tests, on asyncio (tests/conftest.py)


async def test_it_asks_who_the_piece_is_for_then_completes() -> None:
    # The agent [tool.a2a-serverless] names in pyproject.toml, imported anew for each turn, as a
    # Lambda worker that just started runs it: the reply's turn needs only what the kit stored.
    async with run_agent(fresh_worker=True) as agent:
        task = await agent.send("otters")
        assert task.state == "input-required"
        assert task.text == "Who is the piece for: beginners or experts?"
        assert task.artifact("outline").startswith("Outline: otters\n")

        task = await agent.reply(task, "experts")  # the second turn, on the same task
        assert task.state == "completed"
        assert task.text == "Done: the outline is written for experts."


async def test_it_streams_its_progress_and_the_outline() -> None:
    async with run_agent() as agent:
        turn = await agent.stream("otters")  # every event, as a streaming client sees them
        assert turn.messages == [
            "Outlining a piece about otters...",
            "Who is the piece for: beginners or experts?",
        ]
        assert turn.chunks[0].startswith("Outline: otters\n")
        assert turn.task.state == "input-required"
