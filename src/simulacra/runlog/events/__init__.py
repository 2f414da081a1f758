"""The event schema: one JSON object a line in events.jsonl, one class per event kind.

Every line is an envelope (`seq`, `t`, `wall`, `kind`, `agent`) around `data`, the fields of
the kind's class: `run` (the run and its world), `agents` (what an agent does, and its model
calls) and `lab` (the SUMO lab), on `payload.Payload`; `envelope` holds the line and the
registry of kinds. Writers emit instances of these classes; readers get them back from
`Event.payload`. docs/events.md is generated from them (`python scripts/events_doc.py`).
One word per concept in every world: `step` is a tick's number (0 is the start state),
`parsed` a validated answer, `to` the recipients of a message.
"""

from simulacra.runlog.events.agents import (
    Acted,
    ConversationHeld,
    Decided,
    Interviewed,
    MemoryAdded,
    MemoryInvalidated,
    MessageSent,
    ModelCall,
    Observed,
    PlaceLearned,
    Planned,
    Reflected,
    Retrieval,
)
from simulacra.runlog.events.envelope import EVENT_KINDS, PAYLOADS, Event, EventSink, event_line
from simulacra.runlog.events.lab import (
    LabAttempt,
    LabCommand,
    LabEpisode,
    LabIteration,
    LabLint,
    LabMemory,
)
from simulacra.runlog.events.payload import Payload
from simulacra.runlog.events.reference import reference
from simulacra.runlog.events.run import (
    CheckpointSaved,
    ConsoleAction,
    InterventionFired,
    Measured,
    RunEnded,
    RunStarted,
    WorldState,
)

__all__ = [
    "EVENT_KINDS",
    "PAYLOADS",
    "Acted",
    "CheckpointSaved",
    "ConsoleAction",
    "ConversationHeld",
    "Decided",
    "Event",
    "EventSink",
    "InterventionFired",
    "Interviewed",
    "LabAttempt",
    "LabCommand",
    "LabEpisode",
    "LabIteration",
    "LabLint",
    "LabMemory",
    "Measured",
    "MemoryAdded",
    "MemoryInvalidated",
    "MessageSent",
    "ModelCall",
    "Observed",
    "Payload",
    "PlaceLearned",
    "Planned",
    "Reflected",
    "Retrieval",
    "RunEnded",
    "RunStarted",
    "WorldState",
    "event_line",
    "reference",
]
