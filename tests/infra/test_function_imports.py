"""Each function's bundle is what it imports: the recorded closures match a fresh trace, and the
pieces that turn a trace into a bundle do what they say."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from a2a_core.bundling import closures
from a2a_core.bundling.wheels import prune_packages
from a2a_core.cdk import web_adapter
from function_trace import stage
from function_trace.runner import Run, Variant
from function_trace.tracing import differences, needed_modules, trace, traced


def test_the_recorded_closures_are_what_the_functions_import_now() -> None:
    """Cold-starts every function variant on moto and serves its requests (about a minute). If
    this fails, an import changed: run ``python -m function_trace --write`` and review the
    difference it makes to a2a_core/bundling/function_imports.json."""
    stale = differences(closures.load(), trace())
    assert not stale, "\n".join(stale)


def test_only_signature_checkers_carry_cryptography() -> None:
    recorded = closures.load()
    crypto = {"cryptography", "cffi", "pycparser", "joserfc"}
    for item in recorded:
        checks_signatures = item.function == "authorizer" or item.settings.get("auth") == "jwt"
        assert bool(crypto & item.distributions) == checks_signatures, item
    assert all("aws_lambda_powertools.event_handler" not in item.packages for item in recorded)
    api_key = closures.closure("api", {"auth": "api_key", "server": "mangum"}, traced=recorded)
    assert "aws-lambda-powertools" not in api_key.distributions


def _traced(function: str, distributions: set[str], **settings: str) -> closures.Traced:
    return closures.Traced(function, settings, frozenset(distributions), frozenset())


def test_a_closure_is_the_union_of_the_variants_its_settings_leave_open() -> None:
    recorded = [
        _traced("api", {"pydantic"}, auth="api_key", push="off"),
        _traced("api", {"pydantic", "httpx"}, auth="api_key", push="on"),
        _traced("api", {"pydantic", "joserfc"}, auth="jwt", push="on"),
    ]
    assert closures.closure("api", {"auth": "api_key"}, traced=recorded).distributions == {
        "pydantic",
        "httpx",
    }
    assert closures.closure("api", {"auth": "api_key", "push": "off"}, traced=recorded).distributions == {
        "pydantic"
    }
    with pytest.raises(closures.ClosureError, match="function_trace --write"):
        closures.closure("api", {"auth": "iam"}, traced=recorded)


def _run(modules: dict[str, list[bool]], imports: list[tuple[str, str]]) -> Run:
    return Run(Variant("push"), math.nan, [], math.nan, [], modules, modules, imports, math.nan)


def test_an_optional_import_that_failed_is_not_needed() -> None:
    """httpx tries its command line, which imports click and then fails on rich: click stays
    loaded, but nothing loaded imported it."""
    module, package = [False, True], [True, True]
    run = _run(
        {
            "__main__": module,
            "a2a_core": package,
            "a2a_core.functions": package,
            "a2a_core.functions.push": package,
            "httpx": package,
            "click": package,
        },
        [
            ("__main__", "a2a_core.functions.push"),
            ("a2a_core.functions.push", "httpx"),
            ("httpx._main", "click"),
        ],
    )
    assert needed_modules(run) == {
        "__main__",
        "a2a_core",
        "a2a_core.functions",
        "a2a_core.functions.push",
        "httpx",
    }
    owners = {"httpx": "httpx", "click": "click"}
    assert traced(run, owners).distributions == {"httpx"}


def test_pruning_keeps_exactly_the_imported_packages(tmp_path: Path) -> None:
    top = tmp_path / "aws_lambda_powertools"
    for package in ("", "logging", "logging/buffer", "event_handler", "utilities", "utilities/parser"):
        (top / package).mkdir(parents=True, exist_ok=True)
        (top / package / "__init__.py").write_text("")
    (top / "utilities" / "typing.py").write_text("")
    prune_packages(
        tmp_path,
        ("aws_lambda_powertools", "aws_lambda_powertools.logging", "aws_lambda_powertools.utilities"),
    )
    left = sorted(str(path.relative_to(tmp_path)) for path in top.rglob("*"))
    assert left == [
        "aws_lambda_powertools/__init__.py",
        "aws_lambda_powertools/logging",
        "aws_lambda_powertools/logging/__init__.py",
        "aws_lambda_powertools/utilities",
        "aws_lambda_powertools/utilities/__init__.py",
        "aws_lambda_powertools/utilities/typing.py",
    ]


def test_the_exercise_serves_uvicorn_as_the_web_adapter_configures_the_app() -> None:
    assert stage.WEB_ADAPTER_ENV.items() <= web_adapter.ENVIRONMENT.items()
