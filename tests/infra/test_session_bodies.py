"""Session values too large for an item go where the functions may write bodies, and expire."""

from a2a_core.aws.dynamodb.session_store import BODY_PREFIX
from a2a_core.cdk.storage import LARGE_BODY_PREFIX


def test_session_bodies_are_under_the_granted_and_expiring_prefix() -> None:
    assert BODY_PREFIX.startswith(LARGE_BODY_PREFIX)
