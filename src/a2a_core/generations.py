"""The A2A protocol generations this kit speaks, and their bindings, named once for every layer.

Whatever names a generation reads it here: the ``A2A-Version`` negotiation and the codec it picks
(`a2a_core.protocol.versions`), the generation a push config was created through (its webhook's
payload, `a2a_core.domain.push`), the interfaces and ``protocolVersion`` the cards announce, and
the client's choice among a card's interfaces (`a2a_core.client.interfaces`).

| generation | its card says | bindings | served by | a request names it by |
|---|---|---|---|---|
| 1.1 draft | ``1.1`` | JSON-RPC, HTTP+JSON | the 1.0 codec + its fields | ``A2A-Version: 1.1`` |
| 1.0 | ``1.0`` | JSON-RPC, HTTP+JSON | the 1.0 codec | ``A2A-Version: 1.0`` |
| 0.3 | ``0.3.0`` | JSON-RPC | the 0.3 codec | no ``A2A-Version`` (or ``0.3``) |
| 0.2.5 | ``0.2.5`` | JSON-RPC | the 0.3 codec | no ``A2A-Version`` (it predates it) |

It imports nothing of the kit, so the domain model can name generations too.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# The bindings, as cards name them in their interfaces.
JSONRPC = "JSONRPC"
HTTP_JSON = "HTTP+JSON"
# The HTTP+JSON binding's media type (spec 14.1); its clients also accept it as JSON.
A2A_JSON = "application/a2a+json"


class Generation(NamedTuple):  # a named tuple: it is defined at every cold start, and cheaply
    """``version``: how ``A2A-Version``, a card's interface and a caller name it (``"1.0"``);
    ``card_version``: its card's ``protocolVersion``; ``codec``: the version whose codec serves it."""

    version: str
    card_version: str
    bindings: tuple[str, ...]
    codec: str

    @property
    def major_minor(self) -> tuple[int, int]:
        found = major_minor(self.version)
        assert found is not None
        return found

    def __str__(self) -> str:
        return self.version


V1_0 = Generation("1.0", "1.0", (JSONRPC, HTTP_JSON), codec="1.0")
V0_3 = Generation("0.3", "0.3.0", (JSONRPC,), codec="0.3")
# One wire with 0.3 (0.3 renamed nothing 0.2.5 had): the 0.3 codec serves it.
V0_2 = Generation("0.2.5", "0.2.5", (JSONRPC,), codec="0.3")

# A2A 1.1 as its ``dev-1.1`` draft stands (PR #1810, 2026-08-12): 1.0's wire plus the draft's
# fields (`a2a_core.protocol.v1.drafts`). Served when a request names it; not a generation the
# client picks by itself (`GENERATIONS`), for a draft may still change.
V1_1 = Generation("1.1", "1.1", (JSONRPC, HTTP_JSON), codec="1.1")

# Newest first: the order the client prefers them in.
GENERATIONS: tuple[Generation, ...] = (V1_0, V0_3, V0_2)
# Served besides them, on request only.
DRAFTS: tuple[Generation, ...] = (V1_1,)
# What a request that names no version speaks (spec 3.6.2: an absent or empty A2A-Version is 0.3).
UNNAMED = V0_3

# ASCII digits only (``\d`` would read Arabic-Indic U+0661 U+002E U+0660 as 1.0), and a few:
# a number of thousands of digits is no version, and int() would refuse it past 4,300.
_VERSION = re.compile(r"[ \t]*([0-9]{1,6})\.([0-9]{1,6})(?:\.[0-9]{1,6})?[ \t]*")


def major_minor(version: str) -> tuple[int, int] | None:
    """``"1.0.1"`` -> (1, 0); None when the text is no version (patch parts never matter)."""
    match = _VERSION.fullmatch(version)
    return (int(match[1]), int(match[2])) if match else None


def generation(version: str) -> Generation | None:
    """The generation a version names (``"1.0.1"``, ``"0.3.0"``, ``"0.2"``); None for one not spoken."""
    wanted = major_minor(version)
    return next((g for g in GENERATIONS if g.major_minor == wanted), None)


def spoken(generations: tuple[Generation, ...] = GENERATIONS) -> str:
    """``"1.0, 0.3 or 0.2.5"``: the versions, for messages that say what to use instead."""
    names = [g.version for g in generations]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
