"""The agent, driven through the kit's real engine and worker in memory, on the scripted model
(tests/scripted.py): no server, no AWS, no network."""

import pytest
from scripted import agent

from a2a_core.testing import run_agent, text_of

pytestmark = [
    pytest.mark.anyio,  # async tests, on asyncio (tests/conftest.py)
    pytest.mark.filterwarnings(r"ignore:\[EXPERIMENTAL\]:UserWarning"),  # ADK's A2A support says so
]


async def test_it_counts_with_its_tool() -> None:
    async with run_agent(agent) as a:
        task = await a.send("count the quick brown fox")
        assert task.state == "completed"
        assert text_of(task.artifacts[-1].parts) == "That is 4 words."


async def test_a_later_task_of_the_context_continues_the_conversation() -> None:
    async with run_agent(agent) as a:
        first = await a.send("count the quick brown fox")
        later = await a.send("What did I ask you first?", context_id=first.context_id)
        assert text_of(later.artifacts[-1].parts) == "You first said: count the quick brown fox"


async def test_turn_2_on_a_fresh_worker_continues_the_conversation() -> None:
    # fresh_worker: each turn on the agent imported anew, as on another Lambda worker: only
    # what the kit stored (the framework's session, through its store) carries over.
    async with run_agent(agent, fresh_worker=True) as a:
        first = await a.send("count the quick brown fox")
        later = await a.send("What did I ask you first?", context_id=first.context_id)
        assert text_of(later.artifacts[-1].parts) == "You first said: count the quick brown fox"
        other = await a.send("What did I ask you first?")  # another context: another session
        assert text_of(other.artifacts[-1].parts) == "You first said: What did I ask you first?"
