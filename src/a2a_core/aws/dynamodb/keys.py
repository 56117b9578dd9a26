"""How commit items are laid out in the table: their keys and attributes.

`DynamoDBTaskStore` writes them, the table's stream carries them to the push function
(`stream.commit_ref` reads them back), and the CDK stack filters that stream on the commit sort
key's prefix: all three use these names, defined once.
"""

from __future__ import annotations

import hashlib
import json

TASK_ID = "task_id"
FIRST_SEQ = "first_seq"
LAST_SEQ = "last_seq"
STATE = "state"
BODY = "body"
BODY_REF = "body_ref"
# A commit that carries a snapshot of its task: inline, or the S3 key of one that would not fit.
SNAPSHOT = "snapshot"
SNAPSHOT_REF = "snapshot_ref"
# The commit's `Commit.write_id` (random per commit): tells our own put, sent again after its answer
# was lost, from another writer's.
WRITE_ID = "write_id"
# The run's lease as a heartbeat renewed it in place (`TaskStore.renew_lease`), over the body's.
LEASE_UNTIL = "lease_until"
# Whether the push function must see the commit (`push_marks`): a BOOL the stream's filter reads.
PUSH_MARK = "notify"

TASK_PREFIX = "TASK#"  # the partition of a task's items (its commits and its push configs)
EVENT_PREFIX = "EVT#"  # the sort key of a commit item: this, then the commit's first seq
PUSH_PREFIX = "PUSH#"  # the sort key of a push config item: this, then the config's id
MAX_SEQ = 9_999_999_999  # the widest number the 10-digit sort key holds


def task_key(task_id: str) -> str:
    return f"{TASK_PREFIX}{task_id}"


def event_key(seq: int) -> str:
    return f"{EVENT_PREFIX}{seq:010d}"


# DynamoDB refuses an index key over 2,048 bytes (and with it the whole put): longer owners are
# indexed by their digest, which the listing queries with too.
_MAX_OWNER_BYTES = 1024


def index_owner(owner: str) -> str:
    """The owner index's partition key for ``owner``."""
    raw = owner.encode()
    return owner if len(raw) <= _MAX_OWNER_BYTES else f"sha256:{hashlib.sha256(raw).hexdigest()}"


def context_key(owner: str, context_id: str) -> str:
    """The owner index's partition key for ``owner``'s tasks in ``context_id``: a digest, so any
    context id fits the key limit."""
    both = json.dumps([index_owner(owner), context_id], separators=(",", ":")).encode()
    return f"context:{hashlib.sha256(both).hexdigest()[:32]}"  # 128 bits: short, as items must be
