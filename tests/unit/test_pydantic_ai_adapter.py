from __future__ import annotations

import asyncio
import base64
import re
from collections.abc import AsyncIterator

import pytest
from pydantic import BaseModel
from pydantic_ai import Agent, RunContext
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from a2a_core.adapters.pydantic_ai import HISTORY_KEY, PydanticAIAgent, record_turn, to_model_message
from a2a_core.core.requests import TaskRef
from a2a_core.core.tasklog.records import ArtifactUpdated
from a2a_core.core.turn.worker import AGENT_FAILED
from a2a_core.domain import DataPart, FilePart, FileWithBytes, Message, Role, Task, TaskState
from a2a_core.domain import TextPart as A2ATextPart
from support import CALLER, Stack, send_params, user_message

pytestmark = pytest.mark.anyio

CONTEXT = "conversation"
LIMIT = 10.0  # seconds a test waits for a concurrent run before failing instead of hanging


def prompts(messages: list[ModelMessage]) -> list[str]:
    return [
        str(part.content)
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, UserPromptPart)
    ]


def replies(messages: list[ModelMessage]) -> list[str]:
    return [
        part.content
        for message in messages
        if isinstance(message, ModelResponse)
        for part in message.parts
        if isinstance(part, TextPart)
    ]


class Recorder:
    """A model that answers "reply to <prompt>" in word chunks and records what it was sent."""

    def __init__(self) -> None:
        self.calls: list[list[ModelMessage]] = []
        self.model = FunctionModel(self.respond, stream_function=self.stream)

    def answer(self, messages: list[ModelMessage]) -> str:
        self.calls.append(list(messages))
        return f"reply to {prompts(messages)[-1]}"

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(self.answer(messages))])

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for word in re.findall(r"\S+\s*", self.answer(messages)):
            yield word


async def send(stack: Stack, text: str, context_id: str = CONTEXT) -> Task:
    sent = await stack.engine.send_message(send_params(user_message(text, context_id=context_id)), CALLER)
    await stack.drain()
    return await stack.ledger.load(sent.id)


def reply_text(task: Task) -> str | None:
    if task.status.message is None:
        return None
    return "".join(p.text for p in task.status.message.parts if isinstance(p, A2ATextPart))


def artifact_text(task: Task) -> str:
    (artifact,) = task.artifacts or []
    return "".join(p.text for p in artifact.parts if isinstance(p, A2ATextPart))


async def chunk_events(stack: Stack, task_id: str) -> list[ArtifactUpdated]:
    commits = await stack.store.read(task_id)
    return [e for c in commits for e in c.events if isinstance(e, ArtifactUpdated)]


async def stored_history(stack: Stack) -> list[ModelMessage]:
    stored = await stack.context_store.load_context(CONTEXT)
    assert stored is not None
    assert isinstance(stored.value, dict)
    return ModelMessagesTypeAdapter.validate_python(stored.value[HISTORY_KEY])


async def test_a_test_model_agent_completes_with_its_text() -> None:
    stack = Stack(PydanticAIAgent(Agent(TestModel(custom_output_text="Hello from pydantic-ai"))))
    task = await send(stack, "hi")
    assert task.status.state == TaskState.completed
    assert reply_text(task) == "Hello from pydantic-ai"
    assert artifact_text(task) == "Hello from pydantic-ai"
    assert task.artifacts is not None
    assert task.artifacts[0].name == "response"


async def test_text_is_streamed_as_chunks_of_one_artifact_before_the_task_completes() -> None:
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for piece in ("Hel", "lo, ", "wor", "ld"):
            yield piece

    agent = Agent(FunctionModel(stream_function=stream))
    stack = Stack(PydanticAIAgent(agent, debounce_by=None))
    task = await send(stack, "hi")
    events = await chunk_events(stack, task.id)
    assert [e.artifact.parts for e in events] == [[A2ATextPart(text=t)] for t in ("Hel", "lo, ", "wor", "ld")]
    assert [e.append for e in events] == [False, True, True, True]
    assert [e.last_chunk for e in events] == [False, False, False, True]
    assert len({e.artifact.artifact_id for e in events}) == 1
    assert artifact_text(task) == "Hello, world"
    assert reply_text(task) == "Hello, world"
    head = await stack.ledger.head(task.id)
    assert head.state == TaskState.completed
    assert head.last_seq > events[-1].seq  # the completion comes after every chunk


async def test_the_second_task_of_a_context_sees_the_first_ones_exchange() -> None:
    recorder = Recorder()
    stack = Stack(PydanticAIAgent(Agent(recorder.model)))
    first = await send(stack, "my name is Ada")
    second = await send(stack, "what is my name?")
    assert (reply_text(first), reply_text(second)) == ("reply to my name is Ada", "reply to what is my name?")
    first_call, second_call = recorder.calls
    assert prompts(first_call) == ["my name is Ada"]
    assert prompts(second_call) == ["my name is Ada", "what is my name?"]
    assert replies(second_call) == ["reply to my name is Ada"]
    history = await stored_history(stack)
    assert prompts(history) == ["my name is Ada", "what is my name?"]
    assert replies(history) == ["reply to my name is Ada", "reply to what is my name?"]


async def test_contexts_keep_separate_histories() -> None:
    recorder = Recorder()
    stack = Stack(PydanticAIAgent(Agent(recorder.model)))
    await send(stack, "one", context_id="a")
    await send(stack, "two", context_id="b")
    assert [prompts(call) for call in recorder.calls] == [["one"], ["two"]]


async def test_two_tasks_of_one_context_running_at_once_both_keep_their_turn() -> None:
    release = asyncio.Event()

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        await release.wait()  # both runs have loaded the (empty) history by now
        yield f"reply to {prompts(messages)[-1]}"

    stack = Stack(PydanticAIAgent(Agent(FunctionModel(stream_function=stream))))
    for text in ("left", "right"):
        await stack.engine.send_message(send_params(user_message(text, context_id=CONTEXT)), CALLER)
    operations = [await stack.broker.receive(timeout=0) for _ in range(2)]
    runs = [asyncio.create_task(stack.worker.handle(op)) for op in operations if op is not None]
    await asyncio.sleep(0.05)
    release.set()
    async with asyncio.timeout(LIMIT):
        await asyncio.gather(*runs)
    history = await stored_history(stack)
    assert sorted(prompts(history)) == ["left", "right"]
    assert sorted(replies(history)) == ["reply to left", "reply to right"]


async def test_a_redelivered_turn_replaces_what_an_interrupted_attempt_recorded() -> None:
    recorder = Recorder()
    stack = Stack(PydanticAIAgent(Agent(recorder.model)))
    await send(stack, "earlier")
    await stack.engine.send_message(send_params(user_message("now", context_id=CONTEXT)), CALLER)
    operation = await stack.broker.receive(timeout=0)
    assert operation is not None
    # A first attempt of this turn saved its messages, then its worker died before completing.
    run_id = operation.run_id
    stale: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("now")], run_id=run_id)]
    await stack.context_store.update(CONTEXT, lambda current: record_turn(current, run_id=run_id, turn=stale))
    await stack.worker.handle(operation)
    assert prompts(recorder.calls[-1]) == ["earlier", "now"]
    assert prompts(await stored_history(stack)) == ["earlier", "now"]


async def test_other_state_in_the_context_is_kept() -> None:
    stack = Stack(PydanticAIAgent(Agent(TestModel())))
    await stack.context_store.update_context(CONTEXT, {"preferences": {"tone": "dry"}}, expected_version=0)
    await send(stack, "hi")
    stored = await stack.context_store.load_context(CONTEXT)
    assert stored is not None
    assert isinstance(stored.value, dict)
    assert stored.value["preferences"] == {"tone": "dry"}
    assert HISTORY_KEY in stored.value


async def test_without_streaming_the_text_is_one_whole_artifact() -> None:
    recorder = Recorder()
    stack = Stack(PydanticAIAgent(Agent(recorder.model), stream=False))
    task = await send(stack, "hi")
    events = await chunk_events(stack, task.id)
    assert [(e.append, e.last_chunk) for e in events] == [(False, True)]
    assert artifact_text(task) == reply_text(task) == "reply to hi"
    assert prompts(await stored_history(stack)) == ["hi"]


async def test_an_empty_answer_completes_without_artifact_or_message() -> None:
    async def silent(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield ""

    stack = Stack(PydanticAIAgent(Agent(FunctionModel(stream_function=silent))))
    task = await send(stack, "hi")
    assert task.status.state == TaskState.completed
    assert (task.artifacts, task.status.message) == (None, None)


class Weather(BaseModel):
    city: str
    celsius: int


async def test_structured_output_becomes_a_data_artifact() -> None:
    agent = Agent(TestModel(custom_output_args={"city": "Oslo", "celsius": 3}), output_type=Weather)
    stack = Stack(PydanticAIAgent(agent))
    task = await send(stack, "weather?")
    assert task.status.state == TaskState.completed
    assert task.status.message is None
    (artifact,) = task.artifacts or []
    assert artifact.parts == [DataPart(data={"city": "Oslo", "celsius": 3})]


async def test_a_tool_that_raises_fails_the_task_and_records_nothing() -> None:
    agent = Agent(TestModel())

    @agent.tool_plain
    def lookup(query: str) -> str:
        raise RuntimeError("the backend is down")

    stack = Stack(PydanticAIAgent(agent))
    task = await send(stack, "look it up")
    assert task.status.state == TaskState.failed
    assert reply_text(task) == AGENT_FAILED
    assert await stack.context_store.load_context(CONTEXT) is None


async def test_a_model_failure_fails_the_task_naming_its_kind() -> None:
    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise UnexpectedModelBehavior("the model said something odd")

    stack = Stack(PydanticAIAgent(Agent(FunctionModel(broken)), stream=False))
    task = await send(stack, "hi")
    assert task.status.state == TaskState.failed
    assert reply_text(task) == "The agent's model run failed (UnexpectedModelBehavior)."
    assert await stack.context_store.load_context(CONTEXT) is None


async def test_a_task_canceled_mid_stream_stops_and_records_nothing() -> None:
    first_chunk_sent, canceled = asyncio.Event(), asyncio.Event()

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield "first "
        yield "second "
        first_chunk_sent.set()
        await canceled.wait()
        yield "third"

    stack = Stack(PydanticAIAgent(Agent(FunctionModel(stream_function=stream)), debounce_by=None))
    sent = await stack.engine.send_message(send_params(user_message("hi", context_id=CONTEXT)), CALLER)
    operation = await stack.broker.receive(timeout=0)
    assert operation is not None
    run = asyncio.create_task(stack.worker.handle(operation))
    async with asyncio.timeout(LIMIT):  # a run that failed early never sets the event
        await asyncio.wait([run, asyncio.create_task(first_chunk_sent.wait())], return_when="FIRST_COMPLETED")
        assert first_chunk_sent.is_set(), run
        await stack.engine.cancel_task(TaskRef(task_id=sent.id), CALLER)
        canceled.set()
        await run
    task = await stack.ledger.load(sent.id)
    assert task.status.state == TaskState.canceled
    assert artifact_text(task) == "first "  # the next chunk found the task canceled
    assert await stack.context_store.load_context(CONTEXT) is None


async def test_deps_are_built_from_the_task_context() -> None:
    agent = Agent(TestModel(), deps_type=str)
    seen: list[str] = []

    @agent.tool
    def whoami(ctx: RunContext[str]) -> str:
        seen.append(ctx.deps)
        return ctx.deps

    stack = Stack(PydanticAIAgent(agent, deps=lambda ctx: f"deps of {ctx.context_id}"))
    assert (await send(stack, "hi")).status.state == TaskState.completed
    assert seen == [f"deps of {CONTEXT}"]


def test_a2a_messages_become_pydantic_ai_messages() -> None:
    picture = base64.b64encode(b"\x89PNG").decode()
    user = Message(
        role=Role.user,
        message_id="m1",
        parts=[
            A2ATextPart(text="look"),
            DataPart(data={"n": 1}),
            FilePart(file=FileWithBytes(bytes=picture, mime_type="image/png")),
        ],
    )
    request = to_model_message(user)
    assert isinstance(request, ModelRequest)
    (part,) = request.parts
    assert isinstance(part, UserPromptPart)
    assert part.content == ["look", '{"n": 1}', BinaryContent(data=b"\x89PNG", media_type="image/png")]
    texts = [A2ATextPart(text="a"), A2ATextPart(text="b")]
    text_only = to_model_message(user.model_copy(update={"parts": texts}))
    assert prompts([text_only]) == ["a\nb"]
    agent = to_model_message(Message(role=Role.agent, message_id="m2", parts=[A2ATextPart(text="hi")]))
    assert replies([agent]) == ["hi"]
