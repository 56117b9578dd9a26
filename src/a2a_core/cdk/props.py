"""`A2AServiceProps`: everything an `A2AService` can be told, each with its default."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns

from a2a_core.bundling.bytecode import Bytecode
from a2a_core.cdk import checks
from a2a_core.cdk.models import BedrockModel, parse_models
from a2a_core.cdk.options import (
    API_BUFFERED,
    API_STREAM,
    DEAD_LETTER,
    DEFAULT_API_KEY_LIMITS,
    LONG_TURNS,
    WORKER,
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
    WorkerSecret,
)
from a2a_core.project import Project

# Python 3.13 runs on Amazon Linux 2023 as long as 3.14 does (deprecated 2029-06-30), with the
# wider choice of wheels for the agents' own dependencies.
DEFAULT_RUNTIME = lambda_.Runtime.PYTHON_3_13
MIN_PYTHON = (3, 11)  # the kit's own floor
DEFAULT_API_KEY = "default"


@dataclass(frozen=True, kw_only=True)
class A2AServiceProps:
    """What an `A2AService` deploys, and how. Every prop has a default: with none, the agent the
    project names (``[tool.a2a-serverless]``) is served behind a REST API with one API key.
    Inconsistent or unsafe props raise `ConfigurationError` here, naming them."""

    # --- The agent -----------------------------------------------------------------------------
    project: Project | None = None
    """The agent project (`a2a_core.project.load_project`); default: the nearest pyproject.toml
    with a ``[tool.a2a-serverless]`` table, from the directory `cdk` runs the app in."""
    environment: Mapping[str, str] | None = None
    """More variables for every function; they override the card's (``A2A_NAME``, ...) from the
    project, not the resources' (``A2A_TABLE_NAME``, ...)."""
    service_name: str = "a2a-serverless"
    """Powertools' service name in logs and metrics."""

    # --- What the agent's model needs (the worker alone) ----------------------------------------
    bedrock_models: Sequence[str] = ()
    """The Amazon Bedrock models the worker may call, as the agent names them: foundation model
    ids (``anthropic.claude-3-haiku-20240307-v1:0``) or cross-region inference profile ids
    (``us.anthropic.claude-sonnet-4-20250514-v1:0``). The worker's role gets ``bedrock:InvokeModel``
    and ``bedrock:InvokeModelWithResponseStream`` (Converse and ConverseStream authorize as these)
    on each, and on the foundation model a profile routes to, through that profile only
    (`a2a_core.cdk.models`)."""
    worker_environment: Mapping[str, str] | None = None
    """More variables for the worker function alone (the model's settings, say); not for keys:
    a value here is plain text in the template."""
    worker_secrets: Mapping[str, WorkerSecret] | None = None
    """Variable name -> a Secrets Manager secret or an SSM (SecureString) parameter: a construct,
    a secret's name or ARN, or a parameter's ARN, e.g. ``{"OPENAI_API_KEY": "openai-api-key"}``.
    The worker alone may read each, and reads them into its environment at cold start, before
    the agent is imported. The template carries their ARNs (or names), never their values."""

    # --- Who may call it -------------------------------------------------------------------------
    auth: AuthMode = AuthMode.API_KEY
    """``API_KEY``: a usage plan limits each key to ``api_key_limits``; ``JWT``: the issuer in
    ``jwt``; ``IAM``: SigV4 from principals given ``grant_invoke``; ``NONE``: anyone, confirmed
    with ``allow_unauthenticated=True``."""
    allow_unauthenticated: bool = False
    jwt: JwtIssuer | None = None
    api_keys: Sequence[str] | None = None
    """A key per name (default: one named ``default``; add more with ``add_api_key``)."""
    api_key_limits: ApiKeyLimits | None = DEFAULT_API_KEY_LIMITS

    # --- The front door ----------------------------------------------------------------------------
    front_door: FrontDoor = FrontDoor.REST_API
    """The REST API; the cheaper HTTP API (JWT, IAM or none; buffered; no WAF); or a Lambda
    function URL (no charge per request; the app checks keys and JWTs; ``edge`` adds CloudFront)."""
    streaming: StreamingMode | None = None
    """Buffered Mangum, or response streaming through the Lambda Web Adapter; default: buffered
    behind API Gateway, streaming behind a function URL."""
    edge: EdgeOptions | None = None
    custom_domain: CustomDomain | None = None
    web_acl_arn: str | None = None
    """A regional WAF web ACL for the REST API."""
    throttling_rate_limit: float = 50
    throttling_burst_limit: int = 100

    # --- The functions -----------------------------------------------------------------------------
    runtime: lambda_.Runtime = DEFAULT_RUNTIME
    """Python 3.11 or later; the bundles' wheels and bytecode are built for it."""
    architecture: lambda_.Architecture = lambda_.Architecture.ARM_64
    bytecode: Bytecode = Bytecode.AUTO
    """Compile the bundles' bytecode with an interpreter of the runtime's version if this machine
    has one (``AUTO``, else a synth warning), let uv download one (``DOWNLOAD``), or not (``OFF``)."""
    api_function: FunctionOptions | None = None
    worker_function: FunctionOptions = WORKER
    """Its timeout also sets the queue's visibility timeout and the worker's lease."""
    max_turn_seconds: float | None = None
    """The longest one turn of the agent may run, in seconds; default: the project's
    ``max_turn_seconds`` (``[tool.a2a-serverless]``), else the worker function's timeout. Turns up
    to what the worker function allows (its timeout less its safety margin) run on it; past that,
    the service adds the long-turn worker on ECS Fargate (``long_turns``), to which the worker
    hands such turns. A turn that runs out of time fails with a message naming the setting."""
    worker_package: WorkerPackage = WorkerPackage.ZIP
    """A .zip bundle (up to 250 MB unzipped), or a container image for bigger agents (Docker
    builds it at deploy)."""
    dead_letter_function: FunctionOptions = DEAD_LETTER
    long_turns: LongTurnOptions = LONG_TURNS
    """The long-turn worker's task size, Spot, network (`LongTurnOptions`)."""
    worker_batch_size: int = 10
    worker_max_concurrency: int = 10
    include_boto3: bool = False
    """Bundle the pinned boto3 instead of using the Lambda runtime's."""
    snap_start: bool = False
    """The API function resumes its cold starts from a SnapStart snapshot, taken of it initialized
    and primed (`a2a_core.functions.cold_start`) when a version is published: every front door
    invokes its alias ``live``, moved to each deploy's version. Python 3.12+, buffered API only.
    Costs a cache charge per published version and a restore charge per new environment
    (docs/benchmarks.md, "What SnapStart costs")."""
    worker_snap_start: bool = False
    """The worker function resumes its cold starts from a SnapStart snapshot, taken when a version
    is published, after the agent and its framework are imported and built: the run queue's
    event source invokes its alias ``live``. Python 3.12+, .zip worker only. The worker's secrets
    are read once, into the snapshot; the same cache and restore charges as ``snap_start``."""
    web_adapter_layer_arn: str | None = None
    code: lambda_.Code | None = None
    """One asset for every function instead of each function's own bundle (what it imports)."""

    # --- Data and operations -----------------------------------------------------------------------
    retention_days: int = 30
    """How long tasks are kept."""
    log_retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH
    tracing: bool = True
    """X-Ray: active tracing on every function and the REST API's stage, at X-Ray's default
    sampling (the first request each second, then 5%). At scale that records ~0.15 traces per
    simple task (three invocations, each a trace): ~$0.75 per million tasks (docs/benchmarks.md)."""
    alarm_topic: sns.ITopic | None = None
    """Receives every alarm."""

    def __post_init__(self) -> None:
        checks.check_auth(
            self.auth, self.allow_unauthenticated, self.jwt, self.key_names, self.api_key_limits
        )
        checks.check_front_door(
            self.front_door,
            self.auth,
            self.streaming_mode,
            self.web_acl_arn,
            edge=self.edge,
            custom_domain=self.custom_domain,
            api_keys=self.key_names,
        )
        checks.check_limits(
            self.streaming_mode,
            self.api_options,
            self.worker_batch_size,
            self.worker_max_concurrency,
            self.retention_days,
        )
        if self.code is not None and self.worker_package is WorkerPackage.CONTAINER_IMAGE:
            raise ConfigurationError(
                "code: one asset for every function is a .zip asset; leave it out to deploy the worker "
                "as a container image (worker_package=WorkerPackage.CONTAINER_IMAGE)"
            )
        if self.runtime.family != lambda_.RuntimeFamily.PYTHON or _version(self.runtime) < MIN_PYTHON:
            raise ConfigurationError(f"runtime must be Python 3.11 or later, got {self.runtime.name}")
        checks.check_snap_start(self.snap_start, _version(self.runtime), self.streaming_mode)
        checks.check_worker_snap_start(
            self.worker_snap_start,
            _version(self.runtime),
            image=self.worker_package is WorkerPackage.CONTAINER_IMAGE,
        )
        parse_models(self.bedrock_models)
        checks.check_worker_variables(self.worker_environment or {}, self.worker_secrets or {})
        checks.check_max_turn_seconds(self.max_turn_seconds)

    @property
    def key_names(self) -> tuple[str, ...]:
        """The API keys created with the service."""
        if self.api_keys is not None:
            return tuple(self.api_keys)
        default = self.auth is AuthMode.API_KEY and self.front_door is FrontDoor.REST_API
        return (DEFAULT_API_KEY,) if default else ()

    @property
    def streaming_mode(self) -> StreamingMode:
        if self.streaming is not None:
            return self.streaming
        function_url = self.front_door is FrontDoor.FUNCTION_URL
        return StreamingMode.RESPONSE_STREAM if function_url else StreamingMode.BUFFERED

    @property
    def api_options(self) -> FunctionOptions:
        if self.api_function is not None:
            return self.api_function
        return API_STREAM if self.streaming_mode is StreamingMode.RESPONSE_STREAM else API_BUFFERED

    @property
    def models(self) -> tuple[BedrockModel, ...]:
        """``bedrock_models``, parsed."""
        return parse_models(self.bedrock_models)

    @property
    def python_version(self) -> str:
        """The runtime's ``major.minor``: the wheels' ABI and the bytecode's."""
        return self.runtime.name.removeprefix("python")


def _version(runtime: lambda_.Runtime) -> tuple[int, ...]:
    return tuple(int(part) for part in runtime.name.removeprefix("python").split(".") if part.isdigit())


def latest_python() -> lambda_.Runtime:
    """The newest Python runtime this aws-cdk-lib knows (what cdk-nag's L1 rule asks for)."""
    pythons = [r for r in lambda_.Runtime.ALL if r.family == lambda_.RuntimeFamily.PYTHON]
    return max(pythons, key=_version)
