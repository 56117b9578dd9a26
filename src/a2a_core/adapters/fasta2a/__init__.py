"""Host a fasta2a ``Worker`` unchanged on the durable engine (``pip install fasta2a``): `WorkerAgent`.

Name the worker as the agent (``--agent pkg.mod:worker``, ``[tool.a2a-serverless] agent``), as an
instance, its class (made as ``MyWorker(broker=..., storage=...)``), a function returning one, or
a ``FastA2A`` app made by ``fasta2a.pydantic_ai.agent_to_a2a`` (its ``AgentWorker`` is hosted):
the kit recognizes it (`a2a_core.adapters.resolve`) and wraps it here. This package is imported
only once such a worker is loaded.

Each turn of a task is one ``worker.run_task(params)``, with ``params`` what fasta2a's
TaskManager would hand its broker (the task and context ids, the message, the accepted output
modes, the metadata). The worker's ``storage`` and ``broker`` are the kit's:

- `TurnStorage` (fasta2a's ``Storage``): ``load_task``/``update_task`` over the durable task,
  every ``update_task`` one fenced write of this attempt of the turn; ``load_context``/
  ``update_context`` over the kit's context store, exactly once per turn;
- `TurnBroker` (fasta2a's ``Broker``): the turn is already scheduled; ``cancel_task`` is the
  kit's cancel; what the worker publishes on its ``event_bus`` streams through the task log.

A CancelTask, served by whichever process took it, is seen by the worker running the task (its
writes, or its watch of the task): it calls ``worker.cancel_task({"id": ...})`` and then cancels
the ``run_task`` coroutine. Returning from ``run_task`` without ending the turn completes the
task, as for any agent; an exception fails it (fasta2a's own loop does the same). A retried turn
runs ``run_task`` again: what the interrupted attempt wrote is replaced by what this one writes.
"""

from a2a_core.adapters.fasta2a.host import WorkerAgent, context_type_of, params_of
from a2a_core.adapters.fasta2a.turn_broker import TurnBroker, TurnEventBus
from a2a_core.adapters.fasta2a.turn_storage import TurnStorage

__all__ = ["TurnBroker", "TurnEventBus", "TurnStorage", "WorkerAgent", "context_type_of", "params_of"]
