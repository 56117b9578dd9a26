"""The A2A 1.0 wire models: ProtoJSON of ``lf.a2a.v1`` (``a2a-1.0.1.proto`` is normative).

These are 1.0's own Task, Message, Part, AgentCard... as 1.0 clients send and read them; the
kit works on the domain model (`a2a_core.domain`) and converts at the edge (`a2a_core.protocol.v1
.codec`, `push_codec`, `request_codec`, `card_builder`). Import the modules by their aliases
(``from a2a_core.protocol.v1.wire import tasks as wt``) so a 1.0 type never passes for a domain one:

- ``protojson``: the base model and ProtoJSON scalars (int32, bytes, timestamps, enums, oneofs)
- ``parts`` (``w``), ``tasks`` (``wt``), ``push`` (``wp``), ``params`` (``wq``: the requests of the
  task and message operations), ``security`` (``ws``), ``card`` (``wc``): the messages
"""
