"""The long-turn worker: ``python -m a2a_core.functions.long_worker`` runs the one turn its
launch names (`a2a_core.core.turn.long_turns`), in a Fargate task in AWS, a child process in dev."""
