"""Read an events.jsonl back, tolerating a torn last line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from simulacra.runlog.events import Event


def read_events(path: str | Path, kinds: set[str] | None = None) -> Iterator[Event]:
    """The events of a log in order, or only those of `kinds`."""
    # The writer puts `"kind":"<kind>"` in every line: lines of other kinds are skipped
    # without parsing them.
    marks = None if kinds is None else tuple(f'"kind":"{kind}"' for kind in kinds)
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            if not line.endswith("\n"):
                return  # a torn line from a killed writer: not an event
            if marks is not None and not any(mark in line for mark in marks):
                continue
            event = Event.from_json(line)
            if kinds is None or event.kind in kinds:
                yield event
