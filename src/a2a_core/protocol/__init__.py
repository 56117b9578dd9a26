"""The wire protocols, one subpackage per generation, and the version negotiation between them.

The durable core (engine, ledger, store, worker) knows no protocol generation: it works on the
domain model (`a2a_core.domain`, shaped like 0.3's wire on purpose: it is the storage format) and
the core's requests (`a2a_core.core.requests`). Each generation here is a codec between its own
wire models and those: `v0` (0.2.5 and 0.3, whose wire is the domain model's JSON but for
`v0.wire`) and `v1` (1.0, whose wire models are `v1.wire`). What they share: the generations
(`a2a_core.generations`), the A2A-Version negotiation (`versions`), JSON-RPC (`jsonrpc`), the agent
every card describes (`card`), and each generation's surface over one engine (`bindings`).
"""
