"""What the exercise runs (`function_trace.runner`): each Lambda function under each deployment choice
that can change what it imports."""

from __future__ import annotations

from dataclasses import dataclass

AUTH_MODES = ("api_key", "jwt", "iam", "none")
SERVERS = ("mangum", "uvicorn")
# Each function's construct id in the stack (its name in AWS_LAMBDA_FUNCTION_NAME here).
FUNCTION_NAMES = {
    "api": "Api",
    "worker": "Worker",
    "dlq": "DeadLetter",
    "push": "Push",
    "authorizer": "Authorizer",
}


class ExerciseError(AssertionError):
    """A function did not answer as it should; the message has its answer."""


@dataclass(frozen=True)
class Variant:
    """A function under one deployment's settings; ``server`` matters to the API only (uvicorn:
    response streaming behind the Lambda Web Adapter)."""

    function: str
    auth: str = "api_key"
    push: bool = True
    server: str = "mangum"

    @property
    def settings(self) -> dict[str, str]:
        """The settings that tell its traces apart (see `a2a_core.bundling.closures`)."""
        settings = {"push": "on" if self.push else "off"} if self.function in ("api", "worker", "dlq") else {}
        if self.function == "api":
            settings |= {"auth": self.auth, "server": self.server}
        return settings

    @property
    def label(self) -> str:
        return " ".join([self.function, *(f"{k}={v}" for k, v in sorted(self.settings.items()))])


# Every choice that can change what a function imports. Only the API reads the auth mode (the
# authorizer exists only for JWT) and serves through uvicorn; push adds the API's push methods.
VARIANTS: tuple[Variant, ...] = (
    *(
        Variant("api", auth, push, server)
        for auth in AUTH_MODES
        for push in (False, True)
        for server in SERVERS
    ),
    Variant("worker", push=False),
    Variant("worker"),
    Variant("dlq", push=False),
    Variant("dlq"),
    Variant("push"),
    Variant("authorizer", auth="jwt"),
)
