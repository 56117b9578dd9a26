"""This repository's own CDK app (`infra.app`), built on the packaged construct (`a2a_core.cdk`)."""
