"""An agent's memory stream: records in SQLite, scores and embeddings in numpy columns,
retrieval by recency, importance and relevance, reflection and invalidation.

Records are embedded when a retrieval first needs them, in one batch: a stream that is only
written (a commuter's week of episodes) costs no embedding at all.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from simulacra.embed import Embedder
from simulacra.llm import LanguageModel
from simulacra.memory.columns import Columns
from simulacra.memory.events import added, retrieved
from simulacra.memory.importance import ImportancePolicy, given_importance, rate_all
from simulacra.memory.prompts import Voice
from simulacra.memory.record import MemoryRecord, Retrieved, Statement
from simulacra.memory.reflection import ReflectionConfig, reflect
from simulacra.memory.scoring import (
    Floats,
    Indices,
    Span,
    Weights,
    WeightsLike,
    approx_tokens,
    as_weights,
    fit_budget,
    ranking_key,
    recency,
    score,
    sim_hours,
    top_k,
)
from simulacra.memory.store import Store, StreamState
from simulacra.runlog import EventSink
from simulacra.runlog.events import MemoryInvalidated, Payload

# Last-access times are written back to SQLite in batches of about this many.
_TOUCH_BATCH = 1024
# Texts read at a time while a retrieval fills its token budget.
_FIT_CHUNK = 64


class MemoryStream:
    """One agent's memories. `db` may be a file shared by every agent of a run."""

    def __init__(
        self,
        agent: str,
        embedder: Embedder,
        db: str | Path | Store = ":memory:",
        model: LanguageModel | None = None,
        decay: float = 0.995,
        importance: ImportancePolicy | str | float | None = None,
        sink: EventSink | None = None,
        reflection: ReflectionConfig | None = None,
        seed: int = 0,
        record_access: bool = True,
        rating_batch: int = 1,
    ) -> None:
        if not 0 < decay <= 1:
            raise ValueError(
                f"decay must be in (0, 1] (the source uses 0.995 an hour), got {decay}"
            )
        self.agent = agent
        self.embedder = embedder
        self.model = model
        self.decay = decay
        self.importance = ImportancePolicy.resolve(importance, model)
        self.sink = sink
        self.reflection = reflection if reflection is not None else ReflectionConfig()
        self.seed = seed
        # False reads the stream as it is: retrieval leaves last-access times alone, so that
        # several readers (an evaluation's conditions) see the same memories.
        self.record_access = record_access
        self.rating_batch = rating_batch  # records one rating call may take
        # A Store passed in is shared with other streams and closed by its owner.
        self._store = db if isinstance(db, Store) else Store(db)
        self._owns_store = not isinstance(db, Store)
        self._columns = Columns(embedder.dim)
        self._kind_codes: dict[str, int] = {}
        self._citers: defaultdict[str, list[str]] = defaultdict(list)
        self._touched: dict[int, datetime] = {}  # seq -> last access not saved yet
        self._unembedded: dict[int, str] = {}  # row -> text, for rows without a vector yet
        self._last_write: asyncio.Future[None] | None = None
        self.since_reflection = 0.0
        self.rejected_insights = 0
        # How the agent's mind starts its prompts; the stream's own start the same way.
        self.voice: Voice | None = None
        self._load()

    # --- writing ---------------------------------------------------------------------------

    async def add(
        self,
        kind: str,
        text: str,
        now: datetime,
        importance: float | None = None,
        evidence: Iterable[str] = (),
        meta: dict[str, Any] | None = None,
        *,
        rule: float | None = None,
    ) -> MemoryRecord:
        """Write one record; its importance is `importance` when given, else rated under the
        policy, where `rule` is what the rule policy (and a failed rating) gives this record
        (default: the keyword rule)."""
        (record,) = await self.add_many(
            kind, [text], now, [importance], evidence, meta, rule=[rule]
        )
        return record

    async def add_many(
        self,
        kind: str,
        texts: Sequence[str],
        now: datetime,
        importance: float | Sequence[float | None] | None = None,
        evidence: Iterable[str] = (),
        meta: dict[str, Any] | Sequence[dict[str, Any]] | None = None,
        *,
        rule: float | Sequence[float | None] | None = None,
        evidence_each: Sequence[Iterable[str]] | None = None,
    ) -> list[MemoryRecord]:
        """Write several records of one kind at once: one embedding batch, one transaction,
        and the model's ratings `rating_batch` records a call.

        `importance` and `rule` are one value for all, one per text, or None (see `add`);
        `meta` is one mapping for all or one per text; `evidence_each`, when given, the
        evidence of each text in place of `evidence` for all.
        """
        if not kind:
            raise ValueError("memory kind must be a non-empty string such as 'observation'")
        given = given_importance(importance, len(texts))
        rules = given_importance(rule, len(texts), "rule")
        if evidence_each is not None and len(evidence_each) != len(texts):
            raise ValueError(
                f"add_many got {len(texts)} texts but {len(evidence_each)} evidence lists"
            )
        each = [self._cited(e) for e in evidence_each] if evidence_each is not None else None
        cited = each or [self._cited(evidence)] * len(texts)
        # Ids follow the order of the calls, not the order in which model ratings come back.
        before, mine = self._last_write, asyncio.get_running_loop().create_future()
        self._last_write = mine
        try:
            ratings = await rate_all(
                self.importance,
                self.model,
                self.agent,
                texts,
                given,
                rules,
                self.seed,
                self.voice,
                self.rating_batch,
            )
            if before is not None and not before.done():
                await before
            return self._write(kind, texts, now, ratings, cited, _metas(meta, len(texts)))
        finally:
            mine.set_result(None)

    def _write(
        self,
        kind: str,
        texts: Sequence[str],
        now: datetime,
        ratings: list[tuple[float, str]],
        cited: list[tuple[str, ...]],
        metas: list[dict[str, Any]],
    ) -> list[MemoryRecord]:
        if not texts:
            return []
        self._save_touched()
        first = self._columns.size + 1
        records = [
            MemoryRecord(
                id=self._id(first + i),
                agent=self.agent,
                kind=kind,
                text=text,
                created_at=now,
                last_accessed_at=now,
                importance=value,
                importance_source=source,
                evidence_ids=evidence,
                meta=dict(meta),
            )
            for i, (text, (value, source), meta, evidence) in enumerate(
                zip(texts, ratings, metas, cited, strict=True)
            )
        ]
        since = self.since_reflection
        if kind in self.reflection.counted:  # what was perceived, not what the agent made
            since += sum(value for value, _ in ratings)
        hours = [sim_hours(now)] * len(texts)
        seqs = range(first, first + len(texts))
        self._store.insert(self.agent, seqs, records, hours, self._state(since))
        self.since_reflection = since
        code = self._code(kind)
        for i, text in enumerate(texts):
            self._unembedded[first - 1 + i] = text
        self._columns.append(
            None,  # embedded in one batch when next needed (_embed_written)
            np.asarray(hours),
            np.asarray([r.importance for r in records]),
            np.ones(len(records), dtype=np.bool_),
            np.full(len(records), code, dtype=np.int16),
        )
        for record in records:
            for source_id in record.evidence_ids:
                self._citers[source_id].append(record.id)
            self._emit(added(record), now)
        return records

    def invalidate(self, record_id: str, reason: str, now: datetime | None = None) -> list[str]:
        """Mark a record invalid, and every record resting on it, transitively.

        Returns the ids of the dependent records (reflections) invalidated by this call.
        """
        rows = [self._row(record_id)]
        seen = set(rows)
        dependents: list[str] = []
        pending = [record_id]
        while pending:
            for citer in self._citers.get(pending.pop(0), []):
                row = self._row(citer)
                if self._columns.valid[row] and row not in seen:
                    seen.add(row)
                    rows.append(row)
                    dependents.append(citer)
                    pending.append(citer)
        for row in rows:
            self._columns.invalidate(row)
        self._store.invalidate(self.agent, [row + 1 for row in rows])
        self._emit(MemoryInvalidated(id=record_id, reason=reason, invalidated=dependents), now)
        return dependents

    # --- reading ---------------------------------------------------------------------------

    def retrieve(
        self,
        query: str,
        now: datetime,
        k: int | None = 30,
        weights: WeightsLike | None = None,
        kinds: Iterable[str] | None = None,
        token_budget: int | None = None,
        *,
        purpose: str = "",
        record_access: bool | None = None,
        per_record: int = 0,
        exclude: Iterable[str] = (),
    ) -> list[Retrieved]:
        """The k valid records that best answer `query` now, best first.

        Each component is min-max normalised over the candidates (see `scoring.min_max`);
        `kinds` limits the candidates and `exclude` leaves kinds out of them; `token_budget`
        keeps the best prefix that fits, and with `k=None` that prefix is all there is: the
        top-ranked records that fit, as many as they are; each record costs `per_record`
        tokens more than its text (the prefix a prompt gives its line). The records returned
        count as accessed now, unless `record_access` (default: the stream's) is False: a
        caller that shows only some of them passes False and marks those (`mark_accessed`).
        `purpose` labels the `retrieval` event, which also says how many records were
        candidates and the spread of their raw recency.
        """
        w = as_weights(weights)
        candidates = self._candidates(kinds, tuple(exclude))
        found: list[Retrieved] = []
        if k is None and token_budget is None:
            raise ValueError("retrieve: k=None takes as many records as fit a token_budget")
        touch = self.record_access if record_access is None else record_access
        pool = self._columns.size if candidates is None else int(candidates.size)
        spread = 0.0
        if (k is None or k > 0) and pool:
            budget = None if token_budget is None else (token_budget, per_record)
            found, spread = self._score(query, now, k, w, candidates, budget, touch)
        self._emit(retrieved(query, k, found, purpose, token_budget, pool, spread), now)
        return found

    def mark_accessed(self, record_ids: Iterable[str], now: datetime) -> None:
        """Count these records as accessed now (what a prompt showed of a retrieval), unless
        the stream is read as it is (`record_access` False); never moves an access back."""
        if not self.record_access:
            return
        now_h = sim_hours(now)
        rows = np.asarray([self._row(i) for i in record_ids], dtype=np.intp)
        self._touch_rows(rows, now, now_h)

    def recent(self, n: int) -> list[MemoryRecord]:
        """The n latest valid records, oldest first."""
        return self._records(self._recent_rows(n))

    def recent_statements(self, n: int, kinds: Iterable[str] | None = None) -> list[Statement]:
        """The text and importance of the n latest valid records (of `kinds`, when given),
        oldest first: without building whole records, a quarter of recent's cost
        (reflection reads a hundred)."""
        rows = self._recent_rows(n, kinds)
        texts = self._store.texts(self.agent, [row + 1 for row in rows.tolist()])
        importance = self._columns.importance[rows].tolist()
        return [Statement(t, i) for t, i in zip(texts, importance, strict=True)]

    def get(self, record_id: str) -> MemoryRecord:
        (record,) = self._records(np.asarray([self._row(record_id)]))
        return record

    def __len__(self) -> int:
        return self._columns.size

    # --- reflection ------------------------------------------------------------------------

    async def reflect_if_due(self, now: datetime) -> list[MemoryRecord]:
        """Reflect once the importance summed since the last reflection reaches the threshold."""
        if self.since_reflection < self.reflection.threshold:
            return []
        return await self.reflect(now)

    async def reflect(self, now: datetime) -> list[MemoryRecord]:
        """Reflect now: questions, retrieval, evidence-citing insights stored as reflections."""
        outcome = await reflect(self, now)
        self.rejected_insights += len(outcome.rejected)
        self.since_reflection = 0.0
        self._store.save_state(self.agent, self._state(0.0))
        self._emit(outcome.event(), now)
        return outcome.records

    # --- housekeeping ----------------------------------------------------------------------

    def flush(self, commit: bool = True) -> None:
        """Save the last-access times retrieval changed, and commit (unless the owner of a
        shared store commits once for all its streams)."""
        self._save_touched()
        if commit:
            self._store.commit()

    def _save_touched(self) -> None:
        if self._touched:
            self._store.touch(
                self.agent, {seq: (at, sim_hours(at)) for seq, at in self._touched.items()}
            )
            self._touched = {}

    def close(self) -> None:
        self.flush()
        if self._owns_store:
            self._store.close()

    # --- inside ----------------------------------------------------------------------------

    def _score(
        self,
        query: str,
        now: datetime,
        k: int | None,
        weights: Weights,
        candidates: Indices | None,
        budget: tuple[int, int] | None,
        touch: bool,
    ) -> tuple[list[Retrieved], float]:
        """The results, and the spread of raw recency over all the candidates."""
        self._embed_written()
        size = self._columns.size
        q = np.asarray(self.embedder.embed([query])[0], dtype=np.float32)
        relevance: Floats = self._columns.relevance(q, candidates).astype(np.float64)
        accessed = self._columns.accessed_h[:size]
        importance = self._columns.importance[:size]
        if candidates is not None:
            accessed, importance = accessed[candidates], importance[candidates]
        now_h = sim_hours(now)
        parts = (recency(now_h - accessed, self.decay), importance, relevance)
        spans = [Span.of(part) for part in parts]
        best = top_k(ranking_key(parts, spans, weights), relevance.size if k is None else k)
        rows = best if candidates is None else candidates[best]
        if budget is not None:
            keep = self._fitting(rows, *budget)
            best, rows = best[:keep], rows[:keep]
        rec, imp, rel = (span.apply(part[best]) for span, part in zip(spans, parts, strict=True))
        totals = score(rec, imp, rel, weights)
        if touch:
            self._touch_rows(rows, now, now_h)
        results = [
            Retrieved(
                record=r,
                recency=float(rec[i]),
                importance=float(imp[i]),
                relevance=float(rel[i]),
                total=float(totals[i]),
            )
            for i, r in enumerate(self._records(rows))
        ]
        return results, float(parts[0].max() - parts[0].min())

    def _touch_rows(self, rows: Indices, now: datetime, now_h: float) -> None:
        # A retrieval "in the past" (an interview about yesterday) never moves access back.
        later = rows[self._columns.accessed_h[rows] < now_h]
        self._columns.accessed_h[later] = now_h
        for row in later.tolist():
            self._touched[row + 1] = now
        if len(self._touched) >= _TOUCH_BATCH:
            self._save_touched()

    def _fitting(self, rows: Indices, budget: int, per_record: int) -> int:
        """How many of `rows`, best first, fit in `budget` tokens: their texts are read a
        chunk at a time, so that a large stream is not read whole to fill a prompt."""
        kept, used = 0, 0
        for start in range(0, rows.size, _FIT_CHUNK):
            chunk = rows[start : start + _FIT_CHUNK].tolist()
            texts = self._store.texts(self.agent, [row + 1 for row in chunk])
            fits = fit_budget(texts, budget - used, per_record)
            kept += fits
            if fits < len(texts):
                return kept
            used += sum(approx_tokens(text) + per_record for text in texts)
        return kept

    def _embed_written(self) -> None:
        """Embed, in one batch, the records written since the last retrieval."""
        if not self._unembedded:
            return
        rows = list(self._unembedded)
        vectors = self.embedder.embed(list(self._unembedded.values()))
        codes, scales = self._columns.set_vectors(rows, vectors)
        self._store.embed(self.agent, [row + 1 for row in rows], codes, scales)
        self._unembedded = {}

    def _recent_rows(self, n: int, kinds: Iterable[str] | None = None) -> Indices:
        found = self._candidates(kinds, ())
        valid = np.arange(self._columns.size) if found is None else found
        return valid[-n:] if n > 0 else valid[:0]  # [-0:] would be all of them

    def _candidates(self, kinds: Iterable[str] | None, exclude: tuple[str, ...]) -> Indices | None:
        """Rows that may be retrieved; None means all of them (no copy needed)."""
        size = self._columns.size
        valid = self._columns.valid[:size]
        if kinds is not None:
            valid = valid & np.isin(self._columns.kind[:size], self._codes(kinds))
        if exclude:
            valid = valid & ~np.isin(self._columns.kind[:size], self._codes(exclude))
        if kinds is not None or exclude:
            return np.flatnonzero(valid)
        if self._columns.invalid_count:
            return np.flatnonzero(valid)
        return None

    def _records(self, rows: Indices) -> list[MemoryRecord]:
        seqs = [row + 1 for row in rows.tolist()]
        found = self._store.records(self.agent, seqs, self._touched)
        return [found[seq] for seq in seqs]

    def _cited(self, evidence: Iterable[str]) -> tuple[str, ...]:
        cited = tuple(dict.fromkeys(evidence))
        for record_id in cited:
            if not self._columns.valid[self._row(record_id)]:
                raise ValueError(
                    f"{self.agent}: cannot cite {record_id} as evidence: it was invalidated; "
                    "cite only valid records"
                )
        return cited

    def _id(self, seq: int) -> str:
        return f"{self.agent}-{seq:05d}"

    def _row(self, record_id: str) -> int:
        prefix, _, number = record_id.rpartition("-")
        seq = int(number) if prefix == self.agent and number.isdigit() else 0
        if not 1 <= seq <= self._columns.size:
            raise KeyError(
                f"{self.agent} has no memory {record_id!r}: ids run from {self._id(1)} to "
                f"{self._id(self._columns.size)}"
                if self._columns.size
                else f"{self.agent} has no memory {record_id!r}: the stream is empty"
            )
        return seq - 1

    def _codes(self, kinds: Iterable[str]) -> list[int]:
        return [self._kind_codes[kind] for kind in kinds if kind in self._kind_codes]

    def _code(self, kind: str) -> int:
        return self._kind_codes.setdefault(kind, len(self._kind_codes))

    def _state(self, since: float) -> StreamState:
        return StreamState(self.embedder.name, self.embedder.dim, since, self.rejected_insights)

    def _emit(self, payload: Payload, now: datetime | None) -> None:
        if self.sink is not None:
            self.sink.emit(payload, t=now, agent=self.agent)

    def _load(self) -> None:
        state = self._store.state(self.agent)
        if state is None:
            self._store.save_state(self.agent, self._state(0.0))
            return
        if (state.embedder, state.dim) != (self.embedder.name, self.embedder.dim):
            raise ValueError(
                f"{self.agent}'s memories were embedded with {state.embedder!r} ({state.dim} "
                f"dims), but this stream uses {self.embedder.name!r} ({self.embedder.dim} dims); "
                "reopen it with the same embedder, or start a new database"
            )
        self.since_reflection = state.since_reflection
        self.rejected_insights = state.rejected_insights
        for chunk in self._store.load(self.agent, self.embedder.dim):
            first = self._columns.size
            waiting = [first + i for i in chunk.unembedded]
            for row, text in zip(
                waiting, self._store.texts(self.agent, [r + 1 for r in waiting]), strict=True
            ):
                self._unembedded[row] = text
            self._columns.append(
                (chunk.codes, chunk.scales),
                np.asarray(chunk.accessed_h),
                np.asarray(chunk.importance),
                np.asarray(chunk.valid, dtype=np.bool_),
                np.asarray([self._code(kind) for kind in chunk.kinds], dtype=np.int16),
            )
        for record_id, evidence in self._store.citations(self.agent):
            for source_id in evidence:
                self._citers[source_id].append(record_id)


def _metas(
    meta: dict[str, Any] | Sequence[dict[str, Any]] | None, count: int
) -> list[dict[str, Any]]:
    if meta is None or isinstance(meta, dict):
        return [meta or {}] * count
    given = list(meta)
    if len(given) != count:
        raise ValueError(f"add_many got {count} texts but {len(given)} meta mappings")
    return given
