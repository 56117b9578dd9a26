"""Trace what each Lambda function imports and compare it with (or write) its recorded closure.

    .venv/bin/python -m function_trace            # exit 1 if function_imports.json is stale
    .venv/bin/python -m function_trace --write    # record the new trace

A maintainer's tool of the a2a-serverless repository (it needs the repository's uv.lock, its test
events and moto), not shipped in the wheel; the data it writes is: ``function_imports.json`` in
`a2a_core.bundling`, from which every deployment's bundles are built.
"""

from __future__ import annotations

import argparse
import sys

from a2a_core.bundling import closures
from function_trace.tracing import differences, trace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--write", action="store_true", help=f"write {closures.MANIFEST.name}")
    args = parser.parse_args()
    current = trace(progress=True)
    if args.write:
        closures.dump(current)
        print(f"wrote {closures.MANIFEST}")
        return
    stale = differences(closures.load(), current)
    for line in stale:
        print(line)
    if stale:
        sys.exit(f"{closures.MANIFEST.name} is stale: run `python -m function_trace --write`")
    print(f"{closures.MANIFEST.name} matches the trace")


if __name__ == "__main__":
    main()
