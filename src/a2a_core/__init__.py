"""a2a-serverless: host any Python agent as a durable A2A server (1.0, 0.3 and 0.2.5) on AWS."""
