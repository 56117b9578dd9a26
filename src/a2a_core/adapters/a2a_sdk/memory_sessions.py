"""One warning when a hosted framework executor keeps its conversations in process memory.

In Lambda, the next turn of a task, or the next task of a context, usually runs in another worker
process; a framework session kept in memory is then gone, with no error (ADK's
``InMemorySessionService``, a Strands agent without a session manager, an Agent Framework agent
without a history provider that persists). Each framework's executor is looked at by its class;
what cannot be told yet (a factory that builds the runner or the agents on first use) is looked
at again after a turn. The warning is logged once per process, however often the executor is
built (``--worker fresh`` builds it every turn).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

logger = logging.getLogger("a2a_core.frameworks")

FIX = "docs/frameworks.md#conversations-across-workers"

# A check's answer: what is kept in memory (a sentence), None when nothing is, or UNDECIDED.
UNDECIDED = ""  # not yet known: a factory builds what holds the sessions at the first turn


def _adk(executor: Any) -> str | None:
    runner = getattr(executor, "_runner", None)
    service = getattr(runner, "session_service", None)
    if service is None:
        return UNDECIDED  # a runner factory: resolved at the first turn
    if _named(service, "InMemorySessionService"):
        return (
            "the ADK Runner's session service is InMemorySessionService: a context's session lives in "
            "this worker process only; give the Runner a session service that persists"
        )
    return None


def _strands(executor: Any) -> str | None:
    if getattr(executor, "agent", None) is not None:
        return (
            "StrandsA2AExecutor(agent=...) keeps each context's messages, and a pending interrupt, in "
            "this worker process only; pass an agent_factory whose agents have a session manager "
            "that persists"
        )
    agents = [entry.agent for entry in getattr(executor, "_contexts", {}).values()]
    if not agents:
        return UNDECIDED  # agent_factory: its agents are built at the first turn
    if any(getattr(agent, "_session_manager", None) is None for agent in agents):
        return (
            "the agents StrandsA2AExecutor's agent_factory builds have no session_manager: a context's "
            "messages, and a pending interrupt, live in this worker process only; give them a session "
            "manager that persists"
        )
    return None


def _agent_framework(executor: Any) -> str | None:
    providers = getattr(getattr(executor, "_agent", None), "context_providers", [])
    persisted = [
        p
        for p in providers
        if _named(p, "HistoryProvider")
        and not _named(p, "InMemoryHistoryProvider")
        and getattr(p, "load_messages", False)
    ]
    if not persisted:
        return (
            "Agent Framework's A2AExecutor starts a new session for every task and the agent has no "
            "history provider that persists, so a context's next task does not see the earlier ones' "
            "messages; give the agent context_providers=[a2a_core.adapters.agent_framework."
            "ContextHistoryProvider()]"
        )
    return None


# The executors of the frameworks the kit knows, by the module and name of their class.
CHECKS: dict[str, Callable[[Any], str | None]] = {
    "google.adk.a2a.executor.a2a_agent_executor.A2aAgentExecutor": _adk,
    "strands.multiagent.a2a.executor.StrandsA2AExecutor": _strands,
    "agent_framework_a2a._a2a_executor.A2AExecutor": _agent_framework,
}

_warned: set[str] = set()  # this process's warnings: each is logged once


def check(executor: object) -> bool:
    """Warn (once per process) if ``executor`` keeps its conversations in memory; False when it
    cannot be told yet (call again after a turn), True once decided."""
    for cls in type(executor).__mro__:
        found = CHECKS.get(f"{cls.__module__}.{cls.__qualname__}")
        if found is None:
            continue
        verdict = found(executor)
        if verdict == UNDECIDED:
            return False
        if verdict and verdict not in _warned:
            _warned.add(verdict)
            logger.warning(
                "%s (in Lambda the next turn usually runs in another worker, and what was kept in "
                "memory is lost without an error; see %s)",
                verdict,
                FIX,
            )
        return True
    return True


def _named(value: object, name: str) -> bool:
    return any(cls.__name__ == name for cls in type(value).__mro__)
