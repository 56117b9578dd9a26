"""The client matrix: every generation's real, unmodified A2A client driving a server over sockets.

- `clients.sdk13`: a2a-sdk 1.3 (the current Python SDK), in-process in the test venv;
- `clients.drivers`: the other clients, each in its own environment (`.venv-clients/<name>/`
  made from `requirements/<name>.txt`, or node for @a2a-js/sdk), driven through a small script
  (`<name>_driver.py` / `.mjs`) that prints one JSON result per line;
- `clients.reference_server`: a2a-sdk 1.3's own server, the reference the harness is proven on.
"""
