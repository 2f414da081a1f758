"""Read an events.jsonl back, tolerating a torn last line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from simulacra.runlog.events import Event


def read_events(path: str | Path, kinds: set[str] | None = None) -> Iterator[Event]:
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            if not line.endswith("\n"):
                return  # a torn line from a killed writer: not an event
            event = Event.from_json(line)
            if kinds is None or event.kind in kinds:
                yield event
