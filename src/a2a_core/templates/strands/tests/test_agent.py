"""The agent, driven through the kit's real engine and worker in memory, on the scripted model
(tests/scripted.py): no server, no AWS, no network."""

import pytest
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
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


class FreshWorker(AgentExecutor):
    """Every turn on an executor built anew, as a fresh worker (another Lambda instance) runs it:
    only what the kit stored carries over."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await agent().execute(context, event_queue)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await agent().cancel(context, event_queue)


async def test_the_approval_on_a_fresh_worker_completes_the_task() -> None:
    async with run_agent(FreshWorker()) as a:
        task = await a.send("count the quick brown fox")
        assert task.state == "input-required"
        task = await a.reply(task, approval(task, "yes"))
        assert task.state == "completed"
        assert text_of(task.artifacts[-1].parts) == "That is 4 words."


async def test_a_later_task_on_a_fresh_worker_sees_the_first_tasks_messages() -> None:
    async with run_agent(FreshWorker()) as a:
        first = await a.send("count the quick brown fox")
        first = await a.reply(first, approval(first, "yes"))
        later = await a.send("What did I ask you first?", context_id=first.context_id)
        assert later.state == "completed"
        assert text_of(later.artifacts[-1].parts) == "You first said: count the quick brown fox"
