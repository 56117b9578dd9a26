"""The wheels a bundle installs are those the Lambda runtime's C library runs: python3.11 runs on
Amazon Linux 2 (glibc 2.26: manylinux2014 is uv's nearest tag), later runtimes on AL2023 (2.34).
greenlet (SQLAlchemy's, and so Strands' through a2a-sdk[sql]) ships no manylinux2014 wheel."""

from __future__ import annotations

from a2a_core.bundling.wheels import lambda_platform


def test_each_runtime_gets_the_manylinux_of_its_amazon_linux() -> None:
    assert lambda_platform("aarch64", "3.11") == "aarch64-manylinux2014"
    assert lambda_platform("aarch64", "3.13") == "aarch64-manylinux_2_34"
    assert lambda_platform("x86_64", "3.14") == "x86_64-manylinux_2_34"
