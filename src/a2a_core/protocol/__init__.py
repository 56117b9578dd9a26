"""The wire protocols, one subpackage per generation, and the version negotiation between them.

The durable core (engine, ledger, store, worker) is version-neutral: it speaks `a2a_core.domain`
(the domain model) and `a2a_core.core.requests`. Each generation here is a codec between its wire
shapes and that model.
"""
