"""A run's events as tables: one pandas DataFrame per subject, with typed columns.

Each table is built from the event log alone (docs/events.md), so it reads a finished run,
a failed one and one still being written alike. Simulated times (`t`, `created_at`) are
naive datetimes; `wall` is UTC. Numbers are NumPy's int64, float64 and bool, text is
pandas' default `str`, and nested data (an event's `data`, a persona's traits, a
reflection's evidence) are Python objects: dicts and lists, one way everywhere. Every table
has the same columns and dtypes whether it has rows or not, so tables of many runs
concatenate and export to Parquet unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from simulacra.runlog import Event

# Column dtypes, in order, per table. "object" holds Python objects: dicts and lists.
TIME = "datetime64[us]"
UTC = "datetime64[us, UTC]"
_EVENTS = {
    "seq": "int64",
    "t": TIME,
    "wall": UTC,
    "kind": "str",
    "agent": "str",
    "data": "object",
}
_MEMORIES = {
    "seq": "int64",
    "t": TIME,
    "agent": "str",
    "id": "str",
    "kind": "str",
    "text": "str",
    "importance": "float64",
    "importance_source": "str",
    "evidence_ids": "object",
    "created_at": TIME,
    "valid": "bool",
    "invalidated_at": TIME,
    "invalid_reason": "str",
}
_RETRIEVALS = {
    "seq": "int64",
    "t": TIME,
    "agent": "str",
    "query": "str",
    "k": "float64",  # NaN: as many as fit the token budget (NumPy's missing number)
    "purpose": "str",
    "rank": "int64",
    "memory": "str",
    "recency": "float64",
    "importance": "float64",
    "relevance": "float64",
    "total": "float64",
}
_CALLS = {
    "seq": "int64",
    "t": TIME,
    "agent": "str",
    "purpose": "str",
    "model": "str",
    "prompt_tokens": "int64",
    "completion_tokens": "int64",
    "cached_prompt_tokens": "int64",
    "latency_s": "float64",
    "cached": "bool",
    "attempts": "int64",
    "fallback": "bool",
    "error": "str",
    "prompt_ref": "str",
}
_CALL_DEFAULTS = {"cached_prompt_tokens": 0}  # runs written before it was counted
_METRICS = {
    "seq": "int64",
    "t": TIME,
    "name": "str",
    "value": "float64",
    "agents": "object",
}


@dataclass(frozen=True)
class Table:
    """One table: the event kinds it reads and how it is built from them."""

    name: str
    kinds: frozenset[str] | None  # None: every kind
    build: Callable[[Iterable[Event]], pd.DataFrame]
    doc: str


def events_table(events: Iterable[Event]) -> pd.DataFrame:
    """Every event: `seq`, `t`, `wall`, `kind`, `agent` and `data`, the payload as a dict
    (docs/events.md lists each kind's fields; `pd.json_normalize(table["data"].tolist())`
    makes them columns)."""
    rows = [(e.seq, e.t, e.wall, e.kind, e.agent, e.data) for e in events]
    return _typed(rows, _EVENTS)


def agents_table(events: Iterable[Event]) -> pd.DataFrame:
    """One row per agent from the run's first event: `agent`, `name` and the persona's other
    fields (a list or a mapping as a Python list or dict)."""
    start = next((e for e in events if e.kind == "run"), None)
    agents = start.data.get("agents") if start is not None else None
    rows: list[dict[str, Any]] = []
    for agent, persona in (agents if isinstance(agents, Mapping) else {}).items():
        fields = dict(persona) if isinstance(persona, Mapping) else {}
        fields.pop("id", None)  # the agent column is the id
        row: dict[str, Any] = {"agent": str(agent), "name": str(fields.pop("name", agent))}
        row.update(fields)
        rows.append(row)
    frame = pd.DataFrame.from_records(rows, columns=union_columns(["agent", "name"], rows))
    text = ["agent", "name"]
    for column in frame.columns[2:]:
        values = frame[column].dropna()
        if len(values) and all(isinstance(v, str) for v in values):
            text.append(column)
        elif len(values) and all(_number(v) for v in values) and len(values) == len(frame):
            frame[column] = pd.to_numeric(frame[column])  # int64, or float64 for 2.5
        # Lists, mappings and fields that mix types stay Python objects.
    return frame.astype(dict.fromkeys(text, "str"))


def memories_table(events: Iterable[Event]) -> pd.DataFrame:
    """Every memory record written, with its provenance: `importance` and where it came
    from, `evidence_ids` (what a reflection rests on), `created_at` in simulated time, and
    `valid`: false once a correction invalidated it or a record it rests on (`invalidated_at`,
    `invalid_reason`)."""
    rows: list[list[Any]] = []
    fallen: dict[tuple[str | None, str], tuple[str | None, str]] = {}
    for e in events:
        d = e.data
        if e.kind == "memory.add":
            rows.append(
                [
                    e.seq,
                    e.t,
                    e.agent,
                    d.get("id"),
                    d.get("kind"),
                    d.get("text"),
                    d.get("importance"),
                    d.get("importance_source"),
                    [str(i) for i in d.get("evidence_ids") or []],
                    d.get("created_at"),
                ]
            )
        elif e.kind == "memory.invalidate":
            root = str(d.get("id"))
            fallen.setdefault((e.agent, root), (e.t, str(d.get("reason", ""))))
            for above in d.get("invalidated") or []:
                fallen.setdefault((e.agent, str(above)), (e.t, f"rests on {root}"))
    for row in rows:
        found = fallen.get((row[2], row[3]))
        row += [found is None, *(found or (None, None))]
    return _typed(rows, _MEMORIES)


def retrievals_table(events: Iterable[Event]) -> pd.DataFrame:
    """One row per record a retrieval returned: the retrieval (`seq`, `t`, `agent`, `query`,
    `k`, `purpose`), the record's `rank` (1 first) and `memory` id, and its normalised
    `recency`, `importance` and `relevance` with their weighted `total`."""
    rows = []
    for e in events:
        if e.kind != "retrieval":
            continue
        d = e.data
        for rank, hit in enumerate(d.get("results") or [], start=1):
            rows.append(
                (
                    e.seq,
                    e.t,
                    e.agent,
                    d.get("query"),
                    d.get("k"),
                    d.get("purpose", ""),
                    rank,
                    hit.get("id"),
                    hit.get("recency"),
                    hit.get("importance"),
                    hit.get("relevance"),
                    hit.get("total"),
                )
            )
    return _typed(rows, _RETRIEVALS)


def calls_table(events: Iterable[Event]) -> pd.DataFrame:
    """Every model call: `purpose` (plan.daily, react ...), `model`, tokens (of the prompt's,
    `cached_prompt_tokens` came from the server's prompt cache), `latency_s` (wall clock),
    whether the response cache answered, the attempts, whether the declared
    fallback stood in, and `prompt_ref`, the hash its prompt is kept under (None where the
    run kept no prompts)."""
    names = [n.removesuffix("_ref") for n in list(_CALLS)[3:]]
    rows = [
        (e.seq, e.t, e.agent, *(e.data.get(n, _CALL_DEFAULTS.get(n)) for n in names))
        for e in events
        if e.kind == "llm.call"
    ]
    return _typed(rows, _CALLS)


def metrics_table(events: Iterable[Event]) -> pd.DataFrame:
    """Every measure the run logged: the share of agents aware at each interview (`aware`,
    with those `agents`), then each headline figure at the end."""
    rows = [
        (e.seq, e.t, e.data.get("name"), e.data.get("value"), e.data.get("agents"))
        for e in events
        if e.kind == "metric"
    ]
    return _typed(rows, _METRICS)


TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        Table("events", None, events_table, "every event"),
        Table("agents", frozenset({"run"}), agents_table, "one row per agent"),
        Table(
            "memories",
            frozenset({"memory.add", "memory.invalidate"}),
            memories_table,
            "memory records",
        ),
        Table("retrievals", frozenset({"retrieval"}), retrievals_table, "retrieval scores"),
        Table("calls", frozenset({"llm.call"}), calls_table, "model calls"),
        Table("metrics", frozenset({"metric"}), metrics_table, "logged measures"),
    )
}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _typed(rows: Iterable[list[Any] | tuple[Any, ...]], schema: Mapping[str, str]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(list(rows), columns=list(schema))
    for column, dtype in schema.items():
        if dtype == TIME:
            frame[column] = pd.to_datetime(frame[column], format="ISO8601")
        elif dtype == UTC:
            frame[column] = pd.to_datetime(frame[column], unit="s", utc=True)
    return frame.astype({c: d for c, d in schema.items() if d != "object"})


def union_columns(first: list[str], rows: list[dict[str, Any]]) -> list[str]:
    """`first`, then every other key of `rows` in the order first seen."""
    seen = dict.fromkeys(first)
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)
