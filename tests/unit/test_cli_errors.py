"""The one-line errors of the command line say what to do, and leave bugs their tracebacks."""

from __future__ import annotations

import errno
import os

import pytest

from a2a_core.cli.errors import cannot_listen, missing_extra


@pytest.mark.parametrize(
    ("code", "says"),
    [
        (errno.EADDRINUSE, "port 80 on 127.0.0.1 is already in use"),
        (errno.EACCES, "not allowed to listen on 127.0.0.1:80 (ports below 1024 need privileges)"),
        (errno.EADDRNOTAVAIL, "127.0.0.1 is not an address of this machine (--host)"),
        (errno.ENOBUFS, "cannot listen on 127.0.0.1:80: No buffer space available"),
    ],
)
def test_why_a_port_cannot_be_listened_on(code: int, says: str) -> None:
    error = OSError(code, os.strerror(code))
    assert says in str(cannot_listen("127.0.0.1", 80, error))


def test_a_missing_extra_is_named_only_for_modules_the_extra_brings() -> None:
    moto = ModuleNotFoundError("No module named 'moto.server'", name="moto.server")
    assert str(missing_extra(moto, "local")) == (
        "needs moto, which is not installed: pip install 'a2a-serverless[local]'"
    )
    assert missing_extra(moto, "aws") is None  # `keys` does not use moto
    assert missing_extra(ModuleNotFoundError("x", name="pandas"), "local") is None
    assert missing_extra(ModuleNotFoundError("x", name="a2a_core.dev"), "local") is None
