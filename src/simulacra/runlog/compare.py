"""Comparing two runs: the same events and metrics, wall-clock aside, or the first difference.

Two runs of one scenario with one seed on the scripted model or a response cache write the
same log. What may differ is measured in wall-clock time: each event's `wall`, a model call's
`latency_s`, the metrics' wall times, and a checkpoint's byte `offset` (it counts the bytes
those fields take). Those are left out, at any depth.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any

from simulacra.runlog.reader import LogError, read_events

WALL_KEYS = frozenset({"wall", "latency_s", "offset", "wall_s", "busy_s"})
METRICS = "metrics.json"
_END = "(no more events)"


def without_wall(value: Any) -> Any:
    """`value` with every WALL_KEYS field removed, at any depth."""
    if isinstance(value, dict):
        return {k: without_wall(v) for k, v in value.items() if k not in WALL_KEYS}
    if isinstance(value, list):
        return [without_wall(v) for v in value]
    return value


@dataclass(frozen=True)
class Difference:
    """Where two runs first part: the file and line, the field, and both values."""

    where: str
    field: str
    a: Any
    b: Any

    def __str__(self) -> str:
        field = f" {self.field}:" if self.field else ""
        return f"{self.where}:{field} {_show(self.a)} != {_show(self.b)}"


@dataclass(frozen=True)
class Comparison:
    events: int  # events compared (of the longer log)
    difference: Difference | None

    @property
    def same(self) -> bool:
        return self.difference is None


def compare_runs(a: str | Path, b: str | Path) -> Comparison:
    """Compare two run directories' events.jsonl, then their metrics.json."""
    a, b = Path(a), Path(b)
    count = 0
    events = zip_longest(read_events(a / "events.jsonl"), read_events(b / "events.jsonl"))
    for count, (x, y) in enumerate(events, start=1):
        left = None if x is None else _comparable(x)
        right = None if y is None else _comparable(y)
        if left != right:
            first = x or y
            assert first is not None
            where = f"events.jsonl line {count} (seq {first.seq}, {first.kind} at {first.t})"
            if left is None or right is None:
                return Comparison(count, Difference(where, "", left or _END, right or _END))
            field, p, q = _first_change(left, right, "")
            return Comparison(count, Difference(where, field, p, q))
    left, right = _metrics(a), _metrics(b)
    if left != right:
        field, p, q = _first_change(left, right, "")
        return Comparison(count, Difference(METRICS, field, p, q))
    return Comparison(count, None)


def _comparable(event: Any) -> dict[str, Any]:
    return {
        "seq": event.seq,
        "t": event.t,
        "kind": event.kind,
        "agent": event.agent,
        "data": without_wall(event.data),
    }


def _metrics(run: Path) -> Any:
    path = run / METRICS
    if not path.is_file():
        return "(no metrics.json)"
    try:
        return without_wall(json.loads(path.read_text(encoding="utf-8")))
    except ValueError as exc:
        raise LogError(f"{path}: not JSON ({exc}); the run's metrics are damaged") from None


def _first_change(a: Any, b: Any, path: str) -> tuple[str, Any, Any]:
    """The path of the first field where `a` and `b` differ, and both values there."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b or a[key] != b[key]:
                return _first_change(a.get(key, "(absent)"), b.get(key, "(absent)"), _at(path, key))
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip_longest(a, b, fillvalue="(absent)")):
            if x != y:
                return _first_change(x, y, f"{path}[{i}]")
    return path, a, b


def _at(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 200 else text[:197] + "..."
