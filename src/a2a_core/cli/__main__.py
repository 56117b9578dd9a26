"""``python -m a2a_core.cli``: the ``a2a-serverless`` command without its console script."""

from a2a_core.cli import main

raise SystemExit(main())
