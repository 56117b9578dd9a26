"""Host an a2a-sdk ``AgentExecutor`` unchanged on the durable engine: `ExecutorAgent`.

Name the executor as the agent (``--agent pkg.mod:executor``, ``[tool.a2a-serverless] agent``),
as an instance, its class, or a function returning one: the kit recognizes it
(`a2a_core.adapters.resolve`) and wraps it here. The installed a2a-sdk's major decides how: 1.x
(protobuf ``a2a.types``, `sdk1`) or 0.3 (pydantic ``a2a.types``, `sdk03`); a deployment has
one. This package is imported only once such an executor is loaded: never by the API function.

Each turn of a task is one ``execute(context, event_queue)``:

- the `RequestContext` is filled from the durable task: the message that started the turn, the
  task as that a2a-sdk's server would pass it (None on the first turn; on a later one the task
  with its whole history, up to the server's cap, and the state it waited in), the context id,
  the tasks the message refers to (``referenceTaskIds``, the caller's own), the caller
  (``call_context.user``: authenticated unless anonymous, ``user_name`` its principal), the
  request's ``metadata``, ``configuration.accepted_output_modes`` and requested extensions;
- what the executor enqueues (directly or through ``TaskUpdater``) is written as it comes, in
  any order a2a-sdk's servers accept (`events`);
- a CancelTask, served by whichever process took it, is seen by the worker running the executor
  (its writes, or its watch of the task): it calls ``executor.cancel(context, event_queue)`` (the
  task is canceled already, whatever cancel() does or raises: its events are dropped) and then
  cancels the ``execute`` coroutine.

Returning from ``execute`` without ending the turn completes the task, as for any agent; an
exception fails it. A retried turn runs ``execute`` again: what the interrupted attempt wrote is
replaced by what this one writes (artifact ids the executor chooses are kept as they are).
"""

from a2a_core.adapters.a2a_sdk.host import ExecutorAgent, installed_generation

__all__ = ["ExecutorAgent", "installed_generation"]
