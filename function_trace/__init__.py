"""Cold-start each Lambda function of the kit on moto, serve it real requests, trace its imports.

A maintainer's tool of this repository, not shipped in the wheel: `runner` runs a function in a
fresh interpreter that sees only a bundle (or a bundle-like site), `stage` is the moto world and
the requests each function must answer (`api_round` the API's), `variants` the deployment choices
that change what a function imports, and `tracing` turns runs into the closures recorded in
``a2a_core/bundling/function_imports.json`` (``python -m function_trace --write``). The bundle test
and the benchmarks run bundles through `runner` too.
"""
