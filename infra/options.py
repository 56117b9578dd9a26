"""The choices a deployment makes, as small typed values the construct takes keyword-only."""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from aws_cdk import Duration
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudfront as cloudfront

from a2a_core.auth.bearer import ALLOWED_ALGORITHMS
from a2a_core.aws.resources import QUEUE

_KEY_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_AUTHORIZER_CACHE = Duration.hours(1)
DEFAULT_AUTHORIZER_CACHE = Duration.minutes(5)
_AGENT_SPEC = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


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


def check_auth(
    auth: AuthMode,
    allow_unauthenticated: bool,
    jwt: JwtIssuer | None,
    api_keys: Sequence[str],
    limits: ApiKeyLimits | None,
) -> None:
    if auth is AuthMode.NONE and not allow_unauthenticated:
        raise ConfigurationError(
            "auth=AuthMode.NONE lets anyone on the internet call the agent (and run up its bill): "
            "pass allow_unauthenticated=True to confirm that this is intended"
        )
    if auth is not AuthMode.NONE and allow_unauthenticated:
        raise ConfigurationError(
            f"allow_unauthenticated=True only confirms auth=AuthMode.NONE; with auth={auth} it would "
            "do nothing, so it is refused rather than ignored"
        )
    if (jwt is not None) != (auth is AuthMode.JWT):
        raise ConfigurationError("jwt=JwtIssuer(...) is required with auth=AuthMode.JWT, and only then")
    if jwt is not None:
        _check_jwt(jwt)
    if auth is not AuthMode.API_KEY:
        if api_keys:
            raise ConfigurationError("api_keys are only used with auth=AuthMode.API_KEY")
        return
    bad = [name for name in api_keys if not _KEY_NAME.match(name)]
    if bad or len(set(api_keys)) != len(api_keys):
        raise ConfigurationError(
            f"api_keys must be unique names of letters, digits, '-' and '_' (1-64), got {list(api_keys)}"
        )
    if limits is not None and (
        limits.rate_limit <= 0 or limits.burst_limit < 1 or (limits.quota is not None and limits.quota < 1)
    ):
        raise ConfigurationError(f"api_key_limits must be positive, got {limits}")


def _check_jwt(jwt: JwtIssuer) -> None:
    for name in ("issuer", "jwks_url"):
        value = getattr(jwt, name)
        if not value.startswith("https://"):
            raise ConfigurationError(f"jwt.{name} must be an https:// URL, got {value!r}")
    if not jwt.audience:
        raise ConfigurationError("jwt.audience must name this agent's audience (the tokens' aud)")
    refused = sorted(set(jwt.algorithms) - ALLOWED_ALGORITHMS)
    if refused or not jwt.algorithms:
        raise ConfigurationError(
            f"jwt.algorithms: {refused or 'none given'} (use asymmetric ones: RS*, PS*, ES*, EdDSA)"
        )
    if not 0 <= jwt.cache_ttl.to_seconds() <= MAX_AUTHORIZER_CACHE.to_seconds():
        raise ConfigurationError("jwt.cache_ttl must be 0-3600 seconds (API Gateway's authorizer cache)")


def check_front_door(
    front_door: FrontDoor,
    auth: AuthMode,
    streaming: StreamingMode,
    web_acl_arn: str | None,
    *,
    edge: EdgeOptions | None = None,
    custom_domain: CustomDomain | None = None,
    api_keys: Sequence[str] = (),
) -> None:
    if front_door is FrontDoor.FUNCTION_URL:
        if api_keys:
            raise ConfigurationError(
                "api_keys: behind a function URL the app checks keys from the task table; create them "
                "after deploying with `a2a-serverless keys create <name>` (no key is put in the template)"
            )
        check_function_url(auth, streaming, web_acl_arn, edge, custom_domain)
        return
    if edge is not None:
        raise ConfigurationError(
            "edge=EdgeOptions(...) puts CloudFront in front of a function URL (front_door=FrontDoor."
            "FUNCTION_URL); the REST API takes a regional web ACL directly (web_acl_arn)"
        )
    if front_door is FrontDoor.REST_API:
        return
    if auth is AuthMode.API_KEY:
        raise ConfigurationError(
            "front_door=FrontDoor.HTTP_API has no API keys: use auth=AuthMode.JWT or AuthMode.IAM, "
            "or the REST API for API keys"
        )
    if streaming is not StreamingMode.BUFFERED:
        raise ConfigurationError(
            "front_door=FrontDoor.HTTP_API cannot stream responses: use streaming=StreamingMode.BUFFERED, "
            "or the REST API for response streaming"
        )
    if web_acl_arn is not None:
        raise ConfigurationError("web_acl_arn: AWS WAF cannot be associated with an HTTP API")


_CLOUDFRONT_ACL = re.compile(r"^arn:aws[\w-]*:wafv2:us-east-1:\d{12}:global/webacl/.+")


def check_function_url(
    auth: AuthMode,
    streaming: StreamingMode,
    web_acl_arn: str | None,
    edge: EdgeOptions | None,
    custom_domain: CustomDomain | None,
) -> None:
    """What a function URL (and CloudFront in front of it) cannot do, refused with the way out."""
    if web_acl_arn is not None:
        raise ConfigurationError(
            "web_acl_arn: AWS WAF cannot be associated with a function URL; put CloudFront in front "
            "(edge=EdgeOptions(web_acl_arn=<a CLOUDFRONT-scope web ACL>))"
        )
    if edge is None:
        if custom_domain is not None:
            raise ConfigurationError(
                "custom_domain: a function URL has no custom domain; add edge=EdgeOptions() to serve "
                "it through CloudFront (whose certificate must be in us-east-1)"
            )
        return
    if auth is AuthMode.IAM:
        raise ConfigurationError(
            "edge with auth=AuthMode.IAM: CloudFront re-signs every request to the function URL as "
            "itself (origin access control), so the caller's SigV4 identity never reaches the agent; "
            "use IAM on the function URL without edge, or API keys or JWTs behind CloudFront"
        )
    if streaming is not StreamingMode.RESPONSE_STREAM:
        raise ConfigurationError(
            "edge needs streaming=StreamingMode.RESPONSE_STREAM (the function URL default): the "
            "buffered handler names the function URL, not CloudFront, as the agent's URL"
        )
    if edge.web_acl_arn is not None and not _CLOUDFRONT_ACL.match(edge.web_acl_arn):
        raise ConfigurationError(
            "edge.web_acl_arn must be a web ACL of scope CLOUDFRONT (arn:aws:wafv2:us-east-1:<account>:"
            f"global/webacl/...), got {edge.web_acl_arn!r}"
        )
    if edge.web_acl_arn is not None and not edge.waf:
        raise ConfigurationError("edge: web_acl_arn with waf=False contradicts itself")
    if edge.rate_limit_per_ip < 10:
        raise ConfigurationError("edge.rate_limit_per_ip: WAF rate-based rules count from 10 per 5 minutes")
    if custom_domain is not None and ":acm:us-east-1:" not in custom_domain.certificate_arn:
        raise ConfigurationError(
            "custom_domain with edge: CloudFront takes certificates from us-east-1 only, got "
            f"{custom_domain.certificate_arn!r}"
        )


def check_agent(agent: str, packages: Sequence[str], root: Path) -> None:
    if not _AGENT_SPEC.match(agent):
        raise ConfigurationError(f"agent must look like 'package.module:attribute', got {agent!r}")
    missing = [package for package in packages if not (root / package).is_dir()]
    if missing:
        raise ConfigurationError(f"agent_packages: {', '.join(missing)} are not directories")


def check_limits(
    streaming: StreamingMode, api: FunctionOptions, batch_size: int, max_concurrency: int, retention_days: int
) -> None:
    if (
        streaming is StreamingMode.BUFFERED
        and api.timeout.to_seconds() > BUFFERED_INTEGRATION_LIMIT.to_seconds()
    ):
        raise ConfigurationError(
            "api_function.timeout: a buffered API answers within API Gateway's 29 s; "
            "use streaming=StreamingMode.RESPONSE_STREAM for longer requests"
        )
    if not 1 <= batch_size <= 10:
        raise ConfigurationError(f"worker_batch_size must be 1-10, got {batch_size}")
    if not 2 <= max_concurrency <= 1000:
        raise ConfigurationError(
            f"worker_max_concurrency must be 2-1000 (SQS event source), got {max_concurrency}"
        )
    if retention_days < 1:
        raise ConfigurationError(f"retention_days must be at least 1, got {retention_days}")
