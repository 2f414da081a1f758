"""Checkpoints: everything a killed run needs to continue exactly where it left off.

`<run>/checkpoint/` holds `state.json` (clock, RNG, world, agents, ledger, the log offset to
truncate to) and a copy of memory.sqlite named in it. `state.json` is replaced atomically and
last, so a kill at any moment leaves the previous checkpoint whole.
"""

from __future__ import annotations

import json
import sqlite3
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


def save(folder: Path, state: dict[str, Any], memory_db: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    name = f"memory-{state['tick']:06d}.sqlite"
    copy_database(memory_db, folder / name)
    state = {**state, "memory": name}
    tmp = folder / (STATE + ".tmp")
    tmp.write_text(json.dumps(state, sort_keys=True), encoding="utf-8")
    tmp.replace(folder / STATE)
    for old in folder.glob("memory-*.sqlite"):
        if old.name != name:
            old.unlink()


def load(folder: Path) -> dict[str, Any] | None:
    path = folder / STATE
    if not path.exists():
        return None
    state: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return state


def restore_memory(folder: Path, state: dict[str, Any], memory_db: Path) -> None:
    """Put the checkpoint's memories back into the run's live database."""
    copy_database(folder / state["memory"], memory_db)


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
