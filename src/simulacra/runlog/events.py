"""The event schema: one JSON object a line in events.jsonl."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

# The kinds the design names; worlds may add their own.
KINDS = frozenset(
    {
        "observation",
        "memory.add",
        "retrieval",
        "reflection",
        "plan",
        "decision",
        "action",
        "message",
        "llm.call",
        "world",
        "intervention",
        "metric",
        "checkpoint",
        "run",
    }
)


@dataclass(frozen=True)
class Event:
    seq: int
    t: str | None  # simulated time, ISO 8601; None for events outside simulated time
    wall: float  # wall-clock seconds since the epoch; ignored when comparing runs
    kind: str
    agent: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(
            {
                "seq": self.seq,
                "t": self.t,
                "wall": round(self.wall, 6),
                "kind": self.kind,
                "agent": self.agent,
                "data": self.data,
            },
            ensure_ascii=False,
            separators=(",", ":"),
            default=str,
        )

    @classmethod
    def from_json(cls, line: str) -> Event:
        raw = json.loads(line)
        return cls(
            seq=int(raw["seq"]),
            t=raw.get("t"),
            wall=float(raw.get("wall", 0.0)),
            kind=str(raw["kind"]),
            agent=raw.get("agent"),
            data=dict(raw.get("data") or {}),
        )


class EventSink(Protocol):
    """Anything that records events: `EventWriter` is one; tests pass a list-backed one."""

    def emit(
        self,
        kind: str,
        data: dict[str, Any],
        *,
        t: datetime | None = None,
        agent: str | None = None,
    ) -> object: ...
