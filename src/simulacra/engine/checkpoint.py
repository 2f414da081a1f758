"""Checkpoints: everything a killed run needs to continue exactly where it left off.

`<run>/checkpoint/` holds the last few checkpoints, and over the whole run every SPARSE-th
(where the run says how far apart they are: a fork replays at most SPARSE intervals of
ticks to reach its fork point), each a `state-<step>.json` (clock, RNG,
world, minds, ledger, the log's size and the digest of those bytes) and, when the run keeps
memory streams, a copy of memory.sqlite named in it. A state file is written atomically and
last, so a kill at any moment leaves the earlier checkpoints whole.

Resuming takes the newest checkpoint that matches the log: its log prefix has the recorded
digest, and its memory copy is there. A log cut short, emptied or changed before a
checkpoint's offset makes that checkpoint unusable; with none left, resume refuses.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from simulacra.errors import UserError
from simulacra.llm import Ledger, Tally
from simulacra.runlog import prefix_digest

KEEP = 3  # checkpoints kept, so that a log damaged after the last one loses only a few ticks
SPARSE = 4  # and of the older ones, those at a multiple of this many intervals (for forks)


class CheckpointError(UserError):
    """No checkpoint of a run matches its log."""


def snapshot_database(source: Path, target: Path) -> None:
    """A consistent copy of a live SQLite file into a new file: its WAL folded into it, then
    the file copied by the kernel (a third of the backup API's time on a 240 MB database). The
    backup API when a reader keeps the WAL from being folded in."""
    src = sqlite3.connect(str(source), timeout=0.5)  # a reader: fall back soon, not in 5 s
    try:
        busy = src.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    finally:
        src.close()
    if busy:
        copy_database(source, target)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


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
        self,
        folder: Path,
        memory_db: Path | None = None,
        flush: Callable[[], None] | None = None,
        every: int = 0,
    ) -> None:
        """`every`: the ticks between checkpoints; given, the older ones at a multiple of
        SPARSE * every are kept too, so a fork anywhere replays at most that many ticks."""
        self.folder = folder
        self.every = every
        self.memory_db = memory_db
        self.flush = flush
        self.skipped: list[str] = []  # checkpoints `load` passed over, and why

    def save(self, state: dict[str, Any]) -> None:
        """Write a checkpoint; `state` holds `step`, the log's `offset` and its `digest`."""
        self.folder.mkdir(parents=True, exist_ok=True)
        step = int(state["step"])
        name = None
        if self.memory_db is not None and self.memory_db.exists():
            if self.flush is not None:
                self.flush()
            name = f"memory-{step:06d}.sqlite"
            snapshot_database(self.memory_db, self.folder / name)
        path = self.folder / f"state-{step:06d}.json"
        tmp = path.with_suffix(".json.tmp")
        # Keys stay in insertion order: minds in roster order.
        tmp.write_bytes(orjson.dumps({**state, "memory": name}, option=orjson.OPT_NON_STR_KEYS))
        tmp.replace(path)
        states = self._states()
        kept = states[:KEEP] + [p for p in states[KEEP:] if self._sparse(p)]
        for old in states[KEEP:]:
            if old not in kept:
                old.unlink()
        self._prune_memory(kept)

    def _sparse(self, path: Path) -> bool:
        span = SPARSE * self.every
        return span > 0 and int(path.stem.removeprefix("state-")) % span == 0

    def load(self, log: Path) -> dict[str, Any] | None:
        """The newest checkpoint that matches `log` (None when the run has none); later ones
        are discarded. Raises CheckpointError when none matches."""
        states = self._states()
        if not states:
            return None
        faults: list[str] = []
        for path in states:
            state, fault = self._read(path, log)
            if state is not None:
                for later in states[: states.index(path)]:
                    later.unlink()
                self.skipped = faults
                return state
            faults.append(f"{path.name}: {fault}")
        raise CheckpointError(
            f"{log.parent}: no checkpoint matches the event log, so the log is damaged and "
            "continuing would leave a gap in it:\n"
            + "\n".join(f"    {fault}" for fault in faults)
            + f"\n  nothing was changed; run the scenario again: simulacra run "
            f"{log.parent / 'config.yaml'}"
        )

    def restore_memory(self, state: dict[str, Any]) -> None:
        """Put the checkpoint's memories back into the run's live database."""
        if state.get("memory") and self.memory_db is not None:
            copy_database(self.folder / state["memory"], self.memory_db)

    def _states(self) -> list[Path]:
        """State files, newest first."""
        return sorted(self.folder.glob("state-*.json"), reverse=True)

    def _read(self, path: Path, log: Path) -> tuple[dict[str, Any] | None, str]:
        """A checkpoint's state if it matches `log`, else None and why not."""
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
            offset, digest = int(state["offset"]), str(state["digest"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            return None, f"unreadable ({type(exc).__name__}: {exc})"
        size = log.stat().st_size if log.exists() else 0
        if size < offset:
            return None, f"the log holds {size} bytes, fewer than the {offset} it had then"
        if prefix_digest(log, offset) != digest:
            return None, f"the log's first {offset} bytes are not those it had then"
        if state.get("memory") and not (self.folder / state["memory"]).is_file():
            return None, f"its copy of the memories, {state['memory']}, is missing"
        return state, ""

    def _prune_memory(self, kept: list[Path]) -> None:
        wanted = {f"memory-{p.stem.removeprefix('state-')}.sqlite" for p in kept}
        for old in self.folder.glob("memory-*.sqlite"):
            if old.name not in wanted:
                old.unlink()


def ledger_state(ledger: Ledger) -> dict[str, Any]:
    # A tally holds numbers only: a shallow copy is what asdict's deep one would give, at a
    # tenth of the cost for a thousand agents' tallies.
    return {
        "total": vars(ledger.total).copy(),
        "by_purpose": {k: vars(v).copy() for k, v in ledger.by_purpose.items()},
        "by_agent": {k: vars(v).copy() for k, v in ledger.by_agent.items()},
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
