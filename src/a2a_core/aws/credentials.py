"""Where `a2a_core.aws.json_client` gets the credentials it signs with.

In Lambda they are in the environment (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``,
``AWS_SESSION_TOKEN``: the function role's, which Lambda renews), read on every request: a
dictionary lookup, and always the current ones, also after a SnapStart restore. Where the
environment has none (a laptop with a profile or SSO, a container or instance role), botocore's
credential chain finds them, imported only then; it renews temporary credentials itself.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from a2a_core.aws.errors import NoCredentialsError
from a2a_core.aws.sigv4 import Credentials


def environment_credentials() -> Credentials | None:
    key, secret = os.environ.get("AWS_ACCESS_KEY_ID"), os.environ.get("AWS_SECRET_ACCESS_KEY")
    if not key or not secret:
        return None
    return Credentials(key, secret, os.environ.get("AWS_SESSION_TOKEN") or None)


class CredentialChain:
    """``static`` (key id, secret) when given; otherwise the environment's, else botocore's chain."""

    def __init__(self, static: tuple[str, str] | None = None) -> None:
        self._static = Credentials(*static) if static else None
        self._lock = threading.Lock()
        self._botocore: Any = None  # botocore's resolved credentials (they refresh themselves)

    def __call__(self) -> Credentials:
        if self._static is not None:
            return self._static
        found = environment_credentials()
        return found if found is not None else self._from_botocore()

    def reset(self) -> None:
        """Find the credentials anew on the next call (after a SnapStart restore: those of the
        snapshot may have expired, and a restored environment gets its own)."""
        with self._lock:
            self._botocore = None

    def _from_botocore(self) -> Credentials:
        with self._lock:
            if self._botocore is None:
                import botocore.session

                self._botocore = botocore.session.Session().get_credentials()
                if self._botocore is None:
                    raise NoCredentialsError("Unable to locate credentials")
            frozen = self._botocore.get_frozen_credentials()
        return Credentials(frozen.access_key, frozen.secret_key, frozen.token)
