"""The service's Lambda functions: a code asset, one environment, a role and log group each.

Each function gets its own role with no managed policy: it may write to its own log group and
send X-Ray traces (with tracing on), and everything else is granted to it by `A2AService`,
resource by resource.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import cast

from aws_cdk import Acknowledgment, Aws, Duration, Fn, Stack, Validations
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_ssm as ssm
from constructs import Construct

from a2a_core.cdk import web_adapter, worker_image
from a2a_core.cdk.options import (
    AuthMode,
    ConfigurationError,
    FunctionOptions,
    JwtIssuer,
    StreamingMode,
    WorkerSecret,
)
from a2a_core.cdk.queues import RunQueues
from a2a_core.cdk.storage import TaskStorage

# Read by the JWKS endpoint (API) and the push signer: the KMS key that signs push JWTs.
SIGNING_KEY_ENV = "A2A_PUSH_SIGNING_KEY_ID"
# The worker's alone: variable name -> the ARN of the secret (or SSM parameter) holding its value.
WORKER_SECRETS_ENV = "A2A_WORKER_SECRETS"
# What the service sets on its functions itself (`service_environment`, the public URL, push).
SERVICE_VARIABLES = frozenset(
    {
        "A2A_BACKEND",
        "A2A_AUTH_MODE",
        "A2A_ALLOW_UNAUTHENTICATED",
        "A2A_AWS_REGION",
        "A2A_AGENT",
        "A2A_TABLE_NAME",
        "A2A_BUCKET_NAME",
        "A2A_QUEUE_URL",
        "A2A_DLQ_URL",
        "A2A_RETENTION_DAYS",
        "A2A_LEASE_SECONDS",
        "A2A_MAX_TURN_SECONDS",
        "POWERTOOLS_SERVICE_NAME",
        "A2A_PUBLIC_URL",
        "A2A_PUSH_ENABLED",
        SIGNING_KEY_ENV,
        WORKER_SECRETS_ENV,
    }
)
SNAP_START_PUBLISH = "Annotation::@aws-cdk/aws-lambda:snapStartRequirePublish"
# Fetching the issuer's JWKS is bounded at 5 s; a verdict otherwise takes milliseconds.
AUTHORIZER = FunctionOptions(memory_mb=256, timeout=Duration.seconds(10))
# Construct id of each function -> its name in `a2a_core.bundling.closures` and `a2a_core.functions`.
BUNDLES = {"Api": "api", "Worker": "worker", "DeadLetter": "dlq", "Push": "push", "Authorizer": "authorizer"}


class ServiceFunctions(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        code: Callable[[str], lambda_.Code],
        runtime: lambda_.Runtime,
        architecture: lambda_.Architecture,
        environment: Mapping[str, str],
        log_retention: logs.RetentionDays,
        tracing: bool = True,
    ) -> None:
        super().__init__(scope, id)
        self._tracing = lambda_.Tracing.ACTIVE if tracing else lambda_.Tracing.DISABLED
        self._code = code  # bundle name (`BUNDLES`) -> the function's code asset
        self._runtime = runtime
        self._architecture = architecture
        self._environment = dict(environment)
        self._log_retention = log_retention
        self.functions: dict[str, lambda_.Function] = {}
        self.log_groups: dict[str, logs.LogGroup] = {}
        # What runs as the worker elsewhere (the long-turn worker's container) and so follows
        # every variable the worker gets: each is called with (name, value).
        self.followers: list[Callable[[str, str], None]] = []
        self.worker_environment: dict[str, str] = {}
        self.worker_secrets: dict[str, secretsmanager.ISecret | ssm.IParameter] = {}

    def add(
        self,
        name: str,
        *,
        handler: str,
        options: FunctionOptions,
        description: str,
        environment: Mapping[str, str] | None = None,
        layers: Sequence[lambda_.ILayerVersion] = (),
        image: bool = False,
        snap_start: lambda_.SnapStartConf | None = None,
    ) -> lambda_.Function:
        """``image``: the code is a container image, which names its own handler and runtime."""
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
            runtime=lambda_.Runtime.FROM_IMAGE if image else self._runtime,
            architecture=self._architecture,
            code=self._code(BUNDLES[name]),
            handler=lambda_.Handler.FROM_IMAGE if image else handler,
            memory_size=options.memory_mb,
            timeout=options.timeout,
            role=role,
            log_group=log_group,
            tracing=self._tracing,
            environment={**self._environment, **(environment or {})},
            layers=list(layers) or None,  # an empty list is layers to Lambda, which images refuse
            snap_start=snap_start,
        )
        log_group.grant_write(role)
        self.functions[name] = function
        self.log_groups[name] = log_group
        return function

    def set_environment(self, key: str, value: str, *, skip: Sequence[str] = ()) -> None:
        """Add a variable to every function, those that exist (but the ones named in ``skip``)
        and those added later."""
        self._environment[key] = value
        for name, function in self.functions.items():
            if name not in skip:
                function.add_environment(key, value)
        if "Worker" not in skip:
            for follow in self.followers:
                follow(key, value)

    def add_api(
        self,
        options: FunctionOptions,
        *,
        streaming: StreamingMode,
        signing_key_id: str,
        layers: Sequence[lambda_.ILayerVersion] = (),
        snap_start: bool = False,
    ) -> lambda_.Function:
        """The API function: Mangum when buffered; uvicorn behind the Web Adapter ``layers`` when
        streaming. It knows the signing key's id for the JWKS endpoint. With ``snap_start`` its
        published versions are snapshotted (`live_alias` is what callers must invoke)."""
        description = "A2A JSON-RPC API and agent card"
        signing_key = {SIGNING_KEY_ENV: signing_key_id}  # for the JWKS endpoint
        if streaming is StreamingMode.BUFFERED:
            return self.add(
                "Api",
                handler="a2a_core.functions.api.handler.handler",
                options=options,
                description=description,
                environment=signing_key,
                snap_start=lambda_.SnapStartConf.ON_PUBLISHED_VERSIONS if snap_start else None,
            )
        return self.add(
            "Api",
            handler=web_adapter.HANDLER,
            options=options,
            description=f"{description} (response streaming)",
            layers=layers,
            environment={**signing_key, **web_adapter.ENVIRONMENT},
        )

    def live_alias(self, name: str) -> lambda_.Alias:
        """``live``: the current version of the function ``name`` (``Api``, ``Worker``), published
        by every deploy that changes the function (its code, configuration or environment), which
        SnapStart snapshots; callers invoke the alias, never ``$LATEST`` (which SnapStart does not
        serve)."""
        function = self.functions[name]
        alias = lambda_.Alias(self, f"{name}Live", alias_name="live", version=function.current_version)
        # CDK warns of SnapStart on any function, in case nothing publishes it: this alias does.
        Validations.of(function).acknowledge(
            Acknowledgment(id=SNAP_START_PUBLISH, reason=f"{name}Live publishes each deploy's version")
        )
        return alias

    def add_authorizer(self, jwt: JwtIssuer) -> lambda_.Function:
        return self.add(
            "Authorizer",
            handler="a2a_core.functions.authorizer.handler.handler",
            options=AUTHORIZER,
            description="Checks bearer JWTs for API Gateway (issuer, audience, JWKS signature, expiry)",
            environment={
                "A2A_JWT_ISSUER": jwt.issuer,
                "A2A_JWT_AUDIENCE": jwt.audience,
                "A2A_JWT_JWKS_URL": jwt.jwks_url,
                "A2A_JWT_ALGORITHMS": json.dumps(list(jwt.algorithms)),
            },
        )

    def add_worker(
        self,
        options: FunctionOptions,
        *,
        image: bool = False,
        environment: Mapping[str, str] | None = None,
        secrets: Mapping[str, WorkerSecret] | None = None,
        snap_start: bool = False,
        max_turn_seconds: float | None = None,
    ) -> lambda_.Function:
        """``image``: the worker's code is a container image (`a2a_core.cdk.worker_image`);
        ``max_turn_seconds``: the project's longest turn (None: the function's timeout).
        ``environment`` is the worker's alone; ``secrets`` too: the worker gets each one's ARN
        (``A2A_WORKER_SECRETS``) and may read it, and reads it at cold start (`a2a_core.aws.secrets`).
        With ``snap_start`` its published versions are snapshotted (`live_alias`)."""
        found = {name: self._secret(name, where) for name, where in (secrets or {}).items()}
        variables = worker_variables(self, environment or {}, found)
        if max_turn_seconds is not None:
            variables["A2A_MAX_TURN_SECONDS"] = f"{max_turn_seconds:g}"
        function = self.add(
            "Worker",
            handler=worker_image.HANDLER,
            options=options,
            description="Runs the agent, one turn per SQS run operation",
            environment=variables,
            image=image,
            snap_start=lambda_.SnapStartConf.ON_PUBLISHED_VERSIONS if snap_start else None,
        )
        for secret in found.values():
            secret.grant_read(function)
        self.worker_environment = {**self._environment, **variables}
        self.worker_secrets = found
        return function

    def _secret(self, name: str, where: WorkerSecret) -> secretsmanager.ISecret | ssm.IParameter:
        """``where`` as a construct: a name or an ARN (checked by the props) is imported."""
        if not isinstance(where, str):
            return where
        if where.startswith("arn:") and where.split(":")[2] == "ssm":
            return ssm.StringParameter.from_string_parameter_arn(self, f"{name}Parameter", where)
        if where.startswith("arn:"):
            return secretsmanager.Secret.from_secret_complete_arn(self, f"{name}Secret", where)
        return secretsmanager.Secret.from_secret_name_v2(self, f"{name}Secret", where)

    def add_dead_letter(self, options: FunctionOptions) -> lambda_.Function:
        return self.add(
            "DeadLetter",
            handler="a2a_core.functions.dlq.handler.handler",
            options=options,
            description="Fails the task of a run operation that reached the dead-letter queue",
        )


def worker_variables(
    scope: Construct,
    environment: Mapping[str, str],
    secrets: Mapping[str, secretsmanager.ISecret | ssm.IParameter],
) -> dict[str, str]:
    """The worker's own variables: ``environment``, and where each of ``secrets`` is."""
    clashes = sorted(set(environment) & SERVICE_VARIABLES)
    if clashes:
        raise ConfigurationError(f"worker_environment: {', '.join(clashes)} are set by A2AService itself")
    if not secrets:
        return dict(environment)
    # Only the ARNs (tokens, resolved by CloudFormation): the values stay in Secrets Manager or SSM.
    where = {name: _secret_id(secret) for name, secret in secrets.items()}
    return {**environment, WORKER_SECRETS_ENV: Stack.of(scope).to_json_string(where)}


def _secret_id(secret: secretsmanager.ISecret | ssm.IParameter) -> str:
    parameter_arn = getattr(secret, "parameter_arn", None)  # jsii interfaces are not classes
    if parameter_arn is not None:
        return str(parameter_arn)
    secret = cast(secretsmanager.ISecret, secret)
    # A secret imported by name has no complete ARN (its random suffix is unknown): its name
    # finds it, where a partial ARN could match another secret's.
    return secret.secret_full_arn or secret.secret_name


def service_environment(
    storage: TaskStorage,
    queues: RunQueues,
    *,
    auth: AuthMode,
    allow_unauthenticated: bool,
    agent: str,
    retention_days: int,
    worker: FunctionOptions,
    service_name: str,
    extra: Mapping[str, str] | None,
) -> dict[str, str]:
    """What every function's environment holds: the service's own variables, which ``extra``
    (the deployer's) may not override, and ``extra``."""
    owned = {
        "A2A_BACKEND": "aws",
        # The app refuses to start without auth unless the opt-out reaches it too.
        "A2A_AUTH_MODE": auth.value,
        "A2A_ALLOW_UNAUTHENTICATED": str(allow_unauthenticated).lower(),
        "A2A_AWS_REGION": Stack.of(storage).region,
        "A2A_AGENT": agent,
        "A2A_TABLE_NAME": storage.table.table_name,
        "A2A_BUCKET_NAME": storage.bucket.bucket_name,
        "A2A_QUEUE_URL": queues.queue.queue_url,
        "A2A_DLQ_URL": queues.dead_letters.queue_url,
        "A2A_RETENTION_DAYS": str(retention_days),
        # A worker's claim on a turn lives as long as the worker may run.
        "A2A_LEASE_SECONDS": str(int(worker.timeout.to_seconds())),
        "POWERTOOLS_SERVICE_NAME": service_name,
    }
    assert set(owned) <= SERVICE_VARIABLES, sorted(set(owned) - SERVICE_VARIABLES)
    clashes = sorted(set(owned) & set(extra or {}))
    if clashes:
        raise ConfigurationError(f"environment: {', '.join(clashes)} are set by A2AService itself")
    return {**DEFAULT_ENVIRONMENT, **(extra or {}), **owned}


# What ``extra`` may replace. ListTasks page tokens are signed with a key every API instance
# shares: the GUID of the stack's id, unique per stack, the same on every deploy, and never
# shown to callers (pass your own A2A_PAGE_TOKEN_SECRET to choose it).
DEFAULT_ENVIRONMENT = {"A2A_PAGE_TOKEN_SECRET": Fn.select(2, Fn.split("/", Aws.STACK_ID))}
