"""The props that cannot work together or are unsafe, refused with the way out."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from a2a_core.auth.bearer import ALLOWED_ALGORITHMS
from a2a_core.cdk.options import (
    BUFFERED_INTEGRATION_LIMIT,
    MAX_AUTHORIZER_CACHE,
    ApiKeyLimits,
    AuthMode,
    ConfigurationError,
    CustomDomain,
    EdgeOptions,
    FrontDoor,
    FunctionOptions,
    JwtIssuer,
    StreamingMode,
)

_KEY_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


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


def check_worker_snap_start(worker_snap_start: bool, python: tuple[int, ...], image: bool) -> None:
    if not worker_snap_start:
        return
    if python < (3, 12):
        raise ConfigurationError(
            "worker_snap_start=True: Lambda SnapStart runs Python 3.12 and later; set runtime"
        )
    if image:
        raise ConfigurationError(
            "worker_snap_start=True needs worker_package=WorkerPackage.ZIP: SnapStart snapshots "
            "functions of a managed runtime, and the CDK refuses it for a container image"
        )


def check_snap_start(snap_start: bool, python: tuple[int, ...], streaming: StreamingMode) -> None:
    if not snap_start:
        return
    if python < (3, 12):
        raise ConfigurationError("snap_start=True: Lambda SnapStart runs Python 3.12 and later; set runtime")
    if streaming is not StreamingMode.BUFFERED:
        raise ConfigurationError(
            "snap_start=True needs streaming=StreamingMode.BUFFERED: with response streaming the app "
            "runs in a process of the Lambda Web Adapter's, which SnapStart's hooks do not reach (its "
            "connections and credentials would not be renewed after a restore)"
        )


_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Lambda's reserved variables ("Defined runtime environment variables"): a function may not set
# them, and a secret replacing one would replace the function's own credentials or runtime.
LAMBDA_RESERVED = frozenset(
    {
        "_HANDLER",
        "_X_AMZN_TRACE_ID",
        "AWS_DEFAULT_REGION",
        "AWS_REGION",
        "AWS_EXECUTION_ENV",
        "AWS_LAMBDA_FUNCTION_NAME",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
        "AWS_LAMBDA_FUNCTION_VERSION",
        "AWS_LAMBDA_INITIALIZATION_TYPE",
        "AWS_LAMBDA_LOG_GROUP_NAME",
        "AWS_LAMBDA_LOG_STREAM_NAME",
        "AWS_ACCESS_KEY",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_LAMBDA_RUNTIME_API",
        "LAMBDA_TASK_ROOT",
        "LAMBDA_RUNTIME_DIR",
    }
)


def check_worker_variables(environment: Mapping[str, str], secrets: Mapping[str, object]) -> None:
    """The worker's own variables: names a process can have and Lambda lets a function set, no
    name given both as a value and as a secret, and no secret for a setting of the kit's
    (``A2A_*``: read before the secrets are)."""
    for prop, names in (("worker_environment", list(environment)), ("worker_secrets", list(secrets))):
        bad = [name for name in names if not isinstance(name, str) or not _VARIABLE.match(name)]
        reserved = [name for name in names if name in LAMBDA_RESERVED]
        if bad or reserved:
            raise ConfigurationError(
                f"{prop}: {bad + reserved} cannot name a variable of the worker (letters, digits and "
                "'_', not starting with a digit; Lambda reserves AWS_REGION, AWS_ACCESS_KEY_ID, ...)"
            )
    kit = sorted(name for name in secrets if name.upper().startswith("A2A_"))
    if kit:
        raise ConfigurationError(
            f"worker_secrets: {kit} are the kit's settings, read before the worker resolves its secrets; "
            "a secret is for the agent (OPENAI_API_KEY, GOOGLE_API_KEY, ...)"
        )
    both = sorted(set(environment) & set(secrets))
    if both:
        raise ConfigurationError(f"{both} are given both in worker_environment and in worker_secrets")
    for name, where in secrets.items():
        if isinstance(where, str) and not (_SECRET_ARN.match(where) or _SECRET_NAME.match(where)):
            raise ConfigurationError(
                f"worker_secrets: {name}: {where!r} names no secret: give a Secrets Manager secret's name "
                "or ARN, an SSM parameter's ARN, or the secret or parameter construct"
            )


_SECRET_ARN = re.compile(
    r"^arn:aws[\w-]*:(secretsmanager:[\w-]+:\d{12}:secret:|ssm:[\w-]+:\d{12}:parameter/).+"
)
# Secrets Manager's names: letters, digits and /_+=.@- (an ARN is told apart by its prefix).
_SECRET_NAME = re.compile(r"^(?!arn:)[A-Za-z0-9/_+=.@-]{1,512}$")


def check_max_turn_seconds(seconds: float | None) -> None:
    """``max_turn_seconds``: a positive number of seconds, a day at most."""
    from a2a_core.settings import MAX_TURN_SECONDS

    if seconds is not None and not 0 < seconds <= MAX_TURN_SECONDS:
        raise ConfigurationError(
            f"max_turn_seconds: a turn may run for 1 s to {MAX_TURN_SECONDS} s (a day), not {seconds}"
        )
