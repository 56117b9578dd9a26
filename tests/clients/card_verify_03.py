"""Verifies card signatures with a2a-sdk 0.3's own verifier, unchanged (run in its environment).

    python card_verify_03.py JWKS_FILE CARD_FILE...

One line per card, ``ANSWER`` and ``{"card": CARD_FILE, "verified": bool, "error": str | null}``. The card is
read as the SDK reads a fetched one (``AgentCard.model_validate``) and checked with
``create_signature_verifier`` over ES256, keys found by ``kid`` in the JWKS.
"""

import json
import sys

from a2a.types import AgentCard
from a2a.utils.signing import create_signature_verifier
from jwt.api_jwk import PyJWK


def main() -> None:
    with open(sys.argv[1]) as keys_file:
        keys = json.load(keys_file)["keys"]

    def key_provider(kid: str | None, jku: str | None) -> PyJWK:  # the SDK's callback
        return PyJWK(next(key for key in keys if key["kid"] == kid))

    verify = create_signature_verifier(key_provider, ["ES256"])
    for path in sys.argv[2:]:
        with open(path) as card_file:
            document = json.load(card_file)
        try:
            verify(AgentCard.model_validate(document))
            print("ANSWER", json.dumps({"card": path, "verified": True, "error": None}))
        except Exception as error:  # noqa: BLE001 (any refusal is an answer)
            print(
                "ANSWER",
                json.dumps({"card": path, "verified": False, "error": f"{type(error).__name__}: {error}"}),
            )


if __name__ == "__main__":
    main()
