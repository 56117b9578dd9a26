"""A2A-Version negotiation (spec 3.6): header or query parameter, empty = 0.3, Major.Minor compared."""

from __future__ import annotations

import pytest

from a2a_core.core.errors import VersionNotSupportedError
from a2a_core.protocol.v1.errors import rest_error
from a2a_core.protocol.versions import Version, parse_version, requested_version


@pytest.mark.parametrize(
    ("value", "version"),
    [
        (None, Version.V0_3),
        ("", Version.V0_3),
        ("   ", Version.V0_3),
        ("0.3", Version.V0_3),
        ("0.3.0", Version.V0_3),
        ("0.2", Version.V0_3),  # 0.2.5 clients are served by the 0.3 codec
        ("0.2.5", Version.V0_3),
        ("1.0", Version.V1_0),
        ("1.0.1", Version.V1_0),  # the patch is tolerated and ignored
        (" 1.0 ", Version.V1_0),  # optional whitespace around a header value is not part of it
        ("01.0", Version.V1_0),
    ],
)
def test_supported_values(value: str | None, version: Version) -> None:
    assert parse_version(value) is version


@pytest.mark.parametrize(
    "value", ["2.0", "1", "abc", "1.2", "0.1", "0.5", "1.0.1.1", "v1.0", "1.0-rc1", "1.0, 0.3", "1.x"]
)
def test_unsupported_values_name_what_is_served(value: str) -> None:
    with pytest.raises(VersionNotSupportedError) as caught:
        parse_version(value)
    error = caught.value
    assert repr(value) in error.message
    assert "0.3, 1.0" in error.message
    assert error.data == {"requestedVersion": value, "supportedVersions": ["0.3", "1.0"]}
    status, body = rest_error(error)
    assert (status, body["error"]["details"][0]["reason"]) == (400, "VERSION_NOT_SUPPORTED")


def test_header_or_query_parameter_in_any_case() -> None:
    assert requested_version({"a2a-version": "1.0"}, {}) is Version.V1_0
    assert requested_version({"A2A-Version": "1.0"}, {}) is Version.V1_0
    assert requested_version({}, {"A2A-Version": "1.0"}) is Version.V1_0
    assert requested_version({"content-type": "application/json"}, {"other": "1.0"}) is Version.V0_3


def test_an_empty_header_means_0_3_even_with_no_query() -> None:
    assert requested_version({"a2a-version": ""}, {}) is Version.V0_3


def test_header_and_query_must_agree() -> None:
    assert requested_version({"a2a-version": "1.0"}, {"A2A-Version": "1.0.0"}) is Version.V1_0
    with pytest.raises(VersionNotSupportedError, match="disagree"):
        requested_version({"a2a-version": "1.0"}, {"A2A-Version": "0.3"})
    with pytest.raises(VersionNotSupportedError, match=r"'2\.0'"):
        requested_version({"a2a-version": "1.0"}, {"A2A-Version": "2.0"})


def test_a_repeated_header_is_read_as_one_list_whatever_the_front_door() -> None:
    # uvicorn hands the app both headers; API Gateway and Mangum join them with commas.
    assert requested_version([("A2A-Version", "1.0"), ("a2a-version", "1.0")], []) is Version.V1_0
    assert requested_version([("a2a-version", "1.0, 1.0.1")], []) is Version.V1_0
    for headers in ([("a2a-version", "1.0"), ("a2a-version", "0.3")], [("a2a-version", "1.0,0.3")]):
        with pytest.raises(VersionNotSupportedError, match="disagree") as caught:
            requested_version(headers, [])
        assert caught.value.data == {"requestedVersion": "1.0,0.3", "supportedVersions": ["0.3", "1.0"]}
    with pytest.raises(VersionNotSupportedError, match="disagree"):
        requested_version([], [("A2A-Version", "1.0"), ("A2A-Version", "0.3")])
