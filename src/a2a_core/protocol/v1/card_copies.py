"""The two copies a merged card holds of some fields, and where they disagree.

A 1.0 card that carries the 0.3 fields too (`card_builder.card_document`, as a2a-sdk 1.3 serves
it) says some things twice: the interfaces (0.3's ``url``/``preferredTransport``/
``additionalInterfaces``, 1.0's ``supportedInterfaces``), each security scheme (0.3's ``type``
and its keys, 1.0's oneof member, side by side in one ``securitySchemes`` entry), the security
requirements (``security``, ``securityRequirements``) and the extended card
(``supportsAuthenticatedExtendedCard``, ``capabilities.extendedAgentCard``). No signature form
covers both copies (`card_signing`), and clients read different ones (a2a-sdk 1.3 the 0.3
``securitySchemes``, @a2a-js/sdk the 1.0 ones), so a card whose copies disagree was changed
after signing, or never meant one thing: `disagreements` names each such field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from a2a_core.domain import AgentCard as Card03
from a2a_core.domain import security_scheme_adapter
from a2a_core.protocol.v1.card_builder import requirement_to_v1, security_scheme_to_v1
from a2a_core.protocol.v1.wire import card as wc
from a2a_core.protocol.v1.wire import security as ws
from a2a_core.protocol.v1.wire.protojson import dump


def disagreements(document: Mapping[str, Any]) -> list[str]:
    """The fields whose 0.3 and 1.0 copies in ``document`` say different things; [] when they
    agree, or when the card has only one generation's fields (nothing to compare)."""
    if "supportedInterfaces" not in document or "url" not in document:
        return []
    try:
        v1 = wc.AgentCard.model_validate(document)
        v03 = Card03.model_validate(document)
    except ValidationError as error:
        return [f"the card cannot be read as both generations: {error.error_count()} problem(s)"]
    found = _interfaces(v1, v03) + _schemes(document, v1)
    if (v03.security is None) != (v1.security_requirements is None) or (
        v03.security is not None
        and [dump(requirement_to_v1(r)) for r in v03.security]
        != [dump(r) for r in v1.security_requirements or []]
    ):
        found.append("security / securityRequirements")
    if bool(v03.supports_authenticated_extended_card) != bool(v1.capabilities.extended_agent_card):
        found.append("supportsAuthenticatedExtendedCard / capabilities.extendedAgentCard")
    return found


def _interfaces(v1: wc.AgentCard, v03: Card03) -> list[str]:
    """Each 0.3 interface must be one the 1.0 card lists (URLs compared without a trailing slash)."""
    listed = {(i.url.rstrip("/"), i.protocol_binding) for i in v1.supported_interfaces}
    given = [("url / preferredTransport", v03.url, v03.preferred_transport)]
    given += [("additionalInterfaces", i.url, i.transport) for i in v03.additional_interfaces or []]
    found = [
        f"{name}: {url} ({binding})"
        for name, url, binding in given
        if (url.rstrip("/"), binding) not in listed
    ]
    return [f"{problem} is not in supportedInterfaces" for problem in found]


def _schemes(document: Mapping[str, Any], v1: wc.AgentCard) -> list[str]:
    """Each ``securitySchemes`` entry holding both copies must say the same in both."""
    raw = document.get("securitySchemes")
    if not isinstance(raw, Mapping):
        return []
    found = []
    for name, entry in raw.items():
        ours = (v1.security_schemes or {}).get(name)
        if not isinstance(entry, Mapping) or "type" not in entry or ours is None:
            continue
        try:
            legacy: ws.SecurityScheme = security_scheme_to_v1(security_scheme_adapter.validate_python(entry))
        except (ValidationError, ValueError):
            found.append(f"securitySchemes.{name}: its 0.3 copy cannot be read")
            continue
        if dump(legacy) != dump(ours):
            found.append(f"securitySchemes.{name}")
    return found
