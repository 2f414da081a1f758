"""Comparing two runs: the same events and metrics, wall-clock aside, or the first difference.

Two runs of one scenario with one seed on the scripted model or a response cache write the
same log. What may differ is measured in wall-clock time: each event's `wall`, a model call's
`latency_s`, the metrics' wall times, and a checkpoint's byte `offset` (it counts the bytes
those fields take). Those are left out, at any depth; so are the `console` events of a run
with a live console (a pause changes nothing; what a person fired is logged as any
intervention is), so that the run and its config with those interventions scheduled compare
equal.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any

import yaml

from simulacra.runlog.events import Event
from simulacra.runlog.lineage import history
from simulacra.runlog.reader import LogError

CONSOLE = "console"  # events a live console logs, left out of a comparison
WALL_KEYS = frozenset({"wall", "latency_s", "offset", "wall_s", "busy_s"})
METRICS = "metrics.json"
_END = "(no more events)"
SHOWN = 12  # settings or metrics a comparison names before it counts the rest


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
    """What two runs share and where they part.

    `difference`: the first difference of the events and metrics (None: the same run).
    `settings`: the resolved scenarios' fields that differ (config.yaml; where a run is
    written aside), and `scenarios` the two names when they are runs of different scenarios.
    `first_event`: the first event after the `run` header that differs. `metrics`: every
    figure of metrics.json that differs, the headline (`summary`) ones first."""

    events: int  # events compared (of the longer log)
    difference: Difference | None
    settings: tuple[Difference, ...] = ()
    first_event: Difference | None = None
    metrics: tuple[Difference, ...] = ()
    scenarios: tuple[str, str] | None = None  # set when they are different scenarios

    @property
    def same(self) -> bool:
        return self.difference is None

    def lines(self) -> list[str]:
        """What differs, in words, a line for the settings, the events and the metrics."""
        found = []
        if self.scenarios is not None:
            found.append(f"different scenarios: {self.scenarios[0]} and {self.scenarios[1]}")
        elif self.settings:
            found.append(f"settings: {_changes(self.settings)}")
        if self.first_event is not None:
            found.append(f"first event that differs: {self.first_event}")
        elif self.difference is not None and self.difference.where != METRICS:
            found.append(f"events: only the run header differs: {self.difference}")
        else:
            found.append(f"events: all {self.events} agree after the run header")
        if self.metrics:
            found.append(f"metrics that differ ({len(self.metrics)}): {_changes(self.metrics)}")
        else:
            found.append("metrics: the same")
        return found


def compare_runs(a: str | Path, b: str | Path) -> Comparison:
    """Compare two run directories: their resolved scenarios, their whole histories (the
    `run` header, then the first event after it that differs), then their metrics.json."""
    a, b = Path(a), Path(b)
    header: Difference | None = None
    first: Difference | None = None
    count = 0
    # A fork's history is its parent's up to the fork point, then its own.
    events = zip_longest(_compared(a), _compared(b))
    for count, (x, y) in enumerate(events, start=1):
        left = None if x is None else _comparable(*x)
        right = None if y is None else _comparable(*y)
        if left == right:
            continue
        event = (x or y or (None,))[0]
        assert event is not None
        where = f"events.jsonl line {count} (seq {event.seq}, {event.kind} at {event.t})"
        if left is None or right is None:
            found = Difference(where, "", left or _END, right or _END)
        else:
            found = Difference(where, *_first_change(left, right, ""))
        if count == 1 and event.kind == "run":
            header = found
        else:
            first = found
            break
    metrics = tuple(_metric_changes(_metrics(a), _metrics(b)))
    names = _names(a), _names(b)
    settings = tuple(_setting_changes(_config(a), _config(b)))
    earliest = header or first or (metrics[0] if metrics else None)
    return Comparison(
        count,
        earliest,
        settings,
        first,
        metrics,
        names if names[0] != names[1] else None,
    )


def _compared(run: Path) -> Iterator[tuple[Event, int]]:
    """The run's history but a console's events (CONSOLE: a person pausing, or what they
    fired, which the log holds as any intervention), each with its seq counted without them."""
    skipped = 0
    for event in history(run):
        if event.kind == CONSOLE:
            skipped += 1
        else:
            yield event, event.seq - skipped


def _comparable(event: Event, seq: int) -> dict[str, Any]:
    # The kind before the time: where one run has an event the other lacks (a fork's
    # intervention), "world != intervention" says more than the next tick's time.
    return {
        "seq": seq,
        "kind": event.kind,
        "t": event.t,
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


def _config(run: Path) -> Any:
    path = run / "config.yaml"
    if not path.is_file():
        return {}
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError:
        return {}  # a damaged config.yaml: the events still say what differs


def _names(run: Path) -> str:
    found = _config(run)
    return str(found.get("name", "")) if isinstance(found, dict) else ""


def _setting_changes(a: Any, b: Any) -> list[Difference]:
    """Each field of two resolved scenarios that differs, by its path; where the runs were
    written (`output`) is no difference between them."""
    return [
        Difference("config.yaml", path, p, q)
        for path, p, q in _leaf_changes(a, b, "")
        if not path.startswith("output.")
    ]


def _metric_changes(a: Any, b: Any) -> list[Difference]:
    """Each figure of two metrics.json that differs, the headline (`summary`) ones first."""
    changes = [Difference(METRICS, path, p, q) for path, p, q in _leaf_changes(a, b, "")]
    return sorted(changes, key=lambda d: not d.field.startswith("summary."))


def _leaf_changes(a: Any, b: Any, path: str) -> list[tuple[str, Any, Any]]:
    if isinstance(a, dict) and isinstance(b, dict):
        found = []
        for key in list(a) + [k for k in b if k not in a]:
            p, q = a.get(key, "(absent)"), b.get(key, "(absent)")
            if p != q:
                found += _leaf_changes(p, q, _at(path, str(key)))
        return found
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        found = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                found += _leaf_changes(x, y, f"{path}[{i}]")
        return found
    return [] if a == b else [(path, a, b)]


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


def _changes(differences: tuple[Difference, ...]) -> str:
    shown = "; ".join(f"{d.field} {_show(d.a)} != {_show(d.b)}" for d in differences[:SHOWN])
    more = len(differences) - SHOWN
    return shown + (f" (and {more} more)" if more > 0 else "")


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 200 else text[:197] + "..."
