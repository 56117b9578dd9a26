"""A local token issuer, to try JWT auth before deploying and to test it without a network.

::

    issuer = LocalIssuer()
    settings = Settings(**issuer.settings(directory))  # auth_mode=jwt, checked against its JWKS
    token = issuer.mint("alice", scopes=["tasks"])     # Authorization: Bearer <token>

``a2a-serverless dev --auth jwt`` keeps one in a directory (`save`/`load`) and prints how to mint
tokens from another shell. Its keys are throwaway: never trust them outside development.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import threading
import time
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from joserfc import jwt
from joserfc.jwk import ECKey

ALGORITHM = "ES256"
DEFAULT_ISSUER = "https://issuer.a2a-serverless.local/"
DEFAULT_AUDIENCE = "a2a-serverless-dev"
_STATE_FILE = "issuer.json"
JWKS_FILE = "jwks.json"


class LocalIssuer:
    def __init__(
        self,
        *,
        issuer: str = DEFAULT_ISSUER,
        audience: str = DEFAULT_AUDIENCE,
        key: ECKey | None = None,
    ) -> None:
        self.issuer = issuer
        self.audience = audience
        self.key = key or ECKey.generate_key("P-256", parameters={"alg": ALGORITHM, "use": "sig"})
        if self.key.kid is None:
            self.key.ensure_kid()

    def jwks(self) -> dict[str, Any]:
        """The public JWKS document an authenticator checks tokens against."""
        return {"keys": [self.key.as_dict(private=False)]}

    def mint(
        self,
        subject: str,
        *,
        scopes: Iterable[str] = (),
        ttl: float = 3600.0,
        audience: str | None = None,
        issuer: str | None = None,
        not_before: float | None = None,
        claims: dict[str, Any] | None = None,
    ) -> str:
        """A signed token for ``subject``; override fields to mint the wrong ones in tests."""
        now = time.time()
        payload: dict[str, Any] = {
            "iss": issuer or self.issuer,
            "aud": audience or self.audience,
            "sub": subject,
            "iat": int(now),
            "exp": int(now + ttl),
            "jti": str(uuid.uuid4()),
        }
        if not_before is not None:
            payload["nbf"] = int(not_before)
        if scopes:
            payload["scope"] = " ".join(scopes)
        payload.update(claims or {})
        return jwt.encode({"alg": ALGORITHM, "kid": self.key.kid}, payload, self.key, algorithms=[ALGORITHM])

    def save(self, directory: str | Path) -> Path:
        """Write the issuer (private key included, owner-only) and its public JWKS to ``directory``."""
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        state = {"issuer": self.issuer, "audience": self.audience, "key": self.key.as_dict(private=True)}
        secret = path / _STATE_FILE
        with os.fdopen(os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
            json.dump(state, handle)
        (path / JWKS_FILE).write_text(json.dumps(self.jwks()))
        return path

    @classmethod
    def load(cls, directory: str | Path) -> LocalIssuer:
        state = json.loads((Path(directory) / _STATE_FILE).read_text())
        return cls(issuer=state["issuer"], audience=state["audience"], key=ECKey.import_key(state["key"]))

    def settings(self, directory: str | Path) -> dict[str, Any]:
        """`Settings` fields that make an app accept this issuer's tokens (saves it first)."""
        path = self.save(directory)
        return {
            "auth_mode": "jwt",
            "jwt_issuer": self.issuer,
            "jwt_audience": self.audience,
            "jwt_jwks_file": str(path / JWKS_FILE),
            "jwt_algorithms": [ALGORITHM],
        }

    @contextlib.contextmanager
    def serve_jwks(self) -> Iterator[str]:
        """Serve the JWKS on a loopback port for the URL form (``jwt_jwks_url``); yields the URL.

        Each request gets `jwks` as it is then, so a test can rotate keys while serving."""
        issuer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = json.dumps(issuer.jwks()).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        serve = {"poll_interval": 0.05}  # shutdown() waits up to one interval
        thread = threading.Thread(target=server.serve_forever, kwargs=serve, name="local-jwks", daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/.well-known/jwks.json"
        finally:
            server.shutdown()
            server.server_close()
            thread.join(5)
