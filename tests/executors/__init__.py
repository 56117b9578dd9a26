"""a2a-sdk executors written as a2a-sdk's documentation shows, importing nothing of this kit: what
the tests host unchanged. `sdk13` runs in the main environment (a2a-sdk 1.3), `sdk03` in the a2a-sdk
0.3 environment (``.venv-executors/a2a-sdk-0.3``, `executors.environment`). Both keep one contract,
so one test fits either: see `sdk13`. And fasta2a workers (`fasta2a_workers`, fasta2a's README
worker and pydantic-ai's ``agent_to_a2a``) with their tests (`fasta2a_hosting`), in
``.venv-executors/fasta2a``."""
