"""dev's long-turn worker: `ProcessTurnLauncher` starts ``python -m a2a_core.functions.long_worker``
as a child process per turn, as ECS starts a Fargate task in AWS, against the same emulated table
and queue (the launch's environment, the settings as ``A2A_*`` variables on the aws backend
pointed at the emulator). Its output goes to dev's console. Kill one mid-turn (its pid is
printed) and its turn is taken over as the next attempt once its lease runs out.
"""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Mapping

from a2a_core.core.turn.long_turns import LongTurnLaunch, TurnLauncher

logger = logging.getLogger(__name__)
ENTRY_POINT = "a2a_core.functions.long_worker"
# How long stopping dev waits for a long-turn worker it terminated before killing it.
STOP_SECONDS = 3.0


class ProcessTurnLauncher(TurnLauncher):
    """One child process per launched turn, with ``env`` (the settings and credentials it needs)
    on top of this process's environment."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = dict(env)
        self._lock = threading.Lock()
        self._children: list[subprocess.Popen[bytes]] = []

    async def launch(self, launch: LongTurnLaunch) -> None:
        env = {
            **os.environ,
            **self._env,
            **launch.to_env(),
            "PYTHONUNBUFFERED": "1",
            # Where this process finds the agent's code (the project's import roots among them).
            "PYTHONPATH": os.pathsep.join(path for path in sys.path if path),
        }
        # A fixed argv of our own interpreter and module; the launch travels in the environment. The
        # child outlives the handler's event loop (each batch has its own): not an asyncio process.
        command = [sys.executable, "-m", ENTRY_POINT]
        child = await asyncio.to_thread(subprocess.Popen, command, env=env, stdin=subprocess.DEVNULL)
        with self._lock:
            self._children = [c for c in self._children if c.poll() is None] + [child]
        print(
            f"long-turn worker started for task {launch.operation.task_id} (pid {child.pid})",
            flush=True,
        )

    async def run(self, stop: asyncio.Event) -> None:
        """Until dev stops (a background job of its stack), then stop the workers still running."""
        await stop.wait()
        await asyncio.to_thread(self.stop)

    def stop(self) -> None:
        """Stop every long-turn worker still running (dev is stopping: its emulator goes)."""
        with self._lock:
            children, self._children = self._children, []
        for child in children:
            if child.poll() is None:
                child.terminate()
        for child in children:
            try:
                child.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
