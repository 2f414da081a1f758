"""The replay of a run still being written, for `simulacra view RUN --live`.

The log is followed (only the lines written since the last look are read) and the replay is
rebuilt when it or run.json changed; the viewer polls it and asks again with the ETag it
has, so a run that is slow to write its next tick costs a 304 per poll, not a rebuild.
A fork's replay opens with its parent's history up to the fork point (read once), and its
page shows its family (the tree, the fork point and first difference on the scrubber).
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from simulacra.report.cost import read_cost
from simulacra.report.family import viewer_family
from simulacra.report.replay import build_replay
from simulacra.report.replay_model import Replay
from simulacra.runlog import Event, LogTail, RunDir, fork_point, history


class LiveReplay:
    """A run's replay as it stands now: `current()` gives its ETag and JSON body."""

    def __init__(self, run: Path) -> None:
        self.run = RunDir(run)
        # A fork's own log starts at its fork point: its history is its parent's before it.
        point = fork_point(run)
        self._prefix = list(history(run, end=0)) if point is not None else []
        self._tail = LogTail(self.run.events_path, point.seq if point is not None else 0)
        self._events: list[Event] = []
        self._seen: tuple[int, int] | None = None
        self._replay: Replay | None = None
        self._etag = ""
        self._body = b""
        self._lock = threading.Lock()  # the server answers each request in its own thread
        self._price = read_cost(run).get("price")  # the config is written once, before the run

    def current(self) -> tuple[str, bytes]:
        """The replay's ETag and its JSON, rebuilt only when the run wrote something."""
        with self._lock:
            self._refresh()
            return self._etag, self._body

    def replay(self) -> Replay:
        """The replay as it stands now."""
        with self._lock:
            self._refresh()
            assert self._replay is not None
            return self._replay

    def family(self) -> str:
        """The viewer's family for the run as it stands ("" for a run in none)."""
        with self._lock:
            self._refresh()
            assert self._replay is not None
            return viewer_family(self.run.path, self._replay, self._prefix + self._events)

    def _refresh(self) -> None:
        new = self._tail.read()
        if self._tail.restarted:
            self._events = []
        self._events += new
        seen = (self._tail.offset, _mtime(self.run.run_json))
        if seen == self._seen and self._replay is not None:
            return
        self._replay = build_replay(self._prefix + self._events, self.run.info(), self._price)
        self._body = json.dumps(self._replay.to_dict(), ensure_ascii=False).encode("utf-8")
        self._etag = '"' + hashlib.sha256(self._body).hexdigest()[:32] + '"'
        self._seen = seen


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return 0
