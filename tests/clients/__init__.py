"""Real A2A clients driving a server over sockets.

- `clients.sdk13`: a2a-sdk 1.3 (the current Python SDK), in-process in the test venv;
- `clients.reference_server`: a2a-sdk 1.3's own server, the reference the clients are proven on.
"""
