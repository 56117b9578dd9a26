"""Which protocol generation a request speaks: the ``A2A-Version`` service parameter (spec 3.6).

The version comes from the ``A2A-Version`` header or, instead, a request (query) parameter of the
same name. Absent or empty means 0.3 (spec 3.6.2), which is also how 0.2.5 clients arrive: they
predate the parameter, and the 0.3 codec serves their slash-style methods. Only ``Major.Minor``
is compared; a patch part is tolerated and ignored (``1.0.1`` is 1.0). Anything else is a
VersionNotSupportedError that lists what is served.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum

from a2a_core import generations
from a2a_core.core.errors import VersionNotSupportedError

HEADER = "A2A-Version"


class Version(Enum):
    """The codec a request is answered by (0.2.5 requests reach 0.3's): `generations.Generation.codec`."""

    V0_3 = generations.V0_3.codec
    V1_0 = generations.V1_0.codec
    V1_1 = generations.V1_1.codec

    @property
    def is_v1(self) -> bool:
        """Whether the 1.0 operations serve it (1.0, and 1.1 with its draft's fields)."""
        return self is not Version.V0_3


# Major.Minor -> the codec that serves it.
_SERVED = {g.major_minor: Version(g.codec) for g in (*generations.GENERATIONS, *generations.DRAFTS)}
# What a refusal lists: the released generations (a draft is served to who names it, and a
# refusal's bytes stay what 1.0 clients have always seen).
SUPPORTED = tuple(version.value for version in Version if version is not Version.V1_1)

# Header fields or query parameters: a mapping, or (name, value) pairs that may repeat a name.
Fields = Mapping[str, str] | Iterable[tuple[str, str]]


# A value echoed in a refusal is cut to this many characters: the caller knows what it sent.
_ECHOED = 32


def parse_version(value: str | None) -> Version:
    """The version a raw ``A2A-Version`` value asks for; raises VersionNotSupportedError."""
    text = (value or "").strip(" \t")  # HTTP strips optional whitespace around field values too
    if not text:
        return Version(generations.UNNAMED.codec)
    wanted = generations.major_minor(text)
    served = _SERVED.get(wanted) if wanted else None
    if served is None:
        echoed = _echoed(value or "")
        raise VersionNotSupportedError(
            f"A2A-Version {echoed!r} is not supported; this agent speaks {', '.join(SUPPORTED)} "
            "(Major.Minor; an empty value means 0.3)",
            data={"requestedVersion": echoed, "supportedVersions": list(SUPPORTED)},
        )
    return served


def _echoed(value: str) -> str:
    return value if len(value) <= _ECHOED else f"{value[:_ECHOED]}... ({len(value)} characters)"


def requested_version(headers: Fields, query: Fields) -> Version:
    """The version of a request, from its headers and query parameters (names in any case; pass
    repeated ones as pairs).

    Every value given must ask for the same version: the header and the query parameter, a
    header sent twice, and the items of one comma-separated value (how API Gateway and Mangum
    hand a Lambda a repeated header), so a request is read alike by every front door.
    """
    given = [*_lookup(headers), *_lookup(query)]
    if not given:
        return Version(generations.UNNAMED.codec)
    versions = {parse_version(value) for value in given}
    if len(versions) > 1:
        shown = [_echoed(value) for value in given]
        raise VersionNotSupportedError(
            f"A2A-Version is given more than once and the values disagree ({', '.join(map(repr, shown))}); "
            "send one version",
            data={"requestedVersion": ",".join(shown), "supportedVersions": list(SUPPORTED)},
        )
    return versions.pop()


def _lookup(values: Fields) -> list[str]:
    wanted = HEADER.lower()
    pairs = values.items() if isinstance(values, Mapping) else values
    return [item for name, value in pairs if name.lower() == wanted for item in value.split(",")]
