"""The agent service as a CDK construct: ``from a2a_core.cdk import A2AService``.

    from aws_cdk import App, Stack
    from a2a_core.cdk import A2AService

    app = App()
    A2AService(Stack(app, "MyAgent"), "Agent")  # the agent pyproject.toml names
    app.synth()

`A2AServiceProps` holds every choice (auth, front door, runtime, ...); `A2AStack` is one service
with the outputs a client needs. Needs the ``cdk`` extra (``pip install 'a2a-serverless[cdk]'``).
"""

try:
    import aws_cdk as _aws_cdk  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "a2a_core.cdk needs aws-cdk-lib: install the cdk extra (pip install 'a2a-serverless[cdk]')"
    ) from error

from a2a_core.bundling.bytecode import Bytecode
from a2a_core.cdk.options import (
    ApiKeyLimits,
    AuthMode,
    ConfigurationError,
    CustomDomain,
    EdgeOptions,
    FrontDoor,
    FunctionOptions,
    JwtIssuer,
    LongTurnOptions,
    StreamingMode,
    WorkerPackage,
)
from a2a_core.cdk.props import A2AServiceProps
from a2a_core.cdk.service import A2AService
from a2a_core.cdk.stack import A2AStack
from a2a_core.project import Project, ProjectError, find_project, load_project

__all__ = [
    "A2AService",
    "A2AServiceProps",
    "A2AStack",
    "ApiKeyLimits",
    "AuthMode",
    "Bytecode",
    "ConfigurationError",
    "CustomDomain",
    "EdgeOptions",
    "FrontDoor",
    "FunctionOptions",
    "JwtIssuer",
    "LongTurnOptions",
    "Project",
    "ProjectError",
    "StreamingMode",
    "WorkerPackage",
    "find_project",
    "load_project",
]
