"""Composition: settings and clients in, adapters, the assembled `AgentServer` and the worker out.

The one place (this package) that decides which adapter serves which port: `compose.backends`
each backend's adapters (`compose.adapters` the in-memory ones, `compose.aws` the AWS ones and
the app's own authenticator behind a function URL), `compose.server` the server (engine, protocol
bindings, cards), `compose.worker` the worker, `compose.push` the push notification parts,
`compose.agent` the user's agent. `functions/*/handler.py` (one per Lambda function) and
`a2a-serverless dev` (`a2a_core.dev`) are thin roots over it: they read the settings, ask for
their backend's adapters once, and call these.

Each root imports only what it runs: the names below load on first use (PEP 562), so the worker
function, which imports `compose_worker`, never loads the engine, a protocol codec or the web
app, and AWS adapters (and botocore) and the push delivery code are imported by the builders that
use them, so an in-memory API never loads them.
"""

from typing import TYPE_CHECKING

from a2a_core._lazy import lazy_attributes

if TYPE_CHECKING:  # the names of the package, each read from its module on first use
    from a2a_core.compose.server import build_server as build_server
    from a2a_core.compose.server import compose_server as compose_server
    from a2a_core.compose.server import page_token_secret as page_token_secret
    from a2a_core.compose.worker import build_worker as build_worker
    from a2a_core.compose.worker import compose_worker as compose_worker

__getattr__, __dir__ = lazy_attributes(__name__)
