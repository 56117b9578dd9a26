"""The core, which knows no protocol generation: tasks as append-only logs, the ledger that
writes them, the engine and the worker, and the ports (task store, broker, context store, push
configs) with their in-memory adapters. Nothing here imports an adapter (AWS, local), a web
framework or a composition root."""
