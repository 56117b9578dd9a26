"""One registry of protocol generations (`a2a_core.generations`): the server's negotiation, the
cards, push configs and the client all read it, so a generation is added in one place."""

from __future__ import annotations

import pytest

from a2a_core import generations
from a2a_core.client.interfaces import SPOKEN, Interface, checked_version, choose
from a2a_core.domain import PushNotificationConfig
from a2a_core.generations import DRAFTS, GENERATIONS, V0_2, V0_3, V1_0, Generation
from a2a_core.protocol.card import CardBuilder
from a2a_core.protocol.v1.card_builder import supported_interfaces
from a2a_core.protocol.versions import SUPPORTED, Version, parse_version
from a2a_core.settings import Settings

URL = "https://agent.example/"


@pytest.mark.parametrize("generation", GENERATIONS, ids=str)
def test_each_generation_reaches_its_codec_by_its_version_and_its_card_version(
    generation: Generation,
) -> None:
    for named in (generation.version, generation.card_version):
        assert parse_version(named) is Version(generation.codec)
    assert generations.generation(generation.card_version) is generation


def test_the_codecs_are_the_generations_that_have_one() -> None:
    assert {version.value for version in Version} == {g.codec for g in (*GENERATIONS, *DRAFTS)}
    # A refusal names the released generations; a draft is served only to who names it.
    assert set(SUPPORTED) == {g.codec for g in GENERATIONS}
    assert parse_version("1.1") is Version.V1_1
    assert generations.generation("1.1") is None  # not one the client picks by itself
    assert parse_version(None) is Version(generations.UNNAMED.codec)


def test_the_client_speaks_every_binding_of_every_generation_newest_first() -> None:
    assert list(SPOKEN) == [(binding, g) for g in GENERATIONS for binding in g.bindings]
    for generation in GENERATIONS:
        assert checked_version(generation.card_version) == generation.card_version
        offered = [Interface(URL, binding, generation.version) for binding in generation.bindings]
        assert choose(offered).generation is generation
    with pytest.raises(ValueError, match=r"use 1\.0, 0\.3 or 0\.2\.5"):
        checked_version("2.0")


def test_the_cards_say_what_the_registry_says() -> None:
    builder = CardBuilder(Settings(), streaming=True, push_notifications=False)
    assert builder.card(URL).protocol_version == V0_2.card_version
    offered = [(i.protocol_binding, i.protocol_version) for i in supported_interfaces(URL)]
    assert offered == [(b, g.version) for g in (V1_0, V0_3, *DRAFTS) for b in g.bindings]


def test_a_push_config_made_without_a_generation_is_0_3s() -> None:
    assert PushNotificationConfig(url=URL).generation == V0_3.version
