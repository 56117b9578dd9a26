"""The choices a deployment makes, as small typed values (`A2AServiceProps` gathers them)."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from aws_cdk import Duration
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_ssm as ssm

from a2a_core.aws.resources import QUEUE

MAX_AUTHORIZER_CACHE = Duration.hours(1)
DEFAULT_AUTHORIZER_CACHE = Duration.minutes(5)


class ConfigurationError(ValueError):
    """A construct prop is missing, inconsistent or unsafe; the message names it."""


class AuthMode(enum.Enum):
    """How callers authenticate at API Gateway (the app reads who they are from the request
    context, and the agent card declares the same scheme)."""

    # `x-api-key`, checked by API Gateway against a usage plan that also throttles each key.
    API_KEY = "api_key"
    # `Authorization: Bearer <JWT>` from any OIDC/OAuth issuer, checked by a Lambda authorizer.
    JWT = "jwt"
    # SigV4-signed requests from IAM principals granted `execute-api:Invoke`.
    IAM = "iam"
    # Anyone: needs ``allow_unauthenticated=True``.
    NONE = "none"


class FrontDoor(enum.Enum):
    # API Gateway REST API ($3.50/M requests): API keys and usage plans, response streaming, WAF.
    REST_API = "rest_api"
    # API Gateway HTTP API ($1.00/M): JWT (RSA, OIDC discovery), IAM or none; buffered; no WAF.
    HTTP_API = "http_api"
    # A Lambda function URL (free per request), response streaming by default: the app checks API
    # keys and JWTs itself, Lambda checks SigV4 (IAM); WAF through CloudFront (`EdgeOptions`).
    FUNCTION_URL = "function_url"


class StreamingMode(enum.Enum):
    # Mangum behind a buffered Lambda proxy: a stream is returned as one SSE body (29 s, 6 MB).
    BUFFERED = "buffered"
    # API Gateway REST response streaming to the same Starlette app served by uvicorn behind the
    # AWS Lambda Web Adapter layer: events reach the client as they happen (15 min).
    RESPONSE_STREAM = "response_stream"


class WorkerPackage(enum.Enum):
    """How the worker Lambda (the function that runs the agent) is packaged."""

    # A .zip bundle: the agent's code and locked dependencies, at most 250 MB unzipped (the synth
    # refuses a bigger one, naming what takes the room).
    ZIP = "zip"
    # A container image (up to 10 GB): the same bundle on AWS's Lambda Python base image, built
    # by Docker at `cdk deploy` (synth needs no Docker). For CrewAI, BeeAI, Semantic Kernel, ...
    CONTAINER_IMAGE = "container_image"


@dataclass(frozen=True)
class JwtIssuer:
    """The token issuer ``AuthMode.JWT`` trusts: tokens must carry this ``iss`` and ``aud``, a
    ``sub`` and a valid ``exp``, and be signed with one of ``algorithms`` by a key in the JWKS at
    ``jwks_url`` (for Cognito: ``https://cognito-idp.<region>.amazonaws.com/<pool id>`` with
    ``<issuer>/.well-known/jwks.json``). API Gateway caches each token's verdict for ``cache_ttl``
    (0 turns caching off); the app still refuses a cached token once its ``exp`` has passed."""

    issuer: str
    audience: str
    jwks_url: str
    algorithms: tuple[str, ...] = ("RS256", "ES256")
    cache_ttl: Duration = DEFAULT_AUTHORIZER_CACHE


@dataclass(frozen=True)
class ApiKeyLimits:
    """What each API key may send (``AuthMode.API_KEY``), on top of the stage's overall limits:
    a steady ``rate_limit`` per second with bursts of ``burst_limit``, and ``quota`` requests per
    ``quota_period`` (None: no quota). Over the limit, API Gateway answers 429."""

    rate_limit: float = 10
    burst_limit: int = 20
    quota: int | None = 100_000
    quota_period: apigw.Period = apigw.Period.DAY


DEFAULT_API_KEY_LIMITS = ApiKeyLimits()


@dataclass(frozen=True)
class EdgeOptions:
    """CloudFront in front of a function URL (``FrontDoor.FUNCTION_URL``), with WAF.

    The function URL then takes only CloudFront's signed requests (origin access control,
    ``AWS_IAM``). ``web_acl_arn`` names an existing web ACL of scope ``CLOUDFRONT`` (such ACLs
    live in us-east-1); without it, ``waf=True`` creates one (AWS managed rules and a rule
    blocking an IP above ``rate_limit_per_ip`` requests per 5 minutes), which is possible only
    in a stack deployed to us-east-1. ``waf=False`` goes without."""

    web_acl_arn: str | None = None
    waf: bool = True
    rate_limit_per_ip: int = 2000
    price_class: cloudfront.PriceClass = cloudfront.PriceClass.PRICE_CLASS_100


# Where a worker secret's value is: a Secrets Manager secret or an SSM (SecureString) parameter,
# as a construct, or as a string: a secret's name or ARN, or a parameter's ARN.
WorkerSecret = str | secretsmanager.ISecret | ssm.IParameter


@dataclass(frozen=True)
class FunctionOptions:
    memory_mb: int
    timeout: Duration


@dataclass(frozen=True)
class CustomDomain:
    """A regional API Gateway custom domain; point a CNAME or alias at the stack's
    ``CustomDomainTarget`` output. The certificate must be in the stack's region."""

    domain_name: str
    certificate_arn: str


# API Gateway's REST integration timeout (without a quota increase) and response streaming's cap.
BUFFERED_INTEGRATION_LIMIT = Duration.seconds(29)
STREAM_INTEGRATION_LIMIT = Duration.minutes(15)

API_BUFFERED = FunctionOptions(memory_mb=256, timeout=BUFFERED_INTEGRATION_LIMIT)
API_STREAM = FunctionOptions(memory_mb=256, timeout=STREAM_INTEGRATION_LIMIT)
WORKER = FunctionOptions(memory_mb=512, timeout=Duration.seconds(QUEUE.worker_timeout_seconds))
DEAD_LETTER = FunctionOptions(memory_mb=256, timeout=Duration.seconds(60))


@dataclass(frozen=True, kw_only=True)
class LongTurnOptions:
    """The long-turn worker on ECS Fargate (``A2AServiceProps.long_turns``), added when
    ``max_turn_seconds`` passes what the Lambda worker allows.

    Each turn is one Fargate task of ``cpu`` units (1024 = 1 vCPU) and ``memory_mb``, of the
    service's architecture (arm64 by default), billed per second while it runs; ``spot`` runs it
    on Fargate Spot (up to 70% less; an interruption is a crash, whose turn is taken over).
    Without ``vpc`` the service creates one of public subnets only, with no NAT gateway (which
    bills by the hour): each task gets a public IP to reach ECR, CloudWatch Logs and AWS's APIs,
    and accepts no inbound traffic. With ``vpc``, its ``subnets`` (default: its public ones, or
    the private ones with egress when ``public_ip=False``) are used."""

    cpu: int = 1024
    memory_mb: int = 2048
    ephemeral_storage_gib: int | None = None
    """None: Fargate's 20 GiB (free); 21 to 200 GiB are billed per GB-second."""
    spot: bool = False
    container_insights: bool = False
    """Per-task CPU, memory and network metrics, billed as custom metrics."""
    vpc: ec2.IVpc | None = None
    subnets: ec2.SubnetSelection | None = None
    public_ip: bool = True

    def __post_init__(self) -> None:
        sizes = FARGATE_MEMORY.get(self.cpu)
        if sizes is None:
            raise ConfigurationError(f"long_turns: cpu is one of {sorted(FARGATE_MEMORY)}, got {self.cpu}")
        if self.memory_mb not in sizes:
            raise ConfigurationError(
                f"long_turns: with cpu={self.cpu}, Fargate takes memory_mb of {_sizes(sizes)}, "
                f"got {self.memory_mb}"
            )
        storage = self.ephemeral_storage_gib
        if storage is not None and not 21 <= storage <= 200:
            raise ConfigurationError(
                f"long_turns: ephemeral_storage_gib is 21 to 200 (None: 20), got {storage}"
            )
        if self.subnets is not None and self.vpc is None:
            raise ConfigurationError("long_turns: subnets select from the vpc you pass; pass vpc too")


# Fargate's task sizes (Linux, either architecture): cpu units -> the memory_mb it takes.
FARGATE_MEMORY: dict[int, Sequence[int]] = {
    256: (512, 1024, 2048),
    512: range(1024, 4097, 1024),
    1024: range(2048, 8193, 1024),
    2048: range(4096, 16385, 1024),
    4096: range(8192, 30721, 1024),
    8192: range(16384, 61441, 4096),
    16384: range(32768, 122881, 8192),
}


def _sizes(sizes: Sequence[int]) -> str:
    if isinstance(sizes, range):
        return f"{sizes.start} to {sizes[-1]} in steps of {sizes.step}"
    return ", ".join(map(str, sizes))


LONG_TURNS = LongTurnOptions()
