"""An append-only event log that never leaves a torn line behind, and knows its own digest."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from datetime import datetime
from pathlib import Path

from simulacra.runlog.events import Payload, event_line
from simulacra.runlog.stamp import stamp

_CHUNK = 1 << 20


def _complete_prefix(path: Path) -> tuple[int, int]:
    """Byte length of the whole lines in `path`, and how many lines that is."""
    if not path.exists():
        return 0, 0
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    return end, data.count(b"\n", 0, end)


def _hash_prefix(path: Path, size: int) -> hashlib._Hash | None:
    """A sha256 of the first `size` bytes of `path`, or None when the file is shorter."""
    digest = hashlib.sha256()
    left = size
    try:
        with path.open("rb") as fh:
            while left:
                chunk = fh.read(min(left, _CHUNK))
                if not chunk:
                    return None
                digest.update(chunk)
                left -= len(chunk)
    except FileNotFoundError:
        return None if size else digest
    return digest


def prefix_digest(path: str | Path, size: int) -> str | None:
    """The digest of a log's first `size` bytes, as a checkpoint records it (None when the
    log is shorter than that)."""
    digest = _hash_prefix(Path(path), size)
    return None if digest is None else f"sha256:{digest.hexdigest()}"


class EventWriter:
    """Buffers events and writes them in whole lines.

    `write()` (called after every tick) appends the buffer; `flush()` (at every checkpoint)
    also fsyncs it. A kill can only lose what was not written, and a resume continues from
    the last checkpoint; a torn last line left by a kill mid-write is cut off when the
    log is reopened. A write the disk refuses part-way is undone before the error is raised,
    so the log still ends with a whole line. `digest()` is the digest of everything written.
    Thread-safe: a live console logs what it receives from its own threads, mid-tick.
    """

    def __init__(
        self, path: str | Path, *, truncate_at: int | None = None, first_seq: int = 0
    ) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        size, lines = _complete_prefix(self.path)
        if truncate_at is not None:
            if truncate_at > size:
                raise ValueError(
                    f"{self.path}: cannot continue from byte {truncate_at}: the log holds only "
                    f"{size} bytes of whole lines"
                )
            size = truncate_at
            with self.path.open("rb") as fh:
                lines = fh.read(size).count(b"\n")
        with self.path.open("ab") as fh:
            fh.truncate(size)
        hashed = _hash_prefix(self.path, size)
        assert hashed is not None  # the file was just cut to `size`
        self._hash = hashed
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        self._lock = threading.RLock()
        self._buffer: list[bytes] = []
        self.seq = first_seq + lines  # a fork's log numbers on from its parent's prefix
        self.offset = size

    def emit(
        self,
        payload: Payload,
        *,
        t: datetime | str | None = None,
        agent: str | None = None,
    ) -> None:
        at = stamp(t) if isinstance(t, datetime) else t
        data = payload.to_data()
        with self._lock:
            self._buffer.append(event_line(self.seq, at, time.time(), payload.KIND, agent, data))
            self.seq += 1

    def write(self) -> int:
        """Append buffered events to the file, where readers (a live viewer) see them, without
        waiting for the disk; return the log's size in bytes afterwards."""
        with self._lock:
            if self._buffer:
                blob = b"".join(self._buffer)
                self._buffer.clear()
                self._write_all(blob)
                self._hash.update(blob)
                self.offset += len(blob)
            return self.offset

    def flush(self) -> int:
        """Write buffered events durably; return the log's size in bytes afterwards."""
        return self.mark()[0]

    def mark(self) -> tuple[int, str]:
        """Write buffered events durably; the log's size in bytes and its digest, together
        (a checkpoint's pair: no other thread's event falls between them)."""
        with self._lock:
            self.write()
            os.fsync(self._fd)
            return self.offset, self.digest()

    def _write_all(self, blob: bytes) -> None:
        # os.write may write less than it was given (a full disk, a file size limit): write
        # the rest, and if the system refuses, cut the log back to its last whole line.
        view = memoryview(blob)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError:
            os.ftruncate(self._fd, self.offset)
            raise

    def restart(self, first_seq: int) -> None:
        """Empty the log and number its events on from `first_seq`: a fork drops the steps it
        replayed to reach its fork point, which its parent's log already holds."""
        with self._lock:
            self._buffer.clear()
            os.ftruncate(self._fd, 0)
            self._hash = hashlib.sha256()
            self.offset = 0
            self.seq = first_seq

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def digest(self) -> str:
        """The digest of the log as written so far (see `prefix_digest`)."""
        with self._lock:
            return f"sha256:{self._hash.hexdigest()}"

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self.abandon()

    def abandon(self) -> None:
        """Close without writing what is still buffered (after the disk refused a write)."""
        with self._lock:
            if self._fd >= 0:
                self._buffer.clear()
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> EventWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
