"""``--smoke``, which every benchmark script takes: a run tiny enough that the test suite runs each
script that way (`tests/bench/test_bench_smoke.py`), so a benchmark that no longer runs fails CI
rather than the next person who wants its numbers. A smoke run's numbers mean nothing."""

from __future__ import annotations

import argparse
from typing import Any

HELP = (
    "a tiny run that only shows the benchmark still works (the test suite runs it); its numbers mean nothing"
)


def parse(parser: argparse.ArgumentParser, **tiny: Any) -> argparse.Namespace:
    """``parser``'s arguments plus ``--smoke``, which sets each of ``tiny``'s arguments."""
    parser.add_argument("--smoke", action="store_true", help=HELP)
    args = parser.parse_args()
    if args.smoke:
        for name, value in tiny.items():
            setattr(args, name, value)
    return args
