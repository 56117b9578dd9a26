"""The choices a deployment makes, as small typed values the construct takes keyword-only."""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from aws_cdk import Duration

from a2a_core.aws.resources import QUEUE

_AGENT_SPEC = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


class ConfigurationError(ValueError):
    """A construct prop is missing, inconsistent or unsafe; the message names it."""


class AuthMode(enum.Enum):
    """How callers authenticate at API Gateway. The real modes (API key, JWT, IAM) come with the
    security issue; until then the only mode is ``NONE``, which needs ``allow_unauthenticated``."""

    NONE = "none"


class StreamingMode(enum.Enum):
    # Mangum behind a buffered Lambda proxy: a stream is returned as one SSE body (29 s, 6 MB).
    BUFFERED = "buffered"
    # API Gateway REST response streaming to the same Starlette app served by uvicorn behind the
    # AWS Lambda Web Adapter layer: events reach the client as they happen (15 min).
    RESPONSE_STREAM = "response_stream"


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


def check_auth(auth: AuthMode, allow_unauthenticated: bool) -> None:
    if auth is AuthMode.NONE and not allow_unauthenticated:
        raise ConfigurationError(
            "auth=AuthMode.NONE lets anyone on the internet call the agent (and run up its bill): "
            "pass allow_unauthenticated=True to confirm that this is intended"
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
