"""``a2a-serverless dev --lambda-timeout``: a number of seconds Lambda allows, on the local backend."""

from __future__ import annotations

import argparse

import pytest

from a2a_core.cli import dev
from a2a_core.core.turn.executor import FunctionAgent
from a2a_core.dev.stack import build_dev_stack
from a2a_core.examples.echo import agent
from a2a_core.settings import Settings, SettingsError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    dev.add_parser(parser.add_subparsers())
    return parser


def test_the_flag_takes_seconds_lambda_allows() -> None:
    assert _parser().parse_args(["dev", "--lambda-timeout", "3"]).lambda_timeout == 3.0
    assert _parser().parse_args(["dev"]).lambda_timeout is None


@pytest.mark.parametrize("value", ["0", "901", "soon"])
def test_a_timeout_lambda_cannot_have_is_refused(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _parser().parse_args(["dev", "--lambda-timeout", value])
    assert "--lambda-timeout" in capsys.readouterr().err


def test_it_is_for_the_local_backend() -> None:
    with pytest.raises(SettingsError, match="--lambda-timeout is for the local backend"):
        build_dev_stack(
            Settings(backend="memory", allow_unauthenticated=True), FunctionAgent(agent), lambda_timeout=3
        )
