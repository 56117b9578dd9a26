"""The agent: a Google ADK `LlmAgent` with a tool, served through ADK's own A2A executor
(`A2aAgentExecutor`), which the kit hosts unchanged.

``[tool.a2a-serverless] agent`` names `agent`, a function that builds the executor: the kit
calls it once per process (in ``a2a-serverless dev``, in the worker Lambda). Each A2A context is
an ADK session, so a second task in the same context continues the conversation, whichever
worker runs it: the sessions are kept in the kit's own storage (`AdkSessionService`: DynamoDB
when deployed, the emulator in ``dev``, memory in the tests), each caller's apart.

The model is ``MODEL`` (Gemini: ``GOOGLE_API_KEY`` from a secret the worker alone reads,
``A2AServiceProps(worker_secrets={"GOOGLE_API_KEY": "my-gemini-key"})`` in app.py, or Vertex AI's
variables in ``worker_environment``) or any ADK model object (e.g.
``LiteLlm("bedrock/...")``); the tests script one (tests/scripted.py), so they run offline.
"""

import warnings

from google.adk.a2a.executor.a2a_agent_executor import A2aAgentExecutor
from google.adk.agents import LlmAgent
from google.adk.models import BaseLlm
from google.adk.runners import Runner

from a2a_core.adapters.adk import AdkSessionService

MODEL = "gemini-2.5-flash"

# ADK says on every call that its A2A support is experimental; once is enough: here.
warnings.filterwarnings("ignore", message=r"\[EXPERIMENTAL\]", category=UserWarning)


def count_words(text: str) -> dict[str, int]:
    """Count the words of a text.

    Args:
      text: the text to count the words of.
    """
    return {"words": len(text.split())}


def build_agent(model: str | BaseLlm = MODEL) -> LlmAgent:
    return LlmAgent(
        name="word_counter",
        model=model,
        instruction="Count the words of what the user asks about with the count_words tool.",
        tools=[count_words],
    )


def agent(model: str | BaseLlm = MODEL) -> A2aAgentExecutor:
    runner = Runner(app_name="word_counter", agent=build_agent(model), session_service=AdkSessionService())
    return A2aAgentExecutor(runner=runner)
