"""The directory where `a2a-serverless dev` keeps its local backend between runs (``--state-dir``).

It holds the write journal (`a2a_core.emulator.journal`), the key that signs push notifications
(so receivers that cached the JWKS keep verifying after a restart) and a lock: one dev process
per directory, because two would interleave their journals, and because a restarted dev may
treat every run lease it finds as left by a process that is gone (`a2a_core.emulator.recovery`).
The lock is the kernel's (``flock``): it goes with the process however that ends.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from a2a_core.settings import SettingsError

if TYPE_CHECKING:
    from a2a_core.push.signing import LocalSigner

DEFAULT_STATE_DIR = ".a2a-dev"


class StateDir:
    def __init__(self, path: Path) -> None:
        """Create ``path`` (owner-only) if needed and lock it; raises `SettingsError` when another
        dev process holds it."""
        self.path = path.resolve()
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._lock = os.open(self.path / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            import fcntl

            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # not POSIX: no lock (documented)
            pass
        except BlockingIOError:
            os.close(self._lock)
            raise SettingsError(
                f"another a2a-serverless dev is using {self.path}; stop it, or start this one with "
                "--state-dir OTHER_DIR or --fresh"
            ) from None

    @property
    def journal(self) -> Path:
        return self.path / "journal.jsonl"

    def signer(self) -> LocalSigner:
        """The push signing key kept here, made on first use."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec

        from a2a_core.push.signing import LocalSigner

        file = self.path / "push-signing-key.pem"
        if file.exists():
            key = serialization.load_pem_private_key(file.read_bytes(), password=None)
            if isinstance(key, ec.EllipticCurvePrivateKey):
                return LocalSigner(key)
        signer = LocalSigner()
        descriptor = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            out.write(signer.private_pem())
        return signer

    def close(self) -> None:
        os.close(self._lock)  # releases the lock
