"""The run log: the event schema, an append-only writer, a reader and the run directory."""

from simulacra.runlog.compare import Comparison, Difference, compare_runs
from simulacra.runlog.events import EVENT_KINDS, Event, EventSink
from simulacra.runlog.lineage import ForkPoint, children, fork_point, history, lineage
from simulacra.runlog.lock import RunLock, RunLocked
from simulacra.runlog.minds import MINDS, model_label
from simulacra.runlog.output import RunFolderError
from simulacra.runlog.reader import LogError, LogTail, read_events
from simulacra.runlog.rundir import RunDir, RunDirError, versions
from simulacra.runlog.writer import EventWriter, prefix_digest

__all__ = [
    "EVENT_KINDS",
    "MINDS",
    "Comparison",
    "Difference",
    "Event",
    "EventSink",
    "EventWriter",
    "ForkPoint",
    "LogError",
    "LogTail",
    "RunDir",
    "RunDirError",
    "RunFolderError",
    "RunLock",
    "RunLocked",
    "children",
    "compare_runs",
    "fork_point",
    "history",
    "lineage",
    "model_label",
    "prefix_digest",
    "read_events",
    "versions",
]
