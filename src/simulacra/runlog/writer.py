"""An append-only event log that never leaves a torn line behind."""

from __future__ import annotations

import os
import time
from datetime import datetime
from pathlib import Path

from simulacra.runlog.events import Event, Payload


def _complete_prefix(path: Path) -> tuple[int, int]:
    """Byte length of the whole lines in `path`, and how many lines that is."""
    if not path.exists():
        return 0, 0
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    return end, data.count(b"\n", 0, end)


class EventWriter:
    """Buffers events and writes them in whole lines.

    `flush()` (called at every checkpoint) appends the buffer with one write and fsyncs it. A
    kill can only lose what was not flushed; a torn last line left by a kill mid-write is cut
    off when the log is reopened.
    """

    def __init__(self, path: str | Path, *, truncate_at: int | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        size, lines = _complete_prefix(self.path)
        if truncate_at is not None:
            size = min(size, truncate_at)
            with self.path.open("rb") as fh:
                lines = fh.read(size).count(b"\n")
        with self.path.open("ab") as fh:
            fh.truncate(size)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        self._buffer: list[str] = []
        self.seq = lines
        self.offset = size

    def emit(
        self,
        payload: Payload,
        *,
        t: datetime | str | None = None,
        agent: str | None = None,
    ) -> Event:
        stamp = t.isoformat() if isinstance(t, datetime) else t
        event = Event(self.seq, stamp, time.time(), payload.KIND, agent, payload.to_data())
        self.seq += 1
        self._buffer.append(event.to_json() + "\n")
        return event

    def flush(self) -> int:
        """Write buffered events durably; return the log's size in bytes afterwards."""
        if self._buffer:
            blob = "".join(self._buffer).encode()
            self._buffer.clear()
            os.write(self._fd, blob)
            os.fsync(self._fd)
            self.offset += len(blob)
        return self.offset

    def close(self) -> None:
        self.flush()
        os.close(self._fd)

    def __enter__(self) -> EventWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
