"""Memory records in SQLite: one `memories` table keyed by (agent, seq), shared by every
agent's stream, with the embedding kept so that reopening embeds nothing: as the streams keep
it, 8-bit codes and their float32 scale (dim + 4 bytes; a quarter of float32's, which older
files hold and which are still read)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from simulacra.memory.int8_product import UInt8s
from simulacra.memory.quantized import Scales, quantize
from simulacra.memory.record import MemoryRecord
from simulacra.memory.scoring import sim_hours
from simulacra.runlog.stamp import stamp

_SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    agent TEXT NOT NULL,
    seq INTEGER NOT NULL,
    id TEXT NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_accessed_at TEXT NOT NULL,
    accessed_h REAL NOT NULL,
    importance REAL NOT NULL,
    importance_source TEXT NOT NULL,
    evidence_ids TEXT NOT NULL,
    valid INTEGER NOT NULL,
    meta TEXT NOT NULL,
    embedding BLOB NOT NULL,
    PRIMARY KEY (agent, seq)
);
CREATE TABLE IF NOT EXISTS memory_streams (
    agent TEXT PRIMARY KEY,
    embedder TEXT NOT NULL,
    dim INTEGER NOT NULL,
    since_reflection REAL NOT NULL,
    rejected_insights INTEGER NOT NULL
);
"""
_RECORD_COLUMNS = (
    "seq, id, agent, kind, text, created_at, last_accessed_at, importance, importance_source, "
    "evidence_ids, valid, meta"
)


@dataclass(frozen=True)
class StreamState:
    embedder: str
    dim: int
    since_reflection: float
    rejected_insights: int


@dataclass(frozen=True)
class Loaded:
    """One chunk of stored rows, as columns."""

    kinds: list[str]
    accessed_h: list[float]
    importance: list[float]
    valid: list[bool]
    codes: UInt8s  # embeddings as `quantized.quantize` gives them
    scales: Scales
    unembedded: list[int]  # positions in this chunk whose text is not embedded yet


class Store:
    """One connection to a memory database. Shared by many streams (`shared=True`), it
    commits only when told to: one writer, one transaction per batch of work, instead of a
    connection and a commit per record."""

    def __init__(self, path: str | Path, *, shared: bool = False) -> None:
        self.shared = shared
        self._states: dict[str, StreamState] = {}  # written at the next commit (shared)
        self._db = sqlite3.connect(str(path))
        if str(path) != ":memory:":
            # Several agents' streams share the file; WAL lets them interleave cheaply.
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            # 64 MiB of page cache (SQLite's default is 2): a big town's streams insert and
            # embed rows all over the file every tick.
            self._db.execute("PRAGMA cache_size=-65536")
        self._db.executescript(_SCHEMA)
        self._db.commit()

    def commit(self) -> None:
        for agent, state in self._states.items():
            self._save(agent, state)
        self._states = {}
        self._db.commit()

    def _done(self) -> None:
        if not self.shared:
            self._db.commit()

    def state(self, agent: str) -> StreamState | None:
        if agent in self._states:
            return self._states[agent]
        row = self._db.execute(
            "SELECT embedder, dim, since_reflection, rejected_insights FROM memory_streams "
            "WHERE agent = ?",
            (agent,),
        ).fetchone()
        return None if row is None else StreamState(row[0], row[1], row[2], row[3])

    def save_state(self, agent: str, state: StreamState) -> None:
        if self.shared:
            self._states[agent] = state
            return
        self._save(agent, state)
        self._db.commit()

    def _save(self, agent: str, state: StreamState) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO memory_streams VALUES (?, ?, ?, ?, ?)",
            (agent, state.embedder, state.dim, state.since_reflection, state.rejected_insights),
        )

    def load(self, agent: str, dim: int, chunk: int = 8192) -> Iterator[Loaded]:
        cursor = self._db.execute(
            "SELECT kind, accessed_h, importance, valid, embedding FROM memories "
            "WHERE agent = ? ORDER BY seq",
            (agent,),
        )
        while rows := cursor.fetchmany(chunk):
            codes = np.zeros((len(rows), dim), dtype=np.uint8)
            scales = np.ones(len(rows), dtype=np.float32)
            unembedded, older = [], []
            for i, row in enumerate(rows):
                blob = row[4]
                if len(blob) == dim + 4:
                    codes[i] = np.frombuffer(blob, dtype=np.uint8, count=dim)
                    scales[i] = np.frombuffer(blob, dtype=np.float32, offset=dim)[0]
                elif blob:
                    older.append(i)
                else:
                    unembedded.append(i)
            if older:  # float32 rows, from files written before codes were kept
                vectors = np.stack([np.frombuffer(rows[i][4], dtype=np.float32) for i in older])
                codes[older], scales[older] = quantize(vectors)
            yield Loaded(
                kinds=[row[0] for row in rows],
                accessed_h=[row[1] for row in rows],
                importance=[row[2] for row in rows],
                valid=[bool(row[3]) for row in rows],
                codes=codes,
                scales=scales,
                unembedded=unembedded,
            )

    def citations(self, agent: str) -> Iterator[tuple[str, list[str]]]:
        """(id, evidence ids) of every record that cites others."""
        cursor = self._db.execute(
            "SELECT id, evidence_ids FROM memories WHERE agent = ? AND evidence_ids != '[]'",
            (agent,),
        )
        for record_id, evidence in cursor:
            yield record_id, json.loads(evidence)

    def insert(
        self,
        agent: str,
        seqs: Sequence[int],
        records: Sequence[MemoryRecord],
        accessed_h: Sequence[float],
        state: StreamState,
    ) -> None:
        """Add records (not embedded yet) and the stream's new state in one transaction."""
        rows = [
            (
                r.agent,
                seq,
                r.id,
                r.kind,
                r.text,
                stamp(r.created_at),
                stamp(r.last_accessed_at),
                hours,
                r.importance,
                r.importance_source,
                json.dumps(list(r.evidence_ids)) if r.evidence_ids else "[]",
                int(r.valid),
                _meta_json(r) if r.meta else "{}",
                b"",
            )
            for seq, r, hours in zip(seqs, records, accessed_h, strict=True)
        ]
        self._db.executemany(
            "INSERT INTO memories VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows
        )
        self.save_state(agent, state)

    def records(
        self, agent: str, seqs: Sequence[int], accessed: Mapping[int, datetime]
    ) -> dict[int, MemoryRecord]:
        """The records numbered `seqs`; `accessed` holds last-access times not saved yet."""
        found: dict[int, MemoryRecord] = {}
        for row in self._select(_RECORD_COLUMNS, agent, seqs):
            found[row[0]] = _record(row[1:], accessed.get(row[0]))
        return found

    def texts_by_id(self, ids: Collection[str]) -> dict[str, str]:
        """The text of each record named in `ids` (of any agent); unknown ids are left out."""
        found: dict[str, str] = {}
        wanted = list(ids)
        for start in range(0, len(wanted), 900):
            part = wanted[start : start + 900]
            marks = ",".join("?" * len(part))
            query = f"SELECT id, text FROM memories WHERE id IN ({marks})"
            found.update(self._db.execute(query, part).fetchall())
        return found

    def texts(self, agent: str, seqs: Sequence[int]) -> list[str]:
        found = dict(self._select("seq, text", agent, seqs))
        return [found[seq] for seq in seqs]

    def _select(self, columns: str, agent: str, seqs: Sequence[int]) -> Iterator[Any]:
        # SQLite allows 999 parameters in older builds; ask in slices.
        for start in range(0, len(seqs), 900):
            part = seqs[start : start + 900]
            marks = ",".join("?" * len(part))
            yield from self._db.execute(
                f"SELECT {columns} FROM memories WHERE agent = ? AND seq IN ({marks})",
                (agent, *part),
            )

    def embed(self, agent: str, seqs: Sequence[int], codes: UInt8s, scales: Scales) -> None:
        """Store the embeddings of records written before they were needed."""
        self._db.executemany(
            "UPDATE memories SET embedding = ? WHERE agent = ? AND seq = ?",
            [
                (row.tobytes() + scale.tobytes(), agent, seq)
                for seq, row, scale in zip(seqs, codes, scales, strict=True)
            ],
        )
        self._done()

    def touch(self, agent: str, accessed: dict[int, tuple[datetime, float]]) -> None:
        """Save last-access times: seq -> (time, simulated hours)."""
        self._db.executemany(
            "UPDATE memories SET last_accessed_at = ?, accessed_h = ? WHERE agent = ? AND seq = ?",
            [(stamp(at), hours, agent, seq) for seq, (at, hours) in accessed.items()],
        )
        self._done()

    def invalidate(self, agent: str, seqs: Sequence[int]) -> None:
        self._db.executemany(
            "UPDATE memories SET valid = 0 WHERE agent = ? AND seq = ?",
            [(agent, seq) for seq in seqs],
        )
        self._done()

    def rewind(
        self, at: datetime, accessed: Mapping[str, datetime], revalidate: Collection[str]
    ) -> int:
        """Put every stream back as it stood at `at`: records written later are dropped,
        those invalidated later are valid again, and each record's last access becomes the one
        in `accessed` (by id), else its creation. Returns how many records were dropped."""
        dropped = self._db.execute(
            "DELETE FROM memories WHERE created_at > ?", (at.isoformat(),)
        ).rowcount
        self._db.executemany(
            "UPDATE memories SET valid = 1 WHERE id = ?", [(i,) for i in revalidate]
        )
        rows = self._db.execute("SELECT agent, seq, id, created_at FROM memories").fetchall()
        updates = []
        for agent, seq, record_id, created in rows:
            last = accessed.get(record_id) or datetime.fromisoformat(created)
            updates.append((last.isoformat(), sim_hours(last), agent, seq))
        self._db.executemany(
            "UPDATE memories SET last_accessed_at = ?, accessed_h = ? WHERE agent = ? AND seq = ?",
            updates,
        )
        self._db.commit()
        return int(dropped)

    def close(self) -> None:
        self.commit()
        self._db.close()


def _meta_json(record: MemoryRecord) -> str:
    try:
        return orjson.dumps(record.meta, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError as exc:
        raise ValueError(
            f"memory {record.id}: meta must hold JSON values (str, number, bool, list, dict): {exc}"
        ) from None


def _record(row: tuple[Any, ...], accessed: datetime | None) -> MemoryRecord:
    (rid, agent, kind, text, created, last, importance, source, evidence, valid, meta) = row
    return MemoryRecord(
        id=rid,
        agent=agent,
        kind=kind,
        text=text,
        created_at=datetime.fromisoformat(created),
        last_accessed_at=accessed or datetime.fromisoformat(last),
        importance=importance,
        importance_source=source,
        evidence_ids=tuple(json.loads(evidence)) if evidence != "[]" else (),
        valid=bool(valid),
        meta=orjson.loads(meta) if meta != "{}" else {},
    )
