"""The agent: a Microsoft Agent Framework `Agent`, served through Agent Framework's own A2A
executor (``agent_framework.a2a.A2AExecutor``), which the kit hosts unchanged.

``[tool.a2a-serverless] agent`` names `agent`, a function that builds the executor: the kit
calls it once per process (in ``a2a-serverless dev``, in the worker Lambda). With ``stream=True``
the answer reaches a client as it is written (artifact chunks); with ``stream=False``, as a
message once the model is done.

The chat client is yours to choose (``agent-framework-openai``'s ``OpenAIChatClient``,
``agent-framework-bedrock``, ...: ``uv add`` it, and set its keys in the worker's environment,
``A2AServiceProps(environment=...)`` in app.py); the tests script one (tests/scripted.py), so
they run offline. Agent Framework's executor starts a fresh session for every task: each task is
a conversation of its own.
"""

from agent_framework import Agent, BaseChatClient
from agent_framework.a2a import A2AExecutor

INSTRUCTIONS = "Count the words of the user's message, and say how many there are."


def build_agent(client: BaseChatClient) -> Agent:
    return client.as_agent(name="word_counter", instructions=INSTRUCTIONS)


def agent(client: BaseChatClient | None = None, *, stream: bool = True) -> A2AExecutor:
    if client is None:
        raise RuntimeError(
            "no chat client: build one in agent() in agent.py (e.g. agent_framework.openai's "
            "OpenAIChatClient()), or run the tests' scripted one: a2a-serverless dev --agent scripted:agent "
            "(with tests on PYTHONPATH)"
        )
    return A2AExecutor(build_agent(client), stream=stream)
