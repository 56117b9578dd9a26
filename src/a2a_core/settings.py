"""One validated settings object for every entry point, read from ``A2A_*`` variables.

Composition roots (`functions/*/handler.py`, the CLI) call `Settings.from_env()`; core code only
ever receives a `Settings`. Loading is a few lines over pydantic rather than pydantic-settings,
which would add ~0.1 s to every Lambda cold start.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from a2a_core.domain import AgentProvider, AgentSkill
from a2a_core.domain.scalars import DEFAULT_FILE_URI_SCHEMES, SCHEME

ENV_PREFIX = "A2A_"


# Tenant names whose `/{tenant}/...` paths collide with the app's: `/tasks/tasks` would be task
# "tasks"; the others are public resources of the REST API front door, whose paths API Gateway
# never hands to the `{proxy+}` beside them.
RESERVED_TENANTS = frozenset({"tasks", ".well-known", "healthz", "docs"})


# The longest turn a project may ask for (max_turn_seconds): a Fargate task has no limit, but a
# turn that runs for longer than a day is a job, not a turn.
MAX_TURN_SECONDS = 24 * 3600


class SettingsError(ValueError):
    """Configuration is missing or malformed; the message names the variable."""


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # Agent card.
    name: str = "A2A Agent"
    description: str = "An agent served by a2a-serverless."
    version: str = "0.1.0"
    public_url: str | None = None
    provider: AgentProvider | None = None
    skills: list[AgentSkill] = Field(default_factory=list)
    documentation_url: str | None = None
    default_input_modes: list[str] = Field(default_factory=lambda: ["text/plain", "application/json"])
    default_output_modes: list[str] = Field(default_factory=lambda: ["text/plain", "application/json"])
    # How long clients and caches may keep a card (Cache-Control max-age; spec 8.6.1). A card
    # changes with a deploy: after one, clients see the new card within this long.
    card_cache_seconds: int = Field(default=300, ge=0, le=86_400)

    # The agent: "package.module:attribute" naming an async function, an Agent, an a2a-sdk
    # AgentExecutor (either's class), or a function returning one.
    agent: str = "a2a_core.examples.echo:agent"
    # memory: this process only; local: moto's server started in-process (the dev default);
    # aws: real AWS resources named below.
    backend: Literal["memory", "local", "aws"] = "memory"

    # AWS resources (backend "aws"; "local" fills them in itself).
    aws_region: str = "us-east-1"
    aws_endpoint_url: str | None = None
    # How the functions call DynamoDB, SQS and KMS: the kit's lean client (a2a_core.aws.json_client,
    # ~90 ms less of a cold start) or botocore's, the way back should the lean one misbehave.
    aws_client: Literal["lean", "botocore"] = "lean"
    table_name: str | None = None
    queue_url: str | None = None
    dlq_url: str | None = None
    bucket_name: str | None = None
    retention_days: int = Field(default=30, gt=0)
    # Commits whose JSON is larger than this go to S3 (DynamoDB items stop at 400 KB).
    offload_threshold_bytes: int = Field(default=300_000, gt=1024, le=380_000)

    # Protocol behaviour.
    max_body_bytes: int = Field(default=6 * 1024 * 1024, gt=0)
    default_blocking: bool = True
    blocking_timeout_seconds: float = Field(default=25.0, ge=0, le=28.0)
    # The longest an A2A 1.1 GetTask with currentGeneration is held (API Gateway answers within
    # 29 s, so a buffered front door must keep it under that; a streaming one allows more).
    long_poll_seconds: float = Field(default=25.0, ge=0, le=900.0)
    push_enabled: bool = False
    # KMS key (ECC_NIST_P256, SIGN_VERIFY) that signs push JWTs; its public key is the JWKS.
    push_signing_key_id: str | None = None
    # More KMS keys whose public keys the JWKS publishes (the next or previous key of a rotation).
    push_published_key_ids: list[str] = Field(default_factory=list)
    # Local development only: also accept loopback webhooks, plain http among them.
    push_allow_insecure_loopback: bool = False
    # When not empty, webhooks must be on these domains (or their subdomains).
    push_allowed_domains: list[str] = Field(default_factory=list)
    push_max_configs_per_task: int = Field(default=10, ge=1, le=100)
    # status: input-required, auth-required and terminal states; all: every status and artifact.
    push_events: Literal["status", "all"] = "status"
    # Where undeliverable notifications go (an SQS queue), with what a replay needs.
    push_dlq_url: str | None = None
    push_timeout_seconds: float = Field(default=5.0, gt=0, le=30.0)
    push_max_attempts: int = Field(default=3, ge=1, le=10)
    push_backoff_seconds: float = Field(default=0.5, ge=0, le=10.0)
    # Lifetime of a notification's JWT (receivers also bound its age).
    push_token_ttl_seconds: int = Field(default=300, ge=30, le=3600)
    streaming_enabled: bool = True
    # Also read fasta2a 2.x's message/send and message/stream: 0.3 method names with 1.0-shaped
    # messages (parts without `kind`, which the 0.3 schema refuses), answered as fasta2a reads
    # them (a2a_core.protocol.v0.fasta2a). Off: such a message is -32602, as 0.3 says.
    fasta2a_compat: bool = False
    # Incremental streams (uvicorn, Lambda response streaming) send a comment this often while
    # the agent is quiet, so proxies keep the connection open.
    stream_keepalive_seconds: float = Field(default=15.0, gt=0)
    # Buffered streams (Mangum on API Gateway, which cannot stream) collect events for at most
    # this long, then answer; the client resubscribes with Last-Event-ID to continue.
    stream_buffer_seconds: float = Field(default=25.0, gt=0, le=28.0)

    # Security (README "Security"). none must be confirmed with allow_unauthenticated.
    auth_mode: Literal["none", "api_key", "jwt", "iam"] = "none"
    allow_unauthenticated: bool = False
    # api_key served directly (dev): key id -> key. Behind API Gateway the usage plan checks keys.
    api_keys: dict[str, SecretStr] = Field(default_factory=dict)
    # jwt served directly: the issuer's keys from a URL or a file, checked against these.
    jwt_issuer: str | None = None
    jwt_audience: str | None = None
    jwt_jwks_url: str | None = None
    jwt_jwks_file: str | None = None
    jwt_algorithms: list[str] = Field(default_factory=lambda: ["RS256", "ES256"])
    jwt_leeway_seconds: float = Field(default=30.0, ge=0, le=300.0)
    # Only behind the Lambda Web Adapter, which overwrites this header with API Gateway's context.
    trust_request_context_header: bool = False
    # function_url: nothing in front checks API keys or JWTs, so the app does (keys hashed in the
    # task table, per-key rate limits); IAM callers still come from the URL's AWS_IAM check.
    front_door: Literal["api_gateway", "function_url"] = "api_gateway"
    # API keys behind a function URL: how long a key lookup is reused (a revoked key keeps
    # working this long), and each key's default rate limit (a key may carry its own).
    api_key_cache_seconds: float = Field(default=60.0, ge=0, le=3600)
    api_key_rate_limit: float = Field(default=10.0, gt=0, le=10_000)
    api_key_burst_limit: int = Field(default=20, ge=1, le=100_000)
    # How long an instance may spend tokens it leased in one write (see a2a_core.auth.rate_limit).
    api_key_lease_seconds: float = Field(default=1.0, gt=0, le=60)
    # Skills only authenticated callers see, on GET /agent/authenticatedExtendedCard.
    extended_skills: list[AgentSkill] = Field(default_factory=list)
    # A2A 1.0 tenant: None serves no tenant (a request naming one is refused); set, the card's
    # interfaces carry it and requests naming it (or none) are served.
    tenant: str | None = Field(default=None, min_length=1, pattern=r"^[A-Za-z0-9._~-]+$")
    max_parts_per_message: int = Field(default=100, ge=1)
    max_text_part_chars: int = Field(default=200_000, ge=1)
    # Larger historyLength values (and an omitted one) are clamped to this.
    max_history_length: int = Field(default=1000, ge=1)
    # URI schemes a client's FilePart may point at (the card lists them); others are -32602.
    file_uri_schemes: list[str] = Field(default_factory=lambda: list(DEFAULT_FILE_URI_SCHEMES))
    # Signs ListTasks page tokens. Every instance serving one agent must share it (the stack sets
    # it); unset, the memory and local backends use a key of the process and the aws backend one
    # derived from the table name (stable, but not secret): see README "ListTasks".
    page_token_secret: SecretStr | None = Field(default=None, min_length=16)

    # Worker.
    # Variable name -> the ARN (or name) of the Secrets Manager secret or SSM parameter holding its
    # value: the worker reads each into its environment at cold start (a2a_core.aws.secrets).
    worker_secrets: dict[str, str] = Field(default_factory=dict)
    lease_seconds: float = Field(default=900.0, gt=0)
    # How long a turn runs before the worker has its queue message come back just after the lease
    # should the worker die (one SQS ChangeMessageVisibility per turn that runs longer). 0, the
    # default: at once, so every turn whose worker dies is resumed just after its lease. More saves
    # that request on shorter turns, and a worker dying in them has its turn resumed only when the
    # queue's visibility timeout (6x the worker's timeout) ends.
    recovery_hold_after_seconds: float = Field(default=0.0, ge=0)
    # The longest one turn may run ([tool.a2a-serverless] max_turn_seconds). None: what the Lambda
    # worker's invocation allows (15 minutes at most). More than that, with the long-turn worker
    # deployed, and turns run there (a2a_core.core.turn.long_turns); without it, the Lambda
    # worker's limit still applies and a turn out of time fails naming this setting.
    max_turn_seconds: float | None = Field(default=None, gt=0, le=MAX_TURN_SECONDS)
    # The long-turn worker's lease: renewed every third of it while the agent works, so a worker
    # that died has its turn taken over this long (and a few seconds) after its last heartbeat.
    long_turn_lease_seconds: float = Field(default=60.0, ge=3, le=3600)
    # How long a launched long-turn worker may take to start and claim its turn before the run
    # queue's consumer launches another (Fargate starts a task in tens of seconds).
    long_turn_start_seconds: float = Field(default=180.0, ge=1, le=3600)

    # The long-turn worker on ECS Fargate (a2a_core.aws.ecs_launcher): where the run queue's
    # consumer starts one task per turn longer than the Lambda worker allows. Unset: no long turns.
    long_turn_cluster: str | None = None  # the cluster's ARN (or name)
    long_turn_task_definition: str | None = None  # the task definition's ARN (family:revision)
    long_turn_subnets: list[str] = Field(default_factory=list)  # awsvpc: where the task's ENI goes
    long_turn_security_groups: list[str] = Field(default_factory=list)
    # A public IP lets a task in a public subnet reach ECR, CloudWatch and AWS's APIs without a
    # NAT gateway (which bills by the hour); off for private subnets with their own egress.
    long_turn_public_ip: bool = True
    long_turn_container: str = "worker"  # the container whose environment carries the turn
    # fargate: on-demand; fargate_spot: up to 70% cheaper, may be interrupted (the turn is taken over).
    long_turn_capacity: Literal["fargate", "fargate_spot"] = "fargate"

    @field_validator("long_turn_subnets", "long_turn_security_groups")
    @classmethod
    def _vpc_ids(cls, ids: list[str], info: ValidationInfo) -> list[str]:
        prefix = "subnet-" if info.field_name == "long_turn_subnets" else "sg-"
        bad = [value for value in ids if not value.startswith(prefix)]
        if bad:
            raise ValueError(f"not {prefix}... ids: {bad}")
        return ids

    @field_validator("file_uri_schemes")
    @classmethod
    def _schemes(cls, schemes: list[str]) -> list[str]:
        lowered = [scheme.lower() for scheme in schemes]
        bad = [scheme for scheme in lowered if not SCHEME.match(scheme)]
        if bad:
            raise ValueError(f"not URI schemes: {bad}")
        return list(dict.fromkeys(lowered))

    @field_validator("jwt_algorithms")
    @classmethod
    def _algorithms(cls, algorithms: list[str]) -> list[str]:
        if not algorithms:  # the JWT library would fall back to its own defaults
            raise ValueError("name at least one algorithm the issuer signs with (RS256, ES256, ...)")
        return algorithms

    @field_validator("tenant")
    @classmethod
    def _tenant(cls, tenant: str | None) -> str | None:
        if tenant in RESERVED_TENANTS:
            raise ValueError(
                f"{tenant!r} cannot be a tenant: its /{tenant}/... paths collide with the agent's own "
                f"(reserved: {', '.join(sorted(RESERVED_TENANTS))})"
            )
        return tenant

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from ``A2A_<FIELD>`` variables (JSON for lists and objects), then overrides."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            raw = environ.get(ENV_PREFIX + name.upper())
            if raw is None:
                continue
            values[name] = _decode(name, raw, field.annotation)
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls.model_validate(values)
        except ValidationError as error:
            problems = "; ".join(
                f"{ENV_PREFIX}{str(e['loc'][0]).upper()}: {e['msg']}" for e in error.errors(include_url=False)
            )
            raise SettingsError(f"invalid configuration: {problems}") from None

    def to_env(self) -> dict[str, str]:
        """These settings as the ``A2A_*`` variables `from_env` reads back (secrets in clear: for
        a child process's environment only, as dev's long-turn worker gets them)."""
        env: dict[str, str] = {}
        for name, field in type(self).model_fields.items():
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, SecretStr):
                value = value.get_secret_value()
            if any(marker in str(field.annotation) for marker in ("list", "dict", "Agent")):
                dumped = json.dumps(_plain(value), separators=(",", ":"))
            else:
                dumped = str(value).lower() if isinstance(value, bool) else str(value)
            env[ENV_PREFIX + name.upper()] = dumped
        return env


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def _decode(name: str, raw: str, annotation: Any) -> Any:
    text = str(annotation)
    if any(marker in text for marker in ("list", "dict", "Agent")):
        try:
            return json.loads(raw)
        except json.JSONDecodeError as error:
            raise SettingsError(f"{ENV_PREFIX}{name.upper()} must be JSON: {error}") from None
    return raw
