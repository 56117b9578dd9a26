"""The two DER structures KMS returns for a P-256 key, read without a crypto library.

KMS answers ``Sign`` with an ECDSA signature in DER (``SEQUENCE { INTEGER r, INTEGER s }``) and
``GetPublicKey`` with a SubjectPublicKeyInfo; a JWS carries ``r || s`` and a JWK the point's ``x``
and ``y``. Both are fixed, tiny shapes, read here strictly (minimal lengths and integers, nothing
trailing, the point on the curve). Importing ``cryptography`` for them would put ~5 MiB of wheels
(with cffi) and its import time into the API and push functions, which never hold a private key:
KMS makes the signatures.
"""

from __future__ import annotations

# SEQUENCE { SEQUENCE { OID id-ecPublicKey, OID prime256v1 }, BIT STRING (0 unused bits) } with
# the 65-byte uncompressed point (0x04 || x || y) to follow: every P-256 key KMS returns.
P256_SPKI_PREFIX = bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d030107034200")
# The curve y^2 = x^3 - 3x + b over GF(p) (SEC 2, secp256r1).
P256_P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
P256_B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
_SEQUENCE = 0x30
_INTEGER = 0x02
_UNCOMPRESSED = 0x04


class DerError(ValueError):
    """The bytes are not the DER structure expected; the message says what is wrong."""


def ecdsa_signature_to_raw(der: bytes, size: int = 32) -> bytes:
    """An ECDSA signature, DER (what KMS returns) to ``r || s`` of ``size`` bytes each (JWS)."""
    body, rest = _element(der, _SEQUENCE)
    if rest:
        raise DerError("bytes after the signature")
    r, body = _positive_integer(body)
    s, body = _positive_integer(body)
    if body:
        raise DerError("more than two integers in the signature")
    if max(r, s) >= 1 << (8 * size):
        raise DerError(f"signature integer longer than {size} bytes")
    return r.to_bytes(size, "big") + s.to_bytes(size, "big")


def p256_public_point(spki: bytes) -> tuple[int, int]:
    """``(x, y)`` of a P-256 public key given as a DER SubjectPublicKeyInfo (KMS ``GetPublicKey``)."""
    if len(spki) != len(P256_SPKI_PREFIX) + 65 or not spki.startswith(P256_SPKI_PREFIX):
        raise DerError("not an uncompressed P-256 (ECC_NIST_P256) public key")
    point = spki[len(P256_SPKI_PREFIX) :]
    if point[0] != _UNCOMPRESSED:
        raise DerError("not an uncompressed P-256 point")
    x, y = int.from_bytes(point[1:33], "big"), int.from_bytes(point[33:], "big")
    if x >= P256_P or y >= P256_P or (y * y - x * x * x + 3 * x - P256_B) % P256_P:
        raise DerError("the point is not on the P-256 curve")
    return x, y


def _element(data: bytes, tag: int) -> tuple[bytes, bytes]:
    """(content, what follows) of the element with ``tag`` at the start of ``data``."""
    if len(data) < 2 or data[0] != tag:
        raise DerError(f"expected tag 0x{tag:02x}")
    length, start = data[1], 2
    if length == 0x81:  # long form, one length byte: only for 128..255 (DER is minimal)
        if len(data) < 3 or data[2] < 0x80:
            raise DerError("non-minimal length")
        length, start = data[2], 3
    elif length > 0x80:
        raise DerError("length too large for a P-256 signature")
    elif length == 0x80:
        raise DerError("indefinite length is not DER")
    end = start + length
    if end > len(data):
        raise DerError("truncated element")
    return data[start:end], data[end:]


def _positive_integer(data: bytes) -> tuple[int, bytes]:
    content, rest = _element(data, _INTEGER)
    if not content:
        raise DerError("empty integer")
    if content[0] & 0x80:
        raise DerError("negative integer")
    if len(content) > 1 and content[0] == 0 and not content[1] & 0x80:
        raise DerError("non-minimal integer")
    value = int.from_bytes(content, "big")
    if value == 0:
        raise DerError("zero is not a signature integer")
    return value, rest
