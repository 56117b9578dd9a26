"""`FreshAgent`: every turn runs on an agent imported anew, as on a Lambda worker that just started.

In Lambda, turn 2 of a task (or the next task of a context) usually runs in another process than
turn 1, so nothing the agent keeps in memory survives between them: a module-level dict, an ADK
``InMemorySessionService``, a Strands agent's messages. A warm local process hides that; this
shows it. Before each turn the user's modules are imported again from their files (the agent's
module and every module of the project's code it imports), and the agent the reference names is
resolved anew from them (`a2a_core.discovery.import_agent`): a fresh import, not the factory
called again, so module-level state starts empty each turn.

What is imported anew is the user's code alone: modules whose file lies under the reference's
import roots (the project's ``src/``, ...) or is the agent's own module, never an installed
package nor the kit (both stay loaded: re-importing them would cost far more and split class
identities the kit and the frameworks rely on, so state a library keeps in its own globals is
the one thing a fresh import does not drop, where a new Lambda instance would). The fresh
modules are the turn's own: ``sys.modules`` is given back its previous entries once the agent is
built, so two turns running at once, and the process's other code, never see each other's
copies. (A module the agent imports only while it runs, inside a function, is the copy the
process loaded first.)
"""

from __future__ import annotations

import importlib
import sys
import sysconfig
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from a2a_core.core.turn.context import TaskContext
from a2a_core.core.turn.executor import Agent, Content
from a2a_core.discovery import AgentRef, import_agent

# sys.modules is the process's: one fresh import at a time, whichever thread's turn asks.
_IMPORTING = threading.Lock()
_KIT = "a2a_core"


class FreshAgent(Agent):
    """The agent ``ref`` names, imported anew for each turn (see the module docstring)."""

    def __init__(self, ref: AgentRef) -> None:
        """Import ``ref`` once now, so a wrong reference fails at startup, not at the first turn."""
        self.ref = ref
        self.module = ref.spec.partition(":")[0]
        self._roots = [root.resolve() for root in ref.roots]
        self._installed = _installed_paths()
        self._files: dict[str, bool] = {}  # a module's file -> whether it is the user's
        import_agent(ref)

    async def run(self, ctx: TaskContext) -> Content | None:
        return await self.build().run(ctx)

    def build(self) -> Agent:
        """A new agent from a fresh import of the user's modules."""
        with _IMPORTING:
            saved = {name: sys.modules.pop(name) for name in list(self._user_modules())}
            importlib.invalidate_caches()  # a file edited since the last turn is read as it is now
            try:
                return import_agent(self.ref)
            finally:
                for name in list(self._user_modules()):
                    del sys.modules[name]
                sys.modules.update(saved)

    def _user_modules(self) -> Iterator[str]:
        for name, module in list(sys.modules.items()):
            if name == self.module or (not name.startswith(_KIT) and self._is_users(module)):
                yield name

    def _is_users(self, module: ModuleType) -> bool:
        """Whether ``module`` is a file of the user's code: under an import root, not installed."""
        file = getattr(module, "__file__", None)
        if not file:
            return False
        users = self._files.get(file)
        if users is None:  # resolved once per file: every module is looked at before every turn
            path = Path(file).resolve()
            users = self._files[file] = _under(path, self._roots) and not _under(path, self._installed)
        return users


def _under(path: Path, folders: list[Path]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)


def _installed_paths() -> list[Path]:
    """Where installed packages and the standard library live (a project's .venv among them)."""
    paths = sysconfig.get_paths()
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    return [Path(p).resolve() for p in {*prefixes, paths["purelib"], paths["platlib"], paths["stdlib"]}]
