"""a2a-sdk 1.3 executors hosted unchanged (`a2a_core.adapters.a2a_sdk`), through the real engine,
worker and task log in memory (`a2a_core.testing`): what they get in their `RequestContext`, every
event order they may emit, cancel, failures, and how the kit tells what it was given."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from a2a.helpers import new_task_from_user_message, new_text_artifact, new_text_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import TaskState as SdkState
from a2a.types import TaskStatus as SdkStatus
from a2a.types import TaskStatusUpdateEvent

from a2a_core.adapters.a2a_sdk import ExecutorAgent
from a2a_core.adapters.resolve import resolve_agent
from a2a_core.compose.agent import load_agent
from a2a_core.core.caller import Caller
from a2a_core.core.errors import InvalidAgentResponseError
from a2a_core.core.requests import SendRequest
from a2a_core.core.turn.worker import INVALID_RESPONSE, Worker
from a2a_core.domain import Message, Role, TaskArtifactUpdateEvent, TaskState, TextPart
from a2a_core.settings import SettingsError
from a2a_core.testing import run_agent
from executors.sdk13 import QUESTION, DraftExecutor, HelloWorldAgentExecutor
from support import CALLER, Stack, send_params, user_message

pytestmark = pytest.mark.anyio

Execute = Callable[[RequestContext, EventQueue], Awaitable[None]]


class Scripted(AgentExecutor):
    """Runs ``script``; keeps each RequestContext it got and each cancel."""

    def __init__(self, script: Execute) -> None:
        self.script = script
        self.contexts: list[RequestContext] = []
        self.cancels: list[RequestContext] = []

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.contexts.append(context)
        await self.script(context, event_queue)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.cancels.append(context)
        raise Exception("cancel not supported")  # as a2a-sdk's samples do: canceled all the same


def updater(context: RequestContext, queue: EventQueue) -> TaskUpdater:
    assert context.task_id is not None
    assert context.context_id is not None
    return TaskUpdater(queue, context.task_id, context.context_id)


# --- the two executors of the issue ----------------------------------------------------------


async def test_the_hello_world_executor_answers_with_a_message_and_no_task() -> None:
    async with run_agent(HelloWorldAgentExecutor()) as a:
        task = await a.send("hi")
        assert task.reply is not None
        assert task.reply.parts == [TextPart(text="Hello World")]
        assert task.reply.task_id is None  # no task to track, for the client
        assert task.state == TaskState.completed  # the record kept, with the answer
        turn = await a.stream("hi again")
        assert len(turn.events) == 1
        assert isinstance(turn.events[0], Message)
        assert turn.events[0].parts == [TextPart(text="Hello World")]


async def test_a_multi_turn_executor_streams_asks_and_completes_on_the_reply() -> None:
    async with run_agent(DraftExecutor()) as a:
        turn = await a.stream("a story chunks=3")
        # Submitted, working (the worker's claim), working with "Drafting...", the question.
        assert turn.states == [
            TaskState.submitted,
            TaskState.working,
            TaskState.working,
            TaskState.input_required,
        ]
        assert turn.messages == ["Drafting...", QUESTION]
        assert turn.chunks == ["part 0 ", "part 1 ", "part 2 "]
        assert turn.task.artifact("draft") == "part 0 part 1 part 2 "
        task = await a.reply(turn.task, "children")
        assert task.state == TaskState.completed
        assert task.text == "Done: written for children."
        assert task.artifact("final") == "Final version, for children."
        assert [m.role for m in task.history] == [Role.user, Role.agent, Role.agent, Role.user, Role.agent]


async def test_the_class_and_a_factory_are_hosted_too() -> None:
    def make() -> DraftExecutor:
        return DraftExecutor()

    for named in (DraftExecutor, make):
        async with run_agent(named) as a:
            assert (await a.send("x chunks=1")).state == TaskState.input_required
    assert isinstance(resolve_agent(HelloWorldAgentExecutor), ExecutorAgent)


def test_loading_an_executor_by_name_detects_each_form() -> None:
    for name in ("draft", "DraftExecutor", "HelloWorldAgentExecutor"):
        agent = load_agent(f"executors.sdk13:{name}")
        assert isinstance(agent, ExecutorAgent)
        assert isinstance(agent.executor, AgentExecutor)


def test_a_class_that_needs_arguments_is_refused_with_the_fix() -> None:
    class NeedsModel(AgentExecutor):
        def __init__(self, model: str) -> None:
            self.model = model

        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None: ...

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None: ...

    with pytest.raises(TypeError, match=r"cannot be made without arguments .* name an instance of it"):
        resolve_agent(NeedsModel)
    with pytest.raises(TypeError, match="is not an agent; name an async function"):
        resolve_agent(42)
    with pytest.raises(SettingsError, match=r"cannot load agent 'executors\.sdk13:QUESTION'"):
        load_agent("executors.sdk13:QUESTION")


# --- what the RequestContext holds ------------------------------------------------------------


async def test_the_request_context_is_filled_from_the_durable_task() -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        if context.current_task is None:
            await updater(context, queue).requires_input(
                updater(context, queue).new_agent_message([new_text_part("Which one?")])
            )
        else:
            await updater(context, queue).complete()

    executor = Scripted(script)
    async with run_agent(executor) as a:
        first = await a.send("first", metadata={"trace": "t-1"})
        await a.reply(first, "second", metadata={"trace": "t-2"})
    opened, resumed = executor.contexts
    assert (opened.task_id, opened.context_id) == (first.id, first.context_id)
    assert opened.get_user_input() == "first"
    assert opened.metadata == {"trace": "t-1"}
    assert opened.current_task is None  # a new task, as a2a-sdk's server says it
    assert opened.call_context.user.is_authenticated is False
    assert resumed.get_user_input() == "second"
    assert resumed.message is not None
    assert resumed.message.task_id == first.id
    assert resumed.metadata == {"trace": "t-2"}
    current = resumed.current_task
    assert current is not None
    assert current.status.state == SdkState.TASK_STATE_INPUT_REQUIRED
    assert [part.text for part in current.status.message.parts] == ["Which one?"]
    assert [m.parts[0].text for m in current.history] == ["first"]  # 1.x: before this message


async def test_a_later_turn_gets_the_whole_history_not_a_window() -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        steps = updater(context, queue)
        if context.current_task is None:
            for index in range(12):
                await steps.start_work(steps.new_agent_message([new_text_part(f"step {index}")]))
            await steps.requires_input(steps.new_agent_message([new_text_part("More?")]))
        else:
            await steps.complete()

    executor = Scripted(script)
    async with run_agent(executor) as a:
        task = await a.send("go")
        await a.reply(task, "yes")
    current = executor.contexts[1].current_task
    assert current is not None
    assert len(current.history) == 13  # the message and the 12 steps; the question is the status


async def test_referenced_tasks_of_the_same_caller_are_related_tasks() -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        await updater(context, queue).complete()

    executor = Scripted(script)
    async with run_agent(executor) as a:
        earlier = await a.send("earlier")
        message = Message(
            role=Role.user,
            parts=[TextPart(text="see that one")],
            message_id="m-ref",
            reference_task_ids=[earlier.id, "no-such-task"],
        )
        await a.send(message)
    (related,) = executor.contexts[1].related_tasks
    assert related.id == earlier.id
    assert related.status.state == SdkState.TASK_STATE_COMPLETED


# --- every order of events a2a-sdk's servers accept -----------------------------------------


async def test_opening_with_a_status_update_instead_of_a_task() -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        steps = updater(context, queue)
        await steps.start_work(steps.new_agent_message([new_text_part("on it")]))
        await steps.complete(steps.new_agent_message([new_text_part("done")]))

    async with run_agent(Scripted(script)) as a:
        turn = await a.stream("x")
    assert turn.messages == ["on it", "done"]
    assert turn.state == TaskState.completed


async def test_only_a_final_task_carrying_everything() -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        assert context.message is not None
        task = new_task_from_user_message(context.message)
        task.artifacts.append(new_text_artifact("report", "all of it"))
        task.history.append(new_text_message("thinking", task_id=task.id, context_id=task.context_id))
        task.status.CopyFrom(SdkStatus(state=SdkState.TASK_STATE_COMPLETED))
        task.status.message.CopyFrom(
            new_text_message("finished", task_id=task.id, context_id=task.context_id)
        )
        await queue.enqueue_event(task)

    async with run_agent(Scripted(script)) as a:
        task = await a.send("x")
    assert task.state == TaskState.completed
    assert task.text == "finished"
    assert task.artifact("report") == "all of it"
    assert task.agent_messages == ["thinking", "finished"]
    assert task.reply is None  # a Task, not a message answer


async def test_only_artifact_chunks_then_returning_completes() -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        steps = updater(context, queue)
        for index in range(3):
            await steps.add_artifact(
                [new_text_part(f"{index}")],
                artifact_id="a",
                name="n",
                append=index > 0,
                last_chunk=index == 2,
            )

    async with run_agent(Scripted(script)) as a:
        turn = await a.stream("x")
    assert turn.chunks == ["0", "1", "2"]
    assert turn.state == TaskState.completed
    assert turn.task.artifact("n") == "012"


async def test_a_message_after_task_events_is_a_progress_message_and_a_second_answer_is_dropped() -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        assert context.message is not None
        await queue.enqueue_event(new_task_from_user_message(context.message))
        await queue.enqueue_event(new_text_message("an aside"))
        await updater(context, queue).complete()
        await queue.enqueue_event(new_text_message("too late"))

    async with run_agent(Scripted(script)) as a:
        task = await a.send("x")
    assert task.state == TaskState.completed
    assert task.agent_messages == ["an aside"]
    assert task.reply is None


async def test_input_and_auth_required_end_the_turn_and_rejection_ends_the_task() -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        steps, text = updater(context, queue), context.get_user_input()
        if context.current_task is None:
            await steps.requires_auth(steps.new_agent_message([new_text_part("sign in")]))
        elif text == "token":
            await steps.requires_input(steps.new_agent_message([new_text_part("what?")]))
        else:
            await steps.reject(steps.new_agent_message([new_text_part("no")]))

    async with run_agent(Scripted(script)) as a:
        task = await a.send("x")
        assert (task.state, task.text) == (TaskState.auth_required, "sign in")
        task = await a.reply(task, "token")
        assert (task.state, task.text) == (TaskState.input_required, "what?")
        task = await a.reply(task, "nonsense")
        assert (task.state, task.text) == (TaskState.rejected, "no")


async def test_an_executor_that_raises_fails_the_task() -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        await updater(context, queue).start_work()
        raise RuntimeError("the model is down")

    async with run_agent(Scripted(script), raise_agent_errors=False) as a:
        task = await a.send("x")
    assert task.state == TaskState.failed
    assert isinstance(task.error, RuntimeError)


async def test_an_event_of_another_task_is_an_invalid_response() -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        event = TaskStatusUpdateEvent(task_id="someone-else", context_id=context.context_id)
        event.status.state = SdkState.TASK_STATE_COMPLETED
        await queue.enqueue_event(event)

    async with run_agent(Scripted(script), raise_agent_errors=False) as a:
        task = await a.send("x")
    assert task.state == TaskState.failed
    assert task.text == INVALID_RESPONSE
    assert isinstance(task.error, InvalidAgentResponseError)
    assert "someone-else" in str(task.error)


async def test_something_that_is_no_event_is_an_invalid_response() -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        await queue.enqueue_event("done")  # type: ignore[arg-type]

    async with run_agent(Scripted(script), raise_agent_errors=False) as a:
        task = await a.send("x")
    assert task.text == INVALID_RESPONSE


# --- cancel -----------------------------------------------------------------------------------


async def test_cancel_calls_the_executors_cancel_and_stops_execute() -> None:
    started, stopped = asyncio.Event(), asyncio.Event()

    async def script(context: RequestContext, queue: EventQueue) -> None:
        await updater(context, queue).start_work(
            updater(context, queue).new_agent_message([new_text_part("thinking")])
        )
        started.set()
        try:
            await asyncio.sleep(3600)  # silent: only the worker's watch can see the cancel
        finally:
            stopped.set()

    executor = Scripted(script)
    async with run_agent(executor) as a:
        task = await a.send("x", wait=False)
        await started.wait()
        assert (await a.cancel(task)).state == TaskState.canceled
        task = await a.wait(task)
        await asyncio.wait_for(stopped.wait(), 5)
    assert task.state == TaskState.canceled
    (cancel,) = executor.cancels
    assert cancel.task_id == task.id
    assert cancel.current_task is not None


async def test_draft_executor_honours_cancel() -> None:
    executor = DraftExecutor()
    async with run_agent(executor) as a:
        task = await a.send("long chunks=200 delay=0.05", wait=False)
        async for event in a.subscribe(task):
            if isinstance(event, TaskArtifactUpdateEvent):
                break
        await a.cancel(task)
        task = await a.wait(task)
        chunks = len(task.artifact("draft").split())
        await asyncio.sleep(0.3)
        assert len((await a.get(task)).artifact("draft").split()) == chunks  # nothing more came
    assert task.state == TaskState.canceled
    assert executor.canceled == [task.id]


# --- what the call carried -------------------------------------------------------------------


async def test_the_callers_principal_extensions_and_output_modes_reach_the_context() -> None:
    async def script(context: RequestContext, queue: EventQueue) -> None:
        await updater(context, queue).complete()

    executor = Scripted(script)
    stack = Stack(executor)
    caller = Caller(principal="alice", extensions=("https://example.com/ext/geo/v1",))
    request = SendRequest(user_message("x"), accepted_output_modes=("text/plain",), metadata={"k": "v"})
    await stack.engine.submit(request, caller)
    await stack.drain()
    (context,) = executor.contexts
    assert context.requested_extensions == {"https://example.com/ext/geo/v1"}
    assert context.configuration is not None
    assert list(context.configuration.accepted_output_modes) == ["text/plain"]
    assert context.metadata == {"k": "v"}
    assert (context.call_context.user.is_authenticated, context.call_context.user.user_name) == (
        True,
        "alice",
    )


# --- a retried turn ---------------------------------------------------------------------------


async def test_a_retried_turn_replaces_what_the_interrupted_attempt_of_the_executor_wrote() -> None:
    now = [1000.0]
    parked = asyncio.Event()

    async def dies_midway(context: RequestContext, queue: EventQueue) -> None:
        assert context.message is not None
        steps = updater(context, queue)
        await queue.enqueue_event(new_task_from_user_message(context.message))
        await steps.start_work(steps.new_agent_message([new_text_part("stale progress")]))
        await steps.add_artifact(
            [new_text_part("stale ")], artifact_id=f"{context.task_id}-draft", name="draft"
        )
        await steps.add_artifact([new_text_part("only the first attempt made this")], name="extra")
        parked.set()
        await asyncio.Event().wait()  # its worker dies here

    stack = Stack(DraftExecutor())
    await stack.engine.send_message(send_params(user_message("a story chunks=2")), CALLER)
    operation = await stack.broker.receive(timeout=0)
    assert operation is not None
    dying = Worker(stack.ledger, ExecutorAgent(Scripted(dies_midway)), lease_seconds=60, clock=lambda: now[0])
    run = asyncio.create_task(dying.handle(operation))
    await parked.wait()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    now[0] += 61  # its lease runs out: the next delivery takes the turn over
    retry = Worker(stack.ledger, ExecutorAgent(DraftExecutor()), lease_seconds=60, clock=lambda: now[0])
    await retry.handle(operation)

    task = await stack.ledger.load(operation.task_id)
    assert task.status.state == TaskState.input_required
    texts = [part.text for m in task.history or [] for part in m.parts if isinstance(part, TextPart)]
    assert texts == ["a story chunks=2", "Drafting...", QUESTION]
    artifacts = [(a.name, [p.text for p in a.parts if isinstance(p, TextPart)]) for a in task.artifacts or []]
    assert artifacts == [("draft", ["part 0 ", "part 1 "])]
