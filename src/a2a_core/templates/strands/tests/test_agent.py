"""The agent, driven through the kit's real engine and worker in memory, on the scripted model
(tests/scripted.py): no server, no AWS, no network."""

import pytest
from scripted import agent

from a2a_core.testing import TaskResult, run_agent, text_of

pytestmark = pytest.mark.anyio  # async tests, on asyncio (tests/conftest.py)


def approval(task: TaskResult, answer: str) -> dict[str, object]:
    """The reply to the task's pending interrupt: a data part Strands' executor recognizes."""
    (pending,) = task.data["interrupts"]  # type: ignore[index,misc]
    return {"interruptResponse": {"interruptId": pending["interruptId"], "response": answer}}


async def test_it_asks_before_counting_and_counts_once_approved() -> None:
    async with run_agent(agent) as a:
        task = await a.send("count the quick brown fox")
        assert task.state == "input-required"
        assert "May I count the words of 'the quick brown fox'?" in task.text

        task = await a.reply(task, approval(task, "yes"))  # the second turn, on the same task
        assert task.state == "completed"
        assert text_of(task.artifacts[-1].parts) == "That is 4 words."


async def test_it_does_not_count_without_approval() -> None:
    async with run_agent(agent) as a:
        task = await a.send("count the quick brown fox")
        task = await a.reply(task, approval(task, "no"))
        assert text_of(task.artifacts[-1].parts) == "The user did not approve."


async def test_the_approval_on_a_fresh_worker_completes_the_task() -> None:
    # fresh_worker: each turn on the agent imported anew, as on another Lambda worker: only
    # what the kit stored (the framework's session, through its store) carries over.
    async with run_agent(agent, fresh_worker=True) as a:
        task = await a.send("count the quick brown fox")
        assert task.state == "input-required"
        task = await a.reply(task, approval(task, "yes"))
        assert task.state == "completed"
        assert text_of(task.artifacts[-1].parts) == "That is 4 words."


async def test_a_later_task_on_a_fresh_worker_sees_the_first_tasks_messages() -> None:
    # fresh_worker: each turn on the agent imported anew, as on another Lambda worker: only
    # what the kit stored (the framework's session, through its store) carries over.
    async with run_agent(agent, fresh_worker=True) as a:
        first = await a.send("count the quick brown fox")
        first = await a.reply(first, approval(first, "yes"))
        later = await a.send("What did I ask you first?", context_id=first.context_id)
        assert later.state == "completed"
        assert text_of(later.artifacts[-1].parts) == "You first said: count the quick brown fox"
