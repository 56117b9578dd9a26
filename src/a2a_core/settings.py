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

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from a2a_core.types import AgentProvider, AgentSkill

ENV_PREFIX = "A2A_"


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

    # The agent: "package.module:attribute", an AgentExecutor or an async function.
    agent: str = "a2a_core.examples.echo:agent"
    # memory: this process only; local: moto's server started in-process (the dev default);
    # aws: real AWS resources named below.
    backend: Literal["memory", "local", "aws"] = "memory"

    # AWS resources (backend "aws"; "local" fills them in itself).
    aws_region: str = "us-east-1"
    aws_endpoint_url: str | None = None
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
    push_enabled: bool = False
    streaming_enabled: bool = True
    # Incremental streams (uvicorn, Lambda response streaming) send a comment this often while
    # the agent is quiet, so proxies keep the connection open.
    stream_keepalive_seconds: float = Field(default=15.0, gt=0)
    # Buffered streams (Mangum on API Gateway, which cannot stream) collect events for at most
    # this long, then answer; the client resubscribes with Last-Event-ID to continue.
    stream_buffer_seconds: float = Field(default=25.0, gt=0, le=28.0)

    # Worker.
    lease_seconds: float = Field(default=900.0, gt=0)

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


def _decode(name: str, raw: str, annotation: Any) -> Any:
    text = str(annotation)
    if any(marker in text for marker in ("list", "dict", "Agent")):
        try:
            return json.loads(raw)
        except json.JSONDecodeError as error:
            raise SettingsError(f"{ENV_PREFIX}{name.upper()} must be JSON: {error}") from None
    return raw
