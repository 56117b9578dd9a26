"""A FastA2A app of its user's, kept as it is, on the kit's storage and broker (the ``A2A_*``
settings name the backend), served by Mangum as the API Lambda would; the kit's worker Lambda
runs its Worker (`executors.fasta2a_workers.ContextWorker`)."""

from __future__ import annotations

from fasta2a import FastA2A
from mangum import Mangum

from a2a_core.compose.fasta2a import fasta2a_backends

storage, broker = fasta2a_backends()
app = FastA2A(storage=storage, broker=broker, name="context worker")
handler = Mangum(app, lifespan="auto")
