"""The agent: a Microsoft Agent Framework `Agent`, served through Agent Framework's own A2A
executor (``agent_framework.a2a.A2AExecutor``), which the kit hosts unchanged.

``[tool.a2a-serverless] agent`` names `agent`, a function that builds the executor: the kit
calls it once per process (in ``a2a-serverless dev``, in the worker Lambda). With ``stream=True``
the answer reaches a client as it is written (artifact chunks); with ``stream=False``, as a
message once the model is done.

Each A2A context is one conversation: the executor opens a session per task, named by the
contextId, and the agent's history provider (the kit's ``ContextHistoryProvider``) keeps the
session's messages in the kit's own store (DynamoDB when deployed, moto in ``dev``), so a later
task of the context continues it, whichever worker runs it.

The chat client is yours to choose (``agent-framework-openai``'s ``OpenAIChatClient``,
``agent-framework-bedrock``, ...: ``uv add`` it, and give the worker its key from a secret,
``A2AServiceProps(worker_secrets={"OPENAI_API_KEY": "my-openai-key"})`` in app.py); the tests
script one (tests/scripted.py), so they run offline.
"""

from agent_framework import Agent, BaseChatClient
from agent_framework.a2a import A2AExecutor

from a2a_core.adapters.agent_framework import ContextHistoryProvider
from a2a_core.settings import SettingsError

INSTRUCTIONS = "Count the words of the user's message, and say how many there are."


def build_agent(client: BaseChatClient) -> Agent:
    return client.as_agent(
        name="word_counter", instructions=INSTRUCTIONS, context_providers=[ContextHistoryProvider()]
    )


def agent(client: BaseChatClient | None = None, *, stream: bool = True) -> A2AExecutor:
    if client is None:
        # A SettingsError is said in one line by a2a-serverless (no traceback): nothing is broken,
        # a choice is still to be made.
        raise SettingsError(
            "no chat client: build one in agent() in agent.py (e.g. agent_framework.openai's "
            "OpenAIChatClient()), or serve the tests' scripted one: a2a-serverless dev --agent "
            "scripted:agent (with tests on PYTHONPATH)"
        )
    return A2AExecutor(build_agent(client), stream=stream)
