"""Host a `pydantic_ai.Agent` as an A2A agent (``pip install 'a2a-serverless[pydantic-ai]'``):
``PydanticAIAgent(Agent(...))``.

Each task is one agent run. The agent's message history for the whole A2A context (the
conversation) is kept in the context store, so the second task of a context sees the first one's
exchange even when another Lambda ran it. Text output is streamed as chunks of one artifact
(``append`` / ``lastChunk``) and the task completes with the full text; other output types become
a data artifact. A model failure pydantic-ai reports (`AgentRunError`: usage limits, unexpected
model behaviour, provider errors) fails the task naming its kind; any other exception, such as
one raised by a tool, fails it with the worker's generic message.

Runs are idempotent under redelivery: each run uses the turn's ``run_id``, and a retried turn
replaces what an earlier, interrupted attempt recorded instead of adding to it: its messages in
the context store (here), its streamed chunks and progress in the task (every read of a task
shows the last attempt's output; the streamed artifact keeps its id across attempts, so a client
that saw the interrupted attempt's chunks sees them replaced).
"""

from __future__ import annotations

import base64
import json
import logging
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from pydantic import JsonValue
from pydantic_ai.agent import AbstractAgent
from pydantic_ai.exceptions import AgentRunError
from pydantic_ai.messages import (
    AudioUrl,
    BinaryContent,
    DocumentUrl,
    ImageUrl,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    UserContent,
    UserPromptPart,
    VideoUrl,
)
from pydantic_ai.messages import TextPart as ModelTextPart
from pydantic_core import to_jsonable_python

from a2a_core.core.turn.content import Content
from a2a_core.core.turn.context import TaskContext
from a2a_core.core.turn.hooks import FrameworkAgent, artifact
from a2a_core.domain import Artifact, DataPart, FilePart, FileWithBytes, Message, Part, Role, TextPart

# The context value is a JSON object; the agent's history sits under this key, so an agent may
# keep other state of its own beside it.
HISTORY_KEY = "pydantic_ai_messages"

logger = logging.getLogger(__name__)

_URL_TYPES: dict[str, type[ImageUrl | AudioUrl | VideoUrl | DocumentUrl]] = {
    "image": ImageUrl,
    "audio": AudioUrl,
    "video": VideoUrl,
}


@dataclass(frozen=True)
class RunOutcome:
    output: Any
    # The text already reached the client as artifact chunks.
    streamed: bool = False


class PydanticAIAgent(FrameworkAgent[ModelMessage, RunOutcome]):
    def __init__(
        self,
        agent: AbstractAgent[Any, Any],
        *,
        stream: bool = True,
        debounce_by: float | None = 0.1,
        artifact_name: str = "response",
        deps: Callable[[TaskContext], Any] | None = None,
    ) -> None:
        """Serve ``agent``. ``stream`` emits text output as it arrives, in chunks grouped over
        ``debounce_by`` seconds (each chunk is one durable write; None: one per model delta).
        ``deps`` builds the run's dependencies from the task's context."""
        self.agent = agent
        self.stream = stream
        self.debounce_by = debounce_by
        self.artifact_name = artifact_name
        self.deps = deps

    def build_message_history(self, history: list[Message]) -> list[ModelMessage]:
        return [to_model_message(message) for message in history]

    async def invoke(self, history: list[ModelMessage], ctx: TaskContext) -> RunOutcome:
        # An earlier attempt of this turn (its worker died after saving) is replaced, not repeated.
        earlier = [m for m in load_history(await ctx.load_context()) if m.run_id != ctx.run_id]
        options: dict[str, Any] = {
            "message_history": [*earlier, *history],
            "run_id": ctx.run_id,
            "conversation_id": ctx.context_id,
        }
        if self.deps is not None:
            options["deps"] = self.deps(ctx)
        try:
            if self.stream and self.agent.output_type is str:
                outcome, messages = await self._run_streamed(ctx, options)
            else:
                result = await self.agent.run(**options)
                outcome, messages = RunOutcome(result.output), result.all_messages()
        except AgentRunError as error:
            logger.warning("pydantic-ai run of task %s failed: %r", ctx.task_id, error)
            await ctx.fail(f"The agent's model run failed ({type(error).__name__}).")
            return RunOutcome(None)
        # This turn: the task's messages we passed in, then whatever the run added.
        turn = [replace(m, run_id=m.run_id or ctx.run_id) for m in messages[len(earlier) :]]
        await ctx.change_context(partial(record_turn, run_id=ctx.run_id, turn=turn))
        return outcome

    def build_artifacts(self, result: RunOutcome) -> list[Artifact]:
        if result.streamed or result.output in (None, ""):
            return []
        if isinstance(result.output, str):
            return [artifact(result.output, name=self.artifact_name)]
        data = to_jsonable_python(result.output)
        return [artifact(data if isinstance(data, dict) else {"result": data}, name=self.artifact_name)]

    def build_reply(self, result: RunOutcome) -> Content | None:
        return result.output if isinstance(result.output, str) and result.output else None

    async def _run_streamed(
        self, ctx: TaskContext, options: dict[str, Any]
    ) -> tuple[RunOutcome, list[ModelMessage]]:
        async with self.agent.run_stream(**options) as result:
            artifact_id: str | None = None
            held: str | None = None  # one delta behind, so the last chunk can say it is the last
            async for delta in result.stream_text(delta=True, debounce_by=self.debounce_by):
                if not delta:
                    continue
                if held is not None:
                    artifact_id = await self._chunk(ctx, held, artifact_id, last=False)
                held = delta
            if held is not None:
                artifact_id = await self._chunk(ctx, held, artifact_id, last=True)
            output = await result.get_output()
            return RunOutcome(output, streamed=artifact_id is not None), result.all_messages()

    async def _chunk(self, ctx: TaskContext, text: str, artifact_id: str | None, *, last: bool) -> str:
        return await ctx.artifact(
            text,
            artifact_id=artifact_id,
            name=self.artifact_name,
            append=artifact_id is not None,
            last_chunk=last,
        )


def __getattr__(name: str) -> Any:
    if name == "PydanticAIExecutor":  # its name before the kit's agents were `Agent`s
        warnings.warn(
            "PydanticAIExecutor is deprecated: use PydanticAIAgent (the same class)",
            DeprecationWarning,
            stacklevel=2,
        )
        return PydanticAIAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_history(value: JsonValue | None) -> list[ModelMessage]:
    """The pydantic-ai messages stored in a context value ([] when there are none)."""
    if not isinstance(value, dict):
        return []
    return ModelMessagesTypeAdapter.validate_python(value.get(HISTORY_KEY) or [])


def record_turn(current: JsonValue | None, *, run_id: str, turn: Sequence[ModelMessage]) -> JsonValue:
    """``current`` with ``turn`` appended to its history, minus any earlier attempt of ``run_id``.

    Appends to what is stored *now*, not to what the run started from: a task of the same
    context that finished meanwhile keeps its turn.
    """
    value = dict(current) if isinstance(current, dict) else {}
    kept = [m for m in load_history(value) if m.run_id != run_id]
    stored: JsonValue = ModelMessagesTypeAdapter.dump_python([*kept, *turn], mode="json")
    value[HISTORY_KEY] = stored
    return value


def to_model_message(message: Message) -> ModelMessage:
    """An A2A message as pydantic-ai sees it: a user prompt, or a text response of the agent."""
    if message.role == Role.user:
        content = [_user_content(part) for part in message.parts]
        texts = [c for c in content if isinstance(c, str)]
        prompt = "\n".join(texts) if len(texts) == len(content) else content
        return ModelRequest(parts=[UserPromptPart(prompt)])
    return ModelResponse(parts=[ModelTextPart(content=_text(part)) for part in message.parts])


def _user_content(part: Part) -> UserContent:
    if isinstance(part, FilePart):
        file = part.file
        media_type = file.mime_type or "application/octet-stream"
        if isinstance(file, FileWithBytes):
            return BinaryContent(data=base64.b64decode(file.bytes), media_type=media_type)
        url_type = _URL_TYPES.get(media_type.partition("/")[0], DocumentUrl)
        return url_type(url=file.uri, media_type=file.mime_type)
    return _text(part)


def _text(part: Part) -> str:
    if isinstance(part, TextPart):
        return part.text
    if isinstance(part, DataPart):
        return json.dumps(part.data)
    return f"[file: {part.file.name}]" if part.file.name else "[file]"
