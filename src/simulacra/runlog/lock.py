"""A run directory's lock: one process writes a run at a time.

The lock is an advisory `flock` on `<run>/run.lock`, which also holds the writer's process id
for the error message. The kernel drops the lock when its process ends, however it ends, so a
killed run can be resumed at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from simulacra.errors import UserError

LOCK_FILE = "run.lock"


class RunLocked(UserError):
    """Another process is writing this run directory."""


class RunLock:
    """Held from `acquire` until `release` (or the process's end)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    @classmethod
    def acquire(cls, run: Path) -> RunLock:
        fd = os.open(run / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise RunLocked(
                f"{run} is being written by another process (pid {holder}); wait for that run "
                "to end, or stop it, then resume it with simulacra run --resume"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        return cls(fd)

    def release(self) -> None:
        if self._fd < 0:
            return
        with contextlib.suppress(OSError):  # the lock goes with the descriptor anyway
            os.ftruncate(self._fd, 0)
        os.close(self._fd)
        self._fd = -1
