"""Read an events.jsonl back, tolerating a torn last line and naming any damage."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from simulacra.errors import UserError
from simulacra.runlog.events import Event


class LogError(UserError, ValueError):
    """An event log that is missing or damaged."""


def read_events(path: str | Path, kinds: set[str] | None = None) -> Iterator[Event]:
    """The events of a log in order, or only those of `kinds`. A missing log or a line that
    is not an event raises LogError naming the file and the line."""
    path = Path(path)
    # The writer puts `"kind":"<kind>"` in every line: lines of other kinds are skipped
    # without parsing them.
    marks = None if kinds is None else tuple(f'"kind":"{kind}"'.encode() for kind in kinds)
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        raise LogError(
            f"{path}: the event log is missing; a run writes it from its first tick, so this "
            "run never started or its log was removed: run the scenario again"
        ) from None
    with fh:
        for number, line in enumerate(fh, start=1):
            if not line.endswith(b"\n"):
                return  # a torn line from a killed writer: not an event
            if marks is not None and not any(mark in line for mark in marks):
                continue
            try:
                event = Event.from_json(line.decode("utf-8"))
            except (ValueError, KeyError, TypeError) as exc:
                raise LogError(
                    f"{path}, line {number}: not an event ({type(exc).__name__}: {exc}); the "
                    "log is damaged: restore it from a copy, or run the scenario again"
                ) from None
            if kinds is None or event.kind in kinds:
                yield event
