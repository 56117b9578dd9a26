"""a2a-serverless: host any Python agent as a durable A2A 0.2.5 server on AWS."""
