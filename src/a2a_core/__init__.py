"""a2a-serverless: host any Python agent as a durable A2A server (1.0, 0.3 and 0.2.5) on AWS.

The agent author's API, importable from here::

    from a2a_core import TaskContext

    async def agent(ctx: TaskContext) -> str:
        return f"Echo: {ctx.text}"

`a2a_core.testing` runs an agent through the real engine in a test. Names load on first use
(PEP 562): ``import a2a_core`` costs a Lambda cold start nothing until a name is used.
"""

from a2a_core._lazy import TYPE_CHECKING, lazy_attributes

if TYPE_CHECKING:
    from typing import Any

    from a2a_core.core.errors import A2AError as A2AError
    from a2a_core.core.errors import TaskCanceledError as TaskCanceledError
    from a2a_core.core.turn.content import Content as Content
    from a2a_core.core.turn.context import TaskContext as TaskContext
    from a2a_core.core.turn.context_store import ContextConflictError as ContextConflictError
    from a2a_core.core.turn.executor import Agent as Agent
    from a2a_core.core.turn.executor import AgentExecutor as AgentExecutor
    from a2a_core.core.turn.executor import AgentFunction as AgentFunction
    from a2a_core.core.turn.hooks import FrameworkAgent as FrameworkAgent
    from a2a_core.core.turn.hooks import FrameworkExecutor as FrameworkExecutor
    from a2a_core.core.turn.hooks import artifact as artifact
    from a2a_core.domain import AgentSkill as AgentSkill
    from a2a_core.domain import Artifact as Artifact
    from a2a_core.domain import DataPart as DataPart
    from a2a_core.domain import FilePart as FilePart
    from a2a_core.domain import FileWithBytes as FileWithBytes
    from a2a_core.domain import FileWithUri as FileWithUri
    from a2a_core.domain import Message as Message
    from a2a_core.domain import Part as Part
    from a2a_core.domain import Role as Role
    from a2a_core.domain import Task as Task
    from a2a_core.domain import TaskState as TaskState
    from a2a_core.domain import TaskStatus as TaskStatus
    from a2a_core.domain import TextPart as TextPart
    from a2a_core.settings import Settings as Settings

_lazy, _names = lazy_attributes(__name__)


def __getattr__(name: str) -> "Any":
    if name == "__version__":
        from importlib.metadata import version  # not at import: it costs a cold start ~10 ms

        return version("a2a-serverless")
    return _lazy(name)


def __dir__() -> list[str]:
    return [*_names(), "__version__"]
