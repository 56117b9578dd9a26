"""Failures a user fixes, said in one line with the fix: a setting, a port, an extra, credentials.

Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import errno

EXIT_USAGE = 2

# The modules each command's extra brings (top-level import names), so a missing one is named
# with the install command that adds it, and any other missing module (a broken install, a bug)
# still shows its traceback.
_LOCAL = {"uvicorn", "moto", "flask", "werkzeug", "boto3", "botocore", "aws_lambda_powertools"}
_PUSH = {"httpx", "cryptography", "joserfc", "rfc8785"}
EXTRA_MODULES: dict[str, frozenset[str]] = {
    "local": frozenset(_LOCAL | _PUSH),
    "aws": frozenset({"boto3", "botocore", "aws_lambda_powertools", *_PUSH}),
}


class CommandError(Exception):
    """What the user must change, in one line (``a2a-serverless <command>: <message>``, exit 2)."""


def missing_extra(error: ModuleNotFoundError, extra: str) -> CommandError | None:
    """The one-line error for ``error`` when ``extra`` would install the missing module; else None."""
    name = (error.name or "").partition(".")[0]
    if name not in EXTRA_MODULES[extra]:
        return None
    return CommandError(f"needs {name}, which is not installed: pip install 'a2a-serverless[{extra}]'")


def cannot_listen(host: str, port: int, error: OSError) -> CommandError:
    """Why binding ``host:port`` failed, and what to do about it."""
    where = f"{host}:{port}"
    if error.errno == errno.EADDRINUSE:
        return CommandError(
            f"port {port} on {host} is already in use (another a2a-serverless dev?): stop that "
            "process, or choose another port with --port N (--port 0 picks a free one)"
        )
    if error.errno == errno.EACCES:
        return CommandError(
            f"not allowed to listen on {where} (ports below 1024 need privileges): choose another with --port"
        )
    if error.errno == errno.EADDRNOTAVAIL:
        return CommandError(f"cannot listen on {where}: {host} is not an address of this machine (--host)")
    return CommandError(f"cannot listen on {where}: {error.strerror or error}")


def require_aws_credentials() -> None:
    """Fail now, in one line, when AWS credentials are missing (`dev --backend aws`, `keys`):
    botocore would only find out on the first call, and every call would fail."""
    from a2a_core.aws.clients import missing_credentials

    reason = missing_credentials()
    if reason is not None:
        raise CommandError(
            f"no AWS credentials ({reason}): set AWS_PROFILE to a profile of ~/.aws/config (after "
            "`aws configure` or `aws sso login`), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
            "(and AWS_SESSION_TOKEN for temporary credentials)"
        )
