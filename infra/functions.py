"""The service's Lambda functions: a code asset, one environment, a role and log group each.

Each function gets its own role with no managed policy: it may write to its own log group and
send X-Ray traces, and everything else is granted to it by `A2AService`, resource by resource.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.options import FunctionOptions

RUNTIME = lambda_.Runtime.PYTHON_3_11
# Construct id of each function -> its name in `infra.closures` (and under functions/).
BUNDLES = {"Api": "api", "Worker": "worker", "DeadLetter": "dlq", "Push": "push", "Authorizer": "authorizer"}


class ServiceFunctions(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        code: Callable[[str], lambda_.Code],
        architecture: lambda_.Architecture,
        environment: Mapping[str, str],
        log_retention: logs.RetentionDays,
    ) -> None:
        super().__init__(scope, id)
        self._code = code  # bundle name (`BUNDLES`) -> the function's code asset
        self._architecture = architecture
        self._environment = dict(environment)
        self._log_retention = log_retention
        self.functions: dict[str, lambda_.Function] = {}
        self.log_groups: dict[str, logs.LogGroup] = {}

    def add(
        self,
        name: str,
        *,
        handler: str,
        options: FunctionOptions,
        description: str,
        environment: Mapping[str, str] | None = None,
        layers: Sequence[lambda_.ILayerVersion] = (),
    ) -> lambda_.Function:
        role = iam.Role(
            self,
            f"{name}Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"{description} (a2a-serverless)",
        )
        log_group = logs.LogGroup(self, f"{name}Logs", retention=self._log_retention)
        function = lambda_.Function(
            self,
            name,
            description=description,
            runtime=RUNTIME,
            architecture=self._architecture,
            code=self._code(BUNDLES[name]),
            handler=handler,
            memory_size=options.memory_mb,
            timeout=options.timeout,
            role=role,
            log_group=log_group,
            tracing=lambda_.Tracing.ACTIVE,
            environment={**self._environment, **(environment or {})},
            layers=list(layers),
        )
        log_group.grant_write(role)
        self.functions[name] = function
        self.log_groups[name] = log_group
        return function

    def set_environment(self, key: str, value: str) -> None:
        """Add a variable to every function, those that exist and those added later."""
        self._environment[key] = value
        for function in self.functions.values():
            function.add_environment(key, value)
