"""Which warnings hosting a framework's executor logs about conversations kept in process memory,
run in that framework's environment (``python memory_warnings.py adk|strands|agent-framework``):
prints one JSON object, each case's warnings (``a2a_core.frameworks``' log lines) in order.

Each case hosts the executor as the kit does (`resolve_agent`, twice: a fresh worker resolves it
again each turn, and must not warn again); where the framework builds what holds its sessions on
first use (Strands' ``agent_factory``), that is done as a turn does it, then looked at again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import tempfile
import warnings
from collections.abc import Callable
from typing import Any

from a2a_core.adapters.a2a_sdk import memory_sessions
from a2a_core.adapters.resolve import resolve_agent


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.getMessage()}")


def _hosted(make: Callable[[], Any], after_turn: Callable[[Any], Any] | None = None) -> list[str]:
    """The warnings of hosting what ``make`` builds, twice, then of a turn's building (if any)."""
    handler = _Lines()
    logger = logging.getLogger("a2a_core.frameworks")
    logger.addHandler(handler)
    memory_sessions._warned.clear()
    try:
        for _ in range(2):
            executor = make()
            resolve_agent(executor)
        if after_turn is not None:
            asyncio.run(after_turn(executor))
            memory_sessions.check(executor)
            memory_sessions.check(executor)
    finally:
        logger.removeHandler(handler)
    return handler.lines


def adk() -> dict[str, list[str]]:
    from google.adk.a2a.executor.a2a_agent_executor import A2aAgentExecutor
    from google.adk.agents import LlmAgent
    from google.adk.runners import Runner
    from google.adk.sessions import BaseSessionService, InMemorySessionService

    methods = {name: _nothing for name in BaseSessionService.__abstractmethods__}
    persisting = type("Persisting", (BaseSessionService,), methods)

    def executor(service: Any) -> Any:
        model = LlmAgent(name="counter", model="gemini-2.5-flash")
        runner = Runner(app_name="counter", agent=model, session_service=service)
        return A2aAgentExecutor(runner=runner)

    return {
        "in_memory": _hosted(lambda: executor(InMemorySessionService())),
        "persisting": _hosted(lambda: executor(persisting())),
    }


def strands() -> dict[str, list[str]]:
    from strands import Agent
    from strands.multiagent.a2a import StrandsA2AExecutor
    from strands.session.file_session_manager import FileSessionManager

    warnings.simplefilter("ignore", DeprecationWarning)  # agent=... is deprecated: said elsewhere
    folder = tempfile.mkdtemp()

    def persisted(context_id: str) -> Any:
        manager = FileSessionManager(session_id=context_id, storage_dir=folder)
        return Agent(callback_handler=None, session_manager=manager)

    async def first_turn(executor: Any) -> None:
        await executor._acquire_context_agent("context-1")  # what a turn of the context builds

    return {
        "single_agent": _hosted(lambda: StrandsA2AExecutor(agent=Agent(callback_handler=None))),
        "factory": _hosted(
            lambda: StrandsA2AExecutor(agent_factory=lambda _: Agent(callback_handler=None)), first_turn
        ),
        "factory_with_session_manager": _hosted(
            lambda: StrandsA2AExecutor(agent_factory=persisted), first_turn
        ),
    }


def agent_framework() -> dict[str, list[str]]:
    from agent_framework import Agent, BaseChatClient, HistoryProvider
    from agent_framework.a2a import A2AExecutor

    class Client(BaseChatClient):
        def _inner_get_response(self, **kwargs: Any) -> Any:
            raise NotImplementedError

    class Kept(HistoryProvider):
        async def get_messages(self, session_id: str | None, **kwargs: Any) -> list[Any]:
            return []

        async def save_messages(self, session_id: str | None, messages: Any, **kwargs: Any) -> None:
            return None

    return {
        "no_provider": _hosted(lambda: A2AExecutor(Agent(Client(), name="counter"))),
        "persisting_provider": _hosted(
            lambda: A2AExecutor(Agent(Client(), name="counter", context_providers=[Kept("kept")]))
        ),
    }


def _nothing(*args: Any, **kwargs: Any) -> None:
    """A persisting session service's method: never called here."""


CASES = {"adk": adk, "strands": strands, "agent-framework": agent_framework}

if __name__ == "__main__":
    print(json.dumps(CASES[sys.argv[1]]()))
