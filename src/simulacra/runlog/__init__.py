"""The run log: the event schema, an append-only writer, a reader and the run directory."""

from simulacra.runlog.events import KINDS, Event, EventSink
from simulacra.runlog.reader import read_events
from simulacra.runlog.rundir import RunDir, versions
from simulacra.runlog.writer import EventWriter

__all__ = ["KINDS", "Event", "EventSink", "EventWriter", "RunDir", "read_events", "versions"]
