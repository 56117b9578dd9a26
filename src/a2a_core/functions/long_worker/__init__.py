"""The long-turn worker: ``python -m a2a_core.functions.long_worker`` runs the one turn its
launch names (`a2a_core.core.turn.long_turns`), in a Fargate task in AWS, a child process in dev."""

# dev only: the emulator's credentials ("key:secret"), taken out of the environment before the
# agent is imported, so its own AWS calls never find them (as dev's own clients keep theirs).
EMULATOR_CREDENTIALS = "A2A_DEV_EMULATOR_CREDENTIALS"
