"""The Lambda bundles: what goes into each function's code asset, built locally with uv (no Docker).

No CDK here (`a2a_core.cdk.assets` wraps a `Bundle` as a code asset), so the maintainer's trace
tool and the benchmarks use it without starting CDK's jsii runtime:

- `closures`: what each function imports, as traced (``function_imports.json``);
- `requirements`: the kit's closure pinned to what is installed, and the agent project's locked
  dependencies, with what the kit's agent extras it asks for bring (`kit_extras`);
- `wheels` and `bytecode`: manylinux wheels for the runtime's platform and Python version, and
  bytecode compiled by an interpreter of that version when this machine has one;
- `build`: one function's bundle (its inputs, asset hash and build), and `plan` all of a
  service's.
"""
