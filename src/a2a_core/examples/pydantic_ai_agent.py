"""A pydantic-ai agent served over A2A, offline: its "model" is a function that answers from the
conversation so far, so you can watch the history carry over between tasks of one context.

    a2a-serverless dev --agent a2a_core.examples.pydantic_ai_agent:agent

Serve a real model the same way: ``PydanticAIAgent(Agent("openai:gpt-5.2", ...))`` with the
provider's extra installed and its API key in the environment.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from a2a_core.adapters.pydantic_ai import PydanticAIAgent

WORD_DELAY = 0.03  # seconds between streamed words, so a client sees several chunks


def user_prompts(messages: list[ModelMessage]) -> list[str]:
    """The text of every user prompt in ``messages``, oldest first."""
    return [
        part.content
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, UserPromptPart) and isinstance(part.content, str)
    ]


def reply(messages: list[ModelMessage]) -> str:
    *earlier, latest = user_prompts(messages) or [""]
    text = f'You said "{latest}".'
    return text + "".join(f' Before that: "{prompt}".' for prompt in reversed(earlier))


def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart(reply(messages))])


async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    for word in re.findall(r"\S+\s*", reply(messages)):
        yield word
        await asyncio.sleep(WORD_DELAY)


agent = PydanticAIAgent(Agent(FunctionModel(respond, stream_function=stream), name="history-echo"))
