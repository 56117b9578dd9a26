"""The CDK app (`infra.app`) and the reusable `A2AService` construct it deploys."""
