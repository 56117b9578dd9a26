"""The signed card, as the server serves it, against every generation's verifier, unchanged
(issue 22 items 12 and 13): a2a-sdk 0.3.26 (in its own environment), a2a-sdk 1.3 (this one),
@a2a-js/sdk 1.3 (node), and our client's.

The card carries a signature over its 1.0 form (what the 1.x verifiers canonicalize) and one
over its 0.3 form (what a2a-sdk 0.3 canonicalizes); each verifier accepts it, and refuses it once
a field its form covers is changed. A field only the other form covers is the gap each verifier
leaves (a changed 0.3 ``url`` passes the 1.x verifiers): our client refuses such a card, because
its 0.3 and 1.0 copies then disagree.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_core.client.cards import verify_signatures
from a2a_core.compose import build_server
from a2a_core.compose.app import compose_app
from a2a_core.core.broker import InMemoryBroker
from a2a_core.core.tasklog.store import InMemoryTaskStore
from a2a_core.domain import AgentSkill
from a2a_core.push.signing import LocalSigner
from a2a_core.settings import Settings
from support import missing_prerequisite

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "tests" / "clients"
SDK03_PYTHON = ROOT / ".venv-clients" / "a2a-sdk-0.3" / "bin" / "python"
Document = dict[str, Any]


@pytest.fixture(scope="module")
def served() -> tuple[Document, Document]:
    """The card and the JWKS the app serves, push on (so the card is signed), an API key mode
    (so it declares a security scheme), a non-ASCII name (0.3's form escapes it, 1.0's does not)."""
    settings = Settings(
        name="Agent Été ☂",
        description="Says what it does",
        auth_mode="api_key",
        api_keys={"k": "a-key-of-sixteen-chars"},
        push_enabled=True,
        skills=[AgentSkill(id="echo", name="Écho", description="Echoes", tags=["echo"], examples=["hi"])],
    )
    server = build_server(
        settings, store=InMemoryTaskStore(), broker=InMemoryBroker(), push_signers=[LocalSigner()]
    )
    transport = httpx.ASGITransport(app=compose_app(server))

    async def fetch() -> tuple[Document, Document]:
        async with httpx.AsyncClient(transport=transport, base_url="https://agent.example") as client:
            card = (await client.get("/.well-known/agent-card.json")).json()
            keys = (await client.get("/.well-known/jwks.json")).json()
            return card, keys

    return asyncio.run(fetch())


def changed(card: Document, change: Callable[[Document], None]) -> Document:
    copied = copy.deepcopy(card)
    change(copied)
    return copied


def _description(card: Document) -> None:
    card["description"] = "Says something else"


def _legacy_url(card: Document) -> None:
    card["url"] = "https://evil.example/"  # what a 0.3 client calls


def _v1_interface(card: Document) -> None:
    card["supportedInterfaces"][0]["url"] = "https://evil.example/"  # what a 1.x client calls


def _legacy_scheme(card: Document) -> None:
    card["securitySchemes"]["apiKey"]["name"] = "x-other"  # 0.3's copy, which a2a-sdk 1.3 reads


def _v1_scheme(card: Document) -> None:
    card["securitySchemes"]["apiKey"]["apiKeySecurityScheme"]["name"] = "x-other"  # @a2a-js/sdk reads it


# Each case: the card, then whether a2a-sdk 0.3, a2a-sdk 1.3, @a2a-js/sdk and our client accept
# it. Each verifier accepts a change to a copy its form leaves out (the gaps); ours refuses them.
CASES: dict[str, tuple[Callable[[Document], None] | None, bool, bool, bool, bool]] = {
    "as served": (None, True, True, True, True),
    "description changed": (_description, False, False, False, False),
    "0.3 url changed": (_legacy_url, False, True, True, False),
    "1.0 interface changed": (_v1_interface, True, False, False, False),
    "0.3 security scheme changed": (_legacy_scheme, False, False, True, False),
    "1.0 security scheme changed": (_v1_scheme, True, True, False, False),
}


@pytest.fixture(scope="module")
def files(served: tuple[Document, Document], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    card, keys = served
    folder = tmp_path_factory.mktemp("cards")
    (folder / "jwks.json").write_text(json.dumps(keys))
    paths = {"jwks": folder / "jwks.json"}
    for name, (change, *_) in CASES.items():
        path = folder / f"{name.replace(' ', '_')}.json"
        path.write_text(json.dumps(card if change is None else changed(card, change)))
        paths[name] = path
    return paths


def run(command: list[str], files: dict[str, Path]) -> dict[str, bool]:
    cards = [str(files[name]) for name in CASES]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    done = subprocess.run(  # noqa: S603 (a fixed interpreter and a driver of this repository)
        [*command, str(files["jwks"]), *cards],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line[7:]) for line in done.stdout.splitlines() if line.startswith("ANSWER ")]
    by_path = {answer["card"]: answer["verified"] for answer in answers}
    return {name: by_path[str(files[name])] for name in CASES}


def test_a2a_sdk_0_3_accepts_the_card_and_refuses_what_its_form_covers(files: dict[str, Path]) -> None:
    if not SDK03_PYTHON.exists():
        missing_prerequisite("the a2a-sdk 0.3 environment (make setup)")
    probe = subprocess.run([str(SDK03_PYTHON), "-c", "import jwt"], capture_output=True, check=False)  # noqa: S603
    if probe.returncode != 0:
        missing_prerequisite("PyJWT in the a2a-sdk 0.3 environment (make setup installs a2a-sdk[signing])")
    verdicts = run([str(SDK03_PYTHON), str(CLIENTS / "card_verify_03.py")], files)
    assert verdicts == {name: case[1] for name, case in CASES.items()}


def test_a2a_sdk_1_3_accepts_the_card_and_refuses_what_its_form_covers(files: dict[str, Path]) -> None:
    from a2a.client.card_resolver import parse_agent_card
    from a2a.utils.signing import create_signature_verifier
    from jwt.api_jwk import PyJWK

    keys = json.loads(files["jwks"].read_text())["keys"]

    def key_provider(kid: str | None, jku: str | None) -> PyJWK:
        return PyJWK(next(key for key in keys if key["kid"] == kid))

    verdicts = {}
    for name in CASES:
        card = parse_agent_card(json.loads(files[name].read_text()))
        try:
            create_signature_verifier(key_provider, ["ES256"])(card)
            verdicts[name] = True
        except Exception:  # noqa: BLE001 (any refusal is the answer)
            verdicts[name] = False
    assert verdicts == {name: case[2] for name, case in CASES.items()}


def test_a2a_js_sdk_accepts_the_card_and_refuses_what_its_form_covers(files: dict[str, Path]) -> None:
    node = shutil.which("node")
    if node is None or not (ROOT / "node_modules" / "@a2a-js" / "sdk").exists():
        missing_prerequisite("node and @a2a-js/sdk (make setup)")
    verdicts = run([node, str(CLIENTS / "card_verify_js.mjs")], files)
    assert verdicts == {name: case[3] for name, case in CASES.items()}


def test_our_client_also_refuses_a_card_whose_two_copies_disagree(files: dict[str, Path]) -> None:
    keys = json.loads(files["jwks"].read_text())
    refusals: dict[str, str | None] = {}
    for name in CASES:
        try:
            verify_signatures(json.loads(files[name].read_text()), keys)
            refusals[name] = None
        except ValueError as error:
            refusals[name] = str(error)
    assert {name: refusal is None for name, refusal in refusals.items()} == {
        name: case[4] for name, case in CASES.items()
    }
    for name in ("0.3 url changed", "0.3 security scheme changed"):  # the signature verifies
        assert "0.3 and 1.0 copies of a field disagree" in str(refusals[name])
