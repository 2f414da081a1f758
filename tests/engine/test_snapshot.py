"""A checkpoint's copy of the memory database holds every committed row, WAL included."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from simulacra.engine.checkpoint import snapshot_database


def _live(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path))
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE m (n INTEGER)")
    db.executemany("INSERT INTO m VALUES (?)", [(n,) for n in range(500)])
    db.commit()
    return db


def _rows(path: Path) -> int:
    db = sqlite3.connect(str(path))
    try:
        return int(db.execute("SELECT count(*) FROM m").fetchone()[0])
    finally:
        db.close()


@pytest.mark.parametrize("reader", [False, True], ids=["wal folded in", "reader holds the wal"])
def test_the_snapshot_of_a_live_database_holds_every_committed_row(
    tmp_path: Path, reader: bool
) -> None:
    live = tmp_path / "memory.sqlite"
    db = _live(live)
    db.executemany("INSERT INTO m VALUES (?)", [(n,) for n in range(500, 700)])
    db.commit()
    assert Path(f"{live}-wal").stat().st_size > 0  # the last rows are in the WAL only
    held = sqlite3.connect(str(live))
    if reader:  # an open read transaction keeps the WAL from being folded in
        held.execute("BEGIN")
        held.execute("SELECT count(*) FROM m").fetchone()
    try:
        snapshot_database(live, tmp_path / "checkpoint" / "memory-000001.sqlite")
    finally:
        held.close()
        db.close()
    assert _rows(tmp_path / "checkpoint" / "memory-000001.sqlite") == 700
