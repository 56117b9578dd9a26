"""The AWS emulator `a2a-serverless dev --backend local` runs on: moto's server in-process
(`moto_server`), stand-ins for Lambda's event source mappings that drive the real handlers
(`pollers`, `stream_poller`, the event and context shapes in `lambda_shapes`), and what keeps the
emulator's state across restarts (`state`, `journal`, `recovery`)."""
