"""Push notifications: config methods, webhook URL policy, signing, delivery, verification.

Modules are imported where they are used: `verify` is what a webhook receiver needs and pulls in
nothing of the server; the API needs `service` (and `signing` for its JWKS); the push function
needs `notifier`, `delivery` and `payloads` (its AWS side, the stream handler, KMS signer and SQS
dead letters, lives with the other AWS adapters, in ``aws/``).
"""
