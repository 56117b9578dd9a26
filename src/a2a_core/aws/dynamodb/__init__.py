"""The DynamoDB adapters, all on the one table `a2a_core.aws.resources.TABLE` defines: the task
store, the context store, the push config store, and the reading of the table's stream."""
