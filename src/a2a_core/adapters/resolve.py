"""What a user names as their agent (``--agent``, ``[tool.a2a-serverless] agent``, or passed to
`run_agent`, `build_worker`), made the `Agent` the worker runs. The kit tells apart:

- an async function ``agent(ctx: TaskContext)`` (or any callable taking the context and
  returning an awaitable);
- an `a2a_core.Agent` instance, or its class (made with no arguments);
- an a2a-sdk ``AgentExecutor`` instance, or its class: hosted unchanged (`a2a_core.adapters.a2a_sdk`,
  imported only then);
- a fasta2a ``Worker`` instance, or its class (made with the kit's broker and storage), or a
  ``FastA2A`` app that runs one (``fasta2a.pydantic_ai.agent_to_a2a``'s): the worker hosted
  unchanged (`a2a_core.adapters.fasta2a`, imported only then);
- a factory: a function taking no arguments that returns one of the above.

Neither a2a-sdk nor fasta2a is imported here: an executor or a worker of theirs is recognized only
when its library is already loaded (the module that defines it imported it).
"""

from __future__ import annotations

import inspect
import sys

from a2a_core.core.turn.executor import Agent, AgentExecutor, as_agent

ACCEPTED = (
    "an async function taking a TaskContext, an a2a_core.Agent (instance or class), an a2a-sdk "
    "AgentExecutor (instance or class), a fasta2a Worker (instance or class, or the FastA2A app of "
    "agent_to_a2a), or a function without arguments returning one of these"
)


def resolve_agent(target: object, *, name: str | None = None) -> Agent:
    """``target`` as the worker runs it; `TypeError` saying what is accepted for anything else
    (``name``: how to call it in that message, e.g. the ``module:attribute`` it was loaded from)."""
    label = name or repr(target)
    if isinstance(target, type) and _is_fasta2a_worker_class(target):
        from a2a_core.adapters.fasta2a import WorkerAgent

        return WorkerAgent.of_class(target, label)
    if isinstance(target, type):
        target = _instantiate(target, label)
    elif _is_factory(target):
        assert callable(target)
        target = target()
        label = f"what {label}() returned ({target!r})"
        if isinstance(target, type) or _is_factory(target):
            raise TypeError(
                f"{label} is not an agent; a factory returns an agent, not a class or another factory"
            )
    if _is_a2a_sdk_executor(target):
        from a2a_core.adapters.a2a_sdk import ExecutorAgent

        return ExecutorAgent(target)
    worker = _fasta2a_worker(target)
    if worker is not None:
        from a2a_core.adapters.fasta2a import WorkerAgent

        return WorkerAgent(worker)
    if isinstance(target, Agent | AgentExecutor) or (callable(target) and not isinstance(target, type)):
        return as_agent(target)  # a callable taking the context
    raise TypeError(f"{label} is not an agent; name {ACCEPTED}")


def is_agent(value: object) -> bool:
    """Whether ``value`` is an agent object or class (ours or a2a-sdk's), as a module defines one
    (an abstract base class imported into it is not one)."""
    if isinstance(value, type):
        agent_class = (
            issubclass(value, Agent | AgentExecutor)
            or _is_a2a_sdk_executor_class(value)
            # fasta2a's own workers (pydantic-ai's AgentWorker), imported into a module, are not its agent
            or (_is_fasta2a_worker_class(value) and not value.__module__.startswith("fasta2a."))
        )
        return agent_class and not inspect.isabstract(value)
    return (
        isinstance(value, Agent | AgentExecutor)
        or _is_a2a_sdk_executor(value)
        or _fasta2a_worker(value) is not None
    )


def _instantiate(cls: type, label: str) -> object:
    if not (issubclass(cls, Agent | AgentExecutor) or _is_a2a_sdk_executor_class(cls)):
        raise TypeError(f"{label} is a class but not an agent's; name {ACCEPTED}")
    try:
        return cls()
    except TypeError as error:
        raise TypeError(
            f"{label} cannot be made without arguments ({error}): name an instance of it, or a "
            "function without arguments that makes one"
        ) from None


def _is_factory(target: object) -> bool:
    """A plain function (not async) that takes no arguments: it makes the agent."""
    if not callable(target) or isinstance(target, type) or inspect.iscoroutinefunction(target):
        return False
    try:
        parameters = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):  # no signature to read (a builtin): not one of ours
        return False
    required = (
        p for p in parameters if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    )
    return next(required, None) is None and not hasattr(target, "run") and not hasattr(target, "execute")


def _sdk_base() -> type | None:
    """a2a-sdk's ``AgentExecutor`` if a2a-sdk is loaded (its module path is the same in 0.3 and 1.x)."""
    module = sys.modules.get("a2a.server.agent_execution.agent_executor")
    base = getattr(module, "AgentExecutor", None)
    return base if isinstance(base, type) else None


def _is_a2a_sdk_executor(target: object) -> bool:
    base = _sdk_base()
    return base is not None and isinstance(target, base)


def _is_a2a_sdk_executor_class(cls: type) -> bool:
    base = _sdk_base()
    return base is not None and issubclass(cls, base)


def _fasta2a_worker_base() -> type | None:
    """fasta2a's ``Worker`` if fasta2a is loaded."""
    base = getattr(sys.modules.get("fasta2a.worker"), "Worker", None)
    return base if isinstance(base, type) else None


def _is_fasta2a_worker_class(cls: type) -> bool:
    base = _fasta2a_worker_base()
    return base is not None and issubclass(cls, base)


def _fasta2a_worker(target: object) -> object | None:
    """The fasta2a worker ``target`` is, or the one a FastA2A app runs in its lifespan (as
    ``agent_to_a2a`` makes it: ``partial(worker_lifespan, worker=...)``); None for anything else."""
    base = _fasta2a_worker_base()
    if base is None:
        return None
    if isinstance(target, base):
        return target
    lifespan = getattr(getattr(target, "router", None), "lifespan_context", None)
    worker = getattr(lifespan, "keywords", {}).get("worker")
    return worker if isinstance(worker, base) else None
