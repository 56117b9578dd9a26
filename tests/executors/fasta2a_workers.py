"""fasta2a workers the kit hosts unchanged (run in ``.venv-executors/fasta2a``: fasta2a 2.1.1).

`ContextWorker` is the Worker of fasta2a's own README (seed 004's shape): it keeps the
conversation as its context (``Worker[list[Message]]``) and says how long it is, and what the
first message of it was. A message ``long N`` makes it stream N chunks, slowly, so a cancel
lands while it runs; its ``cancel_task`` notes the task in ``$CANCEL_LOG``. ``pydantic_ai_app``
is ``agent_to_a2a`` of a pydantic-ai agent on a FunctionModel that answers from its history.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path
from typing import Any

from fasta2a import Worker
from fasta2a.pydantic_ai import agent_to_a2a
from fasta2a.schema import Artifact, Message, TaskIdParams, TaskSendParams
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from a2a_core.adapters.fasta2a.turn import current
from a2a_core.core.errors import StoreUnavailableError

Context = list[Message]


class ContextWorker(Worker[Context]):
    async def run_task(self, params: TaskSendParams) -> None:
        task = await self.storage.load_task(params["id"])
        assert task is not None

        await self.storage.update_task(task["id"], state="working")

        context = await self.storage.load_context(task["context_id"]) or []
        context.extend(task.get("history", []))

        text = _text(params["message"])
        if text.startswith("long "):
            for n in range(int(text.split()[1])):
                chunk = Artifact(
                    artifact_id=f"{task['id']}-draft", name="draft", parts=[{"text": f"part {n} "}]
                )
                await self.publish_artifact(
                    task["id"], task["context_id"], chunk, append=n > 0, last_chunk=False
                )
                await asyncio.sleep(0.05)

        first = _text(context[0])
        message = Message(
            role="agent",
            parts=[{"text": f"Your context is {len(context) + 1} messages long; it began: {first}"}],
            message_id=str(uuid.uuid4()),
        )
        context.append(message)

        artifacts = self.build_artifacts(len(context))
        await self.storage.update_context(task["context_id"], context)
        await self.storage.update_task(
            task["id"], state="completed", new_messages=[message], new_artifacts=artifacts
        )

    async def cancel_task(self, params: TaskIdParams) -> None:
        with open(os.environ["CANCEL_LOG"], "a") as log:  # noqa: ASYNC230 - one short line
            log.write(params["id"] + "\n")
        await self.storage.update_task(params["id"], state="canceled")

    def build_message_history(self, history: list[Message]) -> list[Any]:
        return history

    def build_artifacts(self, result: Any) -> list[Artifact]:
        return [
            Artifact(artifact_id=str(uuid.uuid4()), name="length", parts=[{"data": {"messages": result}}])
        ]


class DiesOnce(ContextWorker):
    """`ContextWorker` whose first attempt of a turn loses the store right after it stored its
    context (the kit's turn told so, as its store calls tell it): the turn runs again on a later
    delivery, as after a worker that died there. Once (``$DIED_ONCE`` marks it)."""

    async def run_task(self, params: TaskSendParams) -> None:
        storage = self.storage
        update_context = storage.update_context

        async def then_die(context_id: str, context: Context) -> None:
            await update_context(context_id, context)
            marker = Path(os.environ["DIED_ONCE"])
            if not marker.exists():  # noqa: ASYNC240 - a test's marker file
                marker.write_text(params["id"])  # noqa: ASYNC240
                lost = StoreUnavailableError("the store went away after the context was stored")
                current().ctx.attempt.interrupt(lost)
                raise lost

        storage.update_context = then_die  # type: ignore[method-assign]
        try:
            await super().run_task(params)
        finally:
            del storage.update_context


def _text(message: Message) -> str:
    return "".join(part.get("text", "") for part in message["parts"])


def recall(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """How many prompts the conversation holds, and its first one."""
    prompts = [
        part.content
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, UserPromptPart)
    ]
    return ModelResponse(parts=[TextPart(f"{len(prompts)} prompts; the first: {prompts[0]}")])


pydantic_ai_app = agent_to_a2a(Agent(FunctionModel(recall), name="recall"))
