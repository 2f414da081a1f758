"""The envelope of an event line (`seq`, `t`, `wall`, `kind`, `agent`, `data`), the registry
of kinds, and the sink that writers and tests implement."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import orjson

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
from simulacra.runlog.events.lab import (
    LabAttempt,
    LabCommand,
    LabEpisode,
    LabIteration,
    LabLint,
    LabMemory,
)
from simulacra.runlog.events.payload import Payload
from simulacra.runlog.events.run import (
    CheckpointSaved,
    ConsoleAction,
    InterventionFired,
    Measured,
    RunEnded,
    RunStarted,
    WorldState,
)

PAYLOADS: dict[str, type[Payload]] = {
    cls.KIND: cls
    for cls in (
        RunStarted,
        RunEnded,
        WorldState,
        Observed,
        MemoryAdded,
        MemoryInvalidated,
        Retrieval,
        Reflected,
        Planned,
        PlaceLearned,
        Decided,
        Acted,
        MessageSent,
        ConversationHeld,
        InterventionFired,
        ConsoleAction,
        Interviewed,
        ModelCall,
        Measured,
        CheckpointSaved,
        LabCommand,
        LabAttempt,
        LabEpisode,
        LabMemory,
        LabLint,
        LabIteration,
    )
}
EVENT_KINDS = frozenset(PAYLOADS)


@dataclass(frozen=True)
class Event:
    seq: int
    t: str | None  # simulated time, ISO 8601; None for events outside simulated time
    wall: float  # wall-clock seconds since the epoch; ignored when comparing runs
    kind: str
    agent: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def payload(self) -> Payload:
        """The data as its kind's class."""
        cls = PAYLOADS.get(self.kind)
        if cls is None:
            raise ValueError(f"event {self.seq}: unknown kind {self.kind!r}")
        return cls.from_data(self.data)

    def to_line(self) -> bytes:
        """The event as one line of the log (see `line`)."""
        return event_line(self.seq, self.t, self.wall, self.kind, self.agent, self.data)

    def to_json(self) -> str:
        return self.to_line()[:-1].decode()

    @classmethod
    def from_json(cls, line: str | bytes) -> Event:
        raw = _loads(line.encode() if isinstance(line, str) else line)
        return cls(
            seq=int(raw["seq"]),
            t=raw.get("t"),
            wall=float(raw.get("wall", 0.0)),
            kind=str(raw["kind"]),
            agent=raw.get("agent"),
            data=dict(raw.get("data") or {}),
        )


def event_line(
    seq: int, t: str | None, wall: float, kind: str, agent: str | None, data: dict[str, Any]
) -> bytes:
    """An event as one line of the log: compact UTF-8 JSON ending in a newline. What JSON has
    no type for is written as its str(). The writer calls it without building an Event."""
    envelope = {
        "seq": seq,
        "t": t,
        "wall": round(wall, 6),
        "kind": kind,
        "agent": agent,
        "data": data,
    }
    try:
        return orjson.dumps(envelope, default=str, option=_LINE)
    except orjson.JSONEncodeError:  # an integer beyond 64 bits, which only json writes
        compact = json.dumps(envelope, ensure_ascii=False, separators=(",", ":"), default=str)
        return f"{compact}\n".encode()


def _loads(text: bytes) -> Any:
    # orjson reads an integer beyond 64 bits as a float, and refuses NaN and Infinity (which
    # json.dumps wrote in older logs): json reads those lines exactly.
    if _LONG_DIGITS.search(text) is None:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


_LONG_DIGITS = re.compile(rb"\d{19}")
# Datetimes and dataclasses go through str() as json.dumps(default=str) wrote them.
_LINE = (
    orjson.OPT_APPEND_NEWLINE
    | orjson.OPT_NON_STR_KEYS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
)


class EventSink(Protocol):
    """Anything that records events: `EventWriter` is one; tests pass a list-backed one."""

    def emit(
        self,
        payload: Payload,
        *,
        t: datetime | None = None,
        agent: str | None = None,
    ) -> object: ...
