"""`a2a_core.push.der` against cryptography: the same answers for what KMS returns, and refusals
for anything else."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from hypothesis import given
from hypothesis import strategies as st

from a2a_core.push.der import DerError, ecdsa_signature_to_raw, p256_public_point

SCALARS = st.integers(min_value=1, max_value=2**256 - 1)


@given(r=SCALARS, s=SCALARS)
def test_signatures_read_as_cryptography_encodes_them(r: int, s: int) -> None:
    raw = ecdsa_signature_to_raw(encode_dss_signature(r, s))
    assert raw == r.to_bytes(32, "big") + s.to_bytes(32, "big")


def test_a_real_signature_reads_as_cryptography_decodes_it() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    der = key.sign(b"payload", ec.ECDSA(hashes.SHA256()))
    r, s = decode_dss_signature(der)
    assert ecdsa_signature_to_raw(der) == r.to_bytes(32, "big") + s.to_bytes(32, "big")


@pytest.mark.parametrize(
    ("der", "reason"),
    [
        (b"", "expected tag"),
        (bytes.fromhex("3006020101020101") + b"\0", "bytes after"),
        (bytes.fromhex("3009020101020101020101"), "more than two"),
        (bytes.fromhex("3006020101020181"), "negative"),
        (bytes.fromhex("300702020001020101"), "non-minimal integer"),
        (bytes.fromhex("3006020100020101"), "zero"),
        (bytes.fromhex("30060201010201"), "truncated"),
        (bytes.fromhex("3080020101020101"), "indefinite"),
        (bytes.fromhex("308106020101020101"), "non-minimal length"),
        (bytes.fromhex("3006020101020201"), "truncated"),
        (encode_dss_signature(2**256, 1), "longer than 32"),
    ],
)
def test_malformed_signatures_are_refused(der: bytes, reason: str) -> None:
    with pytest.raises(DerError, match=reason):
        ecdsa_signature_to_raw(der)


def test_a_p256_public_key_reads_as_cryptography_sees_it() -> None:
    public = ec.generate_private_key(ec.SECP256R1()).public_key()
    spki = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    numbers = public.public_numbers()
    assert p256_public_point(spki) == (numbers.x, numbers.y)


def _spki(key: ec.EllipticCurvePublicKey | rsa.RSAPublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def test_other_keys_and_points_off_the_curve_are_refused() -> None:
    p384 = _spki(ec.generate_private_key(ec.SECP384R1()).public_key())
    rsa_key = _spki(rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key())
    good = _spki(ec.generate_private_key(ec.SECP256R1()).public_key())
    off_curve = good[:-1] + bytes([good[-1] ^ 1])
    compressed = good[:26] + b"\x02" + good[27:]
    for spki, reason in (
        (p384, "not an uncompressed P-256"),
        (rsa_key, "not an uncompressed P-256"),
        (good[:-1], "not an uncompressed P-256"),
        (off_curve, "not on the P-256 curve"),
        (compressed, "not an uncompressed P-256 point"),
    ):
        with pytest.raises(DerError, match=reason):
            p256_public_point(spki)
