"""Checkpoints: everything a killed run needs to continue exactly where it left off.

`<run>/checkpoint/` holds `state.json` (clock, RNG, world, minds, ledger, the log offset to
truncate to) and, when the run keeps memory streams, a copy of memory.sqlite named in it.
`state.json` is replaced atomically and last, so a kill at any moment leaves the previous
checkpoint whole.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from simulacra.llm import Ledger, Tally

STATE = "state.json"


def copy_database(source: Path, target: Path) -> None:
    """A consistent copy of a live SQLite file (WAL included), through SQLite's backup API."""
    target.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(str(source))
    dst = sqlite3.connect(str(target))
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()


class Checkpoints:
    """A run's checkpoint folder. `flush` is called before the memory database is copied, so
    that every record written so far is in it."""

    def __init__(
        self, folder: Path, memory_db: Path | None = None, flush: Callable[[], None] | None = None
    ) -> None:
        self.folder = folder
        self.memory_db = memory_db
        self.flush = flush

    def save(self, state: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        name = None
        if self.memory_db is not None and self.memory_db.exists():
            if self.flush is not None:
                self.flush()
            name = f"memory-{state['step']:06d}.sqlite"
            copy_database(self.memory_db, self.folder / name)
        state = {**state, "memory": name}
        tmp = self.folder / (STATE + ".tmp")
        tmp.write_text(json.dumps(state), encoding="utf-8")  # key order is roster order
        tmp.replace(self.folder / STATE)
        for old in self.folder.glob("memory-*.sqlite"):
            if old.name != name:
                old.unlink()

    def load(self) -> dict[str, Any] | None:
        path = self.folder / STATE
        if not path.exists():
            return None
        state: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return state

    def restore_memory(self, state: dict[str, Any]) -> None:
        """Put the checkpoint's memories back into the run's live database."""
        if state.get("memory") and self.memory_db is not None:
            copy_database(self.folder / state["memory"], self.memory_db)


def ledger_state(ledger: Ledger) -> dict[str, Any]:
    return {
        "total": asdict(ledger.total),
        "by_purpose": {k: asdict(v) for k, v in ledger.by_purpose.items()},
        "by_agent": {k: asdict(v) for k, v in ledger.by_agent.items()},
    }


def restore_ledger(ledger: Ledger, state: dict[str, Any]) -> None:
    ledger.total = Tally(**state["total"])
    ledger.by_purpose.clear()
    ledger.by_purpose.update({k: Tally(**v) for k, v in state["by_purpose"].items()})
    ledger.by_agent.clear()
    ledger.by_agent.update({k: Tally(**v) for k, v in state["by_agent"].items()})


def rng_state(state: tuple[Any, ...]) -> list[Any]:
    """random.Random's state as JSON (its middle part is a tuple of ints)."""
    version, internal, gauss = state
    return [version, list(internal), gauss]


def rng_from(saved: list[Any]) -> tuple[Any, ...]:
    version, internal, gauss = saved
    return (version, tuple(internal), gauss)
