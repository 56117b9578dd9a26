"""Around every Lambda function's cold start: the garbage collector, and SnapStart's hooks.

Each handler module imports this module first and calls `end_cold_start` last. In Lambda
(``AWS_LAMBDA_FUNCTION_NAME`` set), importing it pauses the collector: a cold start allocates
tens of thousands of objects that live as long as the process (modules, pydantic's schemas, the
app), and the collections they trigger while they pile up find nothing to free (~15 ms of a
~190 ms cold start). `end_cold_start` then freezes what the cold start built (later collections
skip it) and resumes collecting. Elsewhere (tests, benchmarks, dev) neither does anything.

With SnapStart (Lambda initializes the function when a version is published, then resumes every
new execution environment from a snapshot of it: ``AWS_LAMBDA_INITIALIZATION_TYPE=snap-start``)
the freeze waits for the snapshot: `end_cold_start` registers, through the runtime's
``snapshot_restore_py`` hooks, ``prime`` (run the work the first request would otherwise do,
then collect and freeze) before the snapshot, and ``restore`` after each restore, after this
module has made randomness unique again: environments resumed from one snapshot would otherwise
share the state of Python's ``random`` and of OpenSSL's generator.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable

IN_LAMBDA = "AWS_LAMBDA_FUNCTION_NAME" in os.environ
if IN_LAMBDA:
    gc.disable()


def snap_start() -> bool:
    """Whether this is SnapStart's initialization (a snapshot will be taken of it)."""
    return os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") == "snap-start"


def end_cold_start(
    *, prime: Callable[[], None] | None = None, restore: Callable[[], None] | None = None
) -> None:
    """The cold start's work is done: freeze it and collect again (in Lambda); under SnapStart,
    ``prime`` before the snapshot and ``restore`` after each restore."""
    if not IN_LAMBDA:
        return
    if not snap_start():
        _freeze()
        return
    # The Lambda runtime's (3.12+), where SnapStart initializes a function.
    from snapshot_restore_py import register_after_restore, register_before_snapshot  # type: ignore[import-not-found]

    def before_snapshot() -> None:
        if prime is not None:
            prime()
        gc.collect()  # what priming left behind is not worth a place in every snapshot's memory
        _freeze()

    def after_restore() -> None:
        unique_again()
        if restore is not None:
            restore()

    register_before_snapshot(before_snapshot)
    register_after_restore(after_restore)


def unique_again() -> None:
    """Reseed what a snapshot would share between environments: Python's ``random`` (retry
    jitter, anything of the agent's) and OpenSSL's generator (TLS handshakes). ``secrets`` and
    ``uuid.uuid4`` read the kernel's, which SnapStart's restore reseeds itself."""
    import random
    import ssl

    random.seed()
    ssl.RAND_add(os.urandom(32), 32.0)


def _freeze() -> None:
    gc.freeze()
    gc.enable()
