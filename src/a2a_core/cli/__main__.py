"""``python -m a2a_core.cli``: the ``a2a-serverless`` command (the e2e tests start the dev server so)."""

from a2a_core.cli import main

raise SystemExit(main())
