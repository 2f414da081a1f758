"""The run log: the event schema, an append-only writer, a reader and the run directory."""

from simulacra.runlog.compare import Comparison, Difference, compare_runs
from simulacra.runlog.events import KINDS, Event, EventSink
from simulacra.runlog.lock import RunLock, RunLocked
from simulacra.runlog.output import OutputError
from simulacra.runlog.reader import LogError, LogTail, read_events
from simulacra.runlog.rundir import RunDir, RunDirError, versions
from simulacra.runlog.writer import EventWriter, prefix_digest

__all__ = [
    "KINDS",
    "Comparison",
    "Difference",
    "Event",
    "EventSink",
    "EventWriter",
    "LogError",
    "LogTail",
    "OutputError",
    "RunDir",
    "RunDirError",
    "RunLock",
    "RunLocked",
    "compare_runs",
    "prefix_digest",
    "read_events",
    "versions",
]
