"""Read an events.jsonl back, tolerating a torn last line and naming any damage."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from simulacra.errors import UserError
from simulacra.runlog.events import Event

_KIND = re.compile(rb'"kind":"([^"]*)"')


class LogError(UserError, ValueError):
    """An event log that is missing or damaged."""


def read_events(
    path: str | Path, kinds: set[str] | None = None, *, end: int | None = None
) -> Iterator[Event]:
    """The events of a log in order, or only those of `kinds`; `end`: only those of its first
    `end` bytes (a fork's prefix). A missing log or a line that is not an event raises
    LogError naming the file and the line."""
    path = Path(path)
    # Lines of other kinds are skipped without parsing them: the writer puts the envelope's
    # `"kind":"<kind>"` before the data, so its first such pair is the line's kind.
    wanted = None if kinds is None else {kind.encode() for kind in kinds}
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        raise LogError(
            f"{path}: the event log is missing; a run writes it from its first tick, so this "
            "run never started or its log was removed: run the scenario again"
        ) from None
    read = 0
    with fh:
        for number, line in enumerate(fh, start=1):
            read += len(line)
            if end is not None and read > end:
                return
            if not line.endswith(b"\n"):
                return  # a torn line from a killed writer: not an event
            if wanted is not None:
                found = _KIND.search(line)
                if found is None or found[1] not in wanted:
                    continue
            event = _parse(line, path, number)
            if kinds is None or event.kind in kinds:
                yield event


class LogTail:
    """Follow a log while a run writes it: each `read()` returns the events of the whole
    lines written since the last one. A log that no longer continues what was read (a resume
    cut it back to its checkpoint) is read again from its start, and `restarted` says so.
    `first` is the seq of its first line: a fork's log goes on from its parent's prefix."""

    def __init__(self, path: str | Path, first: int = 0) -> None:
        self.path = Path(path)
        self.first = first
        self.offset = 0
        self.lines = first
        self.restarted = False

    def read(self) -> list[Event]:
        events = self._next()
        self.restarted = events is None
        if events is None:
            self.offset, self.lines = 0, self.first
            events = self._next() or []
        return events

    def _next(self) -> list[Event] | None:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            size = 0  # the run has not written its first event yet
        if size < self.offset:
            return None
        if size == self.offset:
            return []
        with self.path.open("rb") as fh:
            fh.seek(self.offset)
            blob = fh.read(size - self.offset)
        whole = blob[: blob.rfind(b"\n") + 1]  # a line still being written waits
        lines = whole.splitlines()
        at = self.lines - self.first  # lines of this file already read
        events = [_parse(line, self.path, at + i) for i, line in enumerate(lines, 1)]
        if events and events[0].seq != self.lines:  # seq numbers the lines from 0
            return None
        self.offset += len(whole)
        self.lines += len(events)
        return events


def _parse(line: bytes, path: Path, number: int) -> Event:
    try:
        return Event.from_json(line)
    except (ValueError, KeyError, TypeError) as exc:
        raise LogError(
            f"{path}, line {number}: not an event ({type(exc).__name__}: {exc}); the "
            "log is damaged: restore it from a copy, or run the scenario again"
        ) from None
