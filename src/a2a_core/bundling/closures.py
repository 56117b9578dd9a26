"""What each Lambda function imports, as traced, and so what its bundle holds.

``function_imports.json`` (beside this module, shipped in the wheel) records, for each function
and each deployment choice that could change its imports (auth mode, push on or off, the API's
server), the distributions a fresh interpreter had imported after the function's cold start and a
round of its requests, which packages of the pruned distributions (`PRUNED`) it used, and which
of the kit's own modules (`a2a_core.bundling.modules` adds every kit module those can import). The
a2a-serverless repository writes it with its maintainer tool (``python -m function_trace
--write``) and its tests check it against a new trace, so it is measured, never guessed. The
bundler installs exactly a function's closure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MANIFEST = Path(__file__).resolve().parent / "function_imports.json"
FUNCTIONS = ("api", "worker", "dlq", "push", "authorizer")
# The Lambda Python runtime provides boto3 and its dependencies; bundles leave them out unless the
# service pins them (`include_boto3`).
RUNTIME_PROVIDED = frozenset(
    {"boto3", "botocore", "s3transfer", "jmespath", "python-dateutil", "six", "urllib3"}
)
# Distributions shipped only in part: the packages (directories) a function imports, each whole.
# Powertools is 4.4 MB of which a function uses the logger, batch processing and a few event
# classes; its event handler alone (2.9 MB) is used by none.
PRUNED = {"aws-lambda-powertools": "aws_lambda_powertools"}


class ClosureError(LookupError):
    """No traced variant matches; the message says how to trace it."""


def canonical(name: str) -> str:
    """A distribution's normalized name (PEP 503): ``Typing_Extensions`` -> ``typing-extensions``."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Traced:
    """One traced variant: a function under one deployment's settings."""

    function: str
    settings: Mapping[str, str]  # e.g. {"auth": "api_key", "push": "on", "server": "mangum"}
    distributions: frozenset[str]
    packages: frozenset[str]  # dotted packages of the `PRUNED` distributions
    modules: frozenset[str] = frozenset()  # the kit's own modules it imported

    def to_json(self) -> dict[str, Any]:
        return {
            "function": self.function,
            "settings": dict(sorted(self.settings.items())),
            "distributions": sorted(self.distributions),
            "packages": sorted(self.packages),
            "modules": sorted(self.modules),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Traced:
        return cls(
            function=data["function"],
            settings=dict(data["settings"]),
            distributions=frozenset(data["distributions"]),
            packages=frozenset(data["packages"]),
            modules=frozenset(data.get("modules", ())),
        )


@dataclass(frozen=True)
class Closure:
    distributions: frozenset[str]
    packages: frozenset[str]
    modules: frozenset[str] = frozenset()


def load(path: Path = MANIFEST) -> list[Traced]:
    return [Traced.from_json(item) for item in json.loads(path.read_text())["variants"]]


def dump(traced: Iterable[Traced], path: Path = MANIFEST) -> None:
    variants = sorted(traced, key=lambda t: (FUNCTIONS.index(t.function), sorted(t.settings.items())))
    document = {
        "about": "What each Lambda function imports, traced by `python -m function_trace --write`; "
        "see a2a_core/bundling/closures.py. Do not edit by hand.",
        "variants": [t.to_json() for t in variants],
    }
    path.write_text(json.dumps(document, indent=1) + "\n")


def closure(
    function: str, settings: Mapping[str, str] | None = None, *, traced: Iterable[Traced] | None = None
) -> Closure:
    """Everything ``function`` imports under ``settings``: the union over the traced variants that
    agree with them (a setting not given, such as push for the API, which the stack may turn on
    after the function exists, counts every way it was traced)."""
    matching = [
        t
        for t in (load() if traced is None else traced)
        if t.function == function and all(t.settings.get(k) == v for k, v in (settings or {}).items())
    ]
    if not matching:
        raise ClosureError(
            f"no traced variant of the {function} function with {settings}: add it to "
            "function_trace.variants.VARIANTS and run `python -m function_trace --write`"
        )
    return Closure(
        distributions=frozenset().union(*(t.distributions for t in matching)),
        packages=frozenset().union(*(t.packages for t in matching)),
        modules=frozenset().union(*(t.modules for t in matching)),
    )
