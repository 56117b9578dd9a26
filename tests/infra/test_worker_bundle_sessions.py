"""The worker's bundle carries the frameworks' session adapters an agent project imports."""

from a2a_core.bundling.build import BundleSpec


def test_the_worker_bundles_the_adk_and_strands_session_adapters() -> None:
    worker = BundleSpec.for_function(
        "worker", architecture="arm64", python_version="3.13", agent="counter.agent:agent"
    )
    for module in (
        "a2a_core.adapters.adk",
        "a2a_core.adapters.adk.sessions",
        "a2a_core.adapters.strands.repository",
        "a2a_core.adapters.strands.executor",
        "a2a_core.core.session_scope",
    ):
        assert module in worker.kit_modules
    api = BundleSpec.for_function("api", architecture="arm64", python_version="3.13")
    assert not [
        m for m in api.kit_modules if m.startswith(("a2a_core.adapters.adk", "a2a_core.adapters.strands"))
    ]
