"""Which of an agent's interfaces the client talks to: what it speaks, and how it chooses.

A card names each interface by binding and protocol version: a 1.0 card lists them in
``supportedInterfaces``; a 0.3 or 0.2.5 card has its ``url`` (in ``preferredTransport``) and
``additionalInterfaces``, all at its ``protocolVersion``. The client speaks JSON-RPC and HTTP+JSON
at 1.0, and JSON-RPC at 0.3 and 0.2.5 (one wire: a 0.3 server answers 0.2.5's methods and
objects). It takes the newest version offered (1.0 before 0.3, as a2a-sdk 1.3's
``_find_best_interface`` does within a binding), JSON-RPC before HTTP+JSON at the same version,
and the card's order on a tie; a caller may narrow the choice to one binding or one version.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from a2a_core import generations
from a2a_core.generations import GENERATIONS, HTTP_JSON, JSONRPC, V1_0, V1_1, Generation

# What callers (and the CLI's --binding) may say -> the name cards use.
BINDING_NAMES = {"jsonrpc": JSONRPC, "rest": HTTP_JSON, "http+json": HTTP_JSON}

# (binding, generation) -> rank, lower preferred: the newest generation first, then its bindings
# in the order the registry lists them (JSON-RPC before HTTP+JSON).
SPOKEN: dict[tuple[str, Generation], int] = {
    (binding, g): rank
    for rank, (binding, g) in enumerate((binding, g) for g in GENERATIONS for binding in g.bindings)
}
_NAMED = [f"{binding} {g.version}" for binding, g in SPOKEN]
SPOKEN_TEXT = (
    f"{', '.join(_NAMED[:-1])} and {_NAMED[-1]}"  # "JSONRPC 1.0, HTTP+JSON 1.0, ... and JSONRPC 0.2.5"
)


@dataclass(frozen=True)
class Interface:
    """One way to reach the agent: ``binding`` and ``version`` as the card names them."""

    url: str
    binding: str
    version: str
    tenant: str | None = None

    @property
    def generation(self) -> Generation | None:
        """The generation its version names; None for one the client does not speak."""
        return generations.generation(self.version)

    @property
    def is_v1(self) -> bool:
        return self.generation is V1_0

    @property
    def is_draft(self) -> bool:
        """Whether it is the A2A 1.1 draft's (served by the 1.0 codec, plus its fields)."""
        return generations.major_minor(self.version) == V1_1.major_minor

    def draft(self, interfaces: Iterable[Interface]) -> Interface | None:
        """The 1.1 draft's interface of this one's binding among ``interfaces`` (a card's), if a
        1.0 interface and the card offers one."""
        if not self.is_v1:
            return None
        return next((i for i in interfaces if i.is_draft and i.binding == self.binding), None)

    @property
    def rank(self) -> int | None:
        """Its place in the client's preference order; None when the client cannot speak it."""
        generation = self.generation
        return None if generation is None else SPOKEN.get((self.binding, generation))

    def __str__(self) -> str:
        return f"{self.binding} {self.version} at {self.url}"


class NoUsableInterfaceError(ValueError):
    """The card offers no interface the client speaks (within what the caller allowed)."""


def binding_name(value: str) -> str:
    """The card's name for a binding a caller names (``jsonrpc``, ``rest``, or a card name)."""
    name = BINDING_NAMES.get(value.lower(), value)
    if name not in (JSONRPC, HTTP_JSON):
        raise ValueError(f"unknown binding {value!r}: use jsonrpc or rest")
    return name


def checked_version(value: str) -> str:
    """A protocol version a caller may force: 1.0, 0.3 or 0.2.5 (a patch part is ignored)."""
    if generations.generation(value) is None:
        raise ValueError(f"unsupported protocol version {value!r}: use {generations.spoken()}")
    return value.strip()


def direct(url: str, binding: str | None, version: str | None) -> Interface:
    """The interface at ``url``, named without a card: JSON-RPC unless ``binding`` says otherwise,
    in ``version``, by default 0.3 over JSON-RPC (what a server assumes of a request that names
    no version) and 1.0 over HTTP+JSON (which only 1.0 has)."""
    binding = binding or JSONRPC
    return Interface(url, binding, version or (V1_0 if binding == HTTP_JSON else generations.UNNAMED).version)


def choose(
    interfaces: Iterable[Interface], *, binding: str | None = None, version: str | None = None
) -> Interface:
    """The preferred interface among those of ``binding`` and ``version`` (when given).

    Raises NoUsableInterfaceError naming what the card offers.
    """
    offered = list(interfaces)
    wanted = generations.generation(version) if version else None
    usable = [
        interface
        for interface in offered
        if interface.rank is not None
        and (binding is None or interface.binding == binding)
        and (wanted is None or interface.generation is wanted)
    ]
    if usable:
        return min(usable, key=lambda interface: interface.rank or 0)  # min is stable: card order
    asked = " ".join(part for part in (binding, version) if part)
    listed = "; ".join(str(interface) for interface in offered) or "none"
    scope = f"for {asked} " if asked else ""
    raise NoUsableInterfaceError(
        f"the agent's card offers no interface {scope}that this client speaks ({SPOKEN_TEXT}); "
        f"it offers: {listed}"
    )
