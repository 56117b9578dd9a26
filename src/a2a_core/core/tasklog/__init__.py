"""The task log: a task as an append-only log of commits (records, the state machine, what a
writer appends, snapshots), the `TaskStore` port with its in-memory adapter, and the ledger that
writes and reads every task through it."""
