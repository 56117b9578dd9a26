"""AWS adapters (DynamoDB, SQS, S3, KMS) and their clients. Only this package imports botocore."""
