"""A run's tables as Parquet files, for pandas, DuckDB, Polars or R to read back."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from simulacra.api.tables import TABLES
from simulacra.errors import UserError
from simulacra.runlog import history


class ExportError(UserError):
    """Tables that cannot be written: a missing Parquet engine, a folder that cannot hold them."""


def run_tables(
    events_path: Path, extra: Mapping[str, Any] | None = None
) -> dict[str, pd.DataFrame]:
    """Every table of one run, from one pass over its log; `extra` columns (a sweep's run,
    variant and replicate) lead each table. A fork's tables hold its whole history."""
    events = list(history(events_path.parent))
    found = {}
    for name, table in TABLES.items():
        frame = table.build(events)
        for i, (column, value) in enumerate((extra or {}).items()):
            frame.insert(i, column, pd.Series([value] * len(frame), dtype=_dtype(value)))
        found[name] = frame
    return found


def write_parquet(frame: pd.DataFrame, path: Path) -> Path:
    """Write one table; name what is missing when the Parquet engine is not installed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        _with_mappings_as_json(frame).to_parquet(path, index=False)
    except ImportError as exc:
        raise ExportError(
            f"writing {path.name} needs pyarrow, which is not installed: "
            'pip install "simulacra[data]"'
        ) from exc
    return path


def _with_mappings_as_json(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns holding dicts (an event's `data`, a persona's relationships) as JSON text:
    each kind of event has other fields, which no one Parquet type holds; DuckDB reads them
    with its JSON functions, pandas with `json.loads`. Lists stay Parquet lists."""
    mapped = [
        c
        for c in frame.columns
        if frame[c].dtype == object and any(isinstance(v, dict) for v in frame[c])
    ]
    if not mapped:
        return frame
    out = frame.copy()
    for column in mapped:
        out[column] = [
            None if v is None else json.dumps(v, ensure_ascii=False) for v in frame[column]
        ]
        out[column] = out[column].astype("str")
    return out


def fresh(outputs: list[Path], source: Path) -> bool:
    """True when every output exists and is newer than `source` (a run's event log)."""
    made = [p.stat().st_mtime for p in outputs if p.exists()]
    return len(made) == len(outputs) and min(made) >= source.stat().st_mtime


def _dtype(value: Any) -> str:
    return "int64" if isinstance(value, int) and not isinstance(value, bool) else "str"
