"""AWS adapters (DynamoDB, SQS, S3). Only this package imports boto3/botocore."""
