"""The Lambda functions' entry points, one composition root each (``<name>/handler.py``).

Handlers are ``a2a_core.functions.<name>.handler.handler``; the CDK construct (`a2a_core.cdk`)
bundles them from the installed package with each function's traced closure.
"""
