"""A2A 1.0 (spec 1.0.1): wire models, the codec to the domain model, errors, card, REST routes.

- ``wire``: the 1.0 wire models, ProtoJSON for ``lf.a2a.v1`` (``a2a-1.0.1.proto`` is normative)
- ``operations``: the one table of the 1.0 operations (routes, streaming, what serves them, how
  their params and results convert), from which the method table (``methods``), the HTTP+JSON
  routes (``rest_routes``) and the client's 1.0 codec are derived
- ``codec``, ``push_codec``: domain <-> wire objects; ``request_codec`` / ``result_codec``: each
  operation's params / result, both ways
- ``push_payload``: the body of a push notification to a config created through 1.0
- ``errors``: each `A2AError` -> JSON-RPC code, google.rpc reason, gRPC status, HTTP status
- ``card_builder`` / ``card_signing``: the 1.0 agent card (0.3 fields merged in) and its JWS
- ``rest_routes``: the HTTP+JSON binding's routes as data
"""
