"""What a memory is: the record and a scored retrieval result."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

OBSERVATION = "observation"
REFLECTION = "reflection"
PLAN = "plan"
DIALOGUE = "dialogue"
THOUGHT = "thought"  # an inner thought: planted by a scenario, or what news means for plans
# Worlds add their own kinds (episode, pattern ...); these are the ones the mind writes.
RECORD_KINDS = (OBSERVATION, REFLECTION, PLAN, DIALOGUE, THOUGHT)
# What an agent saw or heard, as opposed to what it made of it (a plan, a reflection): the
# records that show an interview's answer was not invented (see InterviewAnswer.evidence).
WITNESSED = (OBSERVATION, DIALOGUE)


@dataclass(frozen=True)
class MemoryRecord:
    """One entry of an agent's memory stream, with its provenance.

    `importance_source` says who rated the importance: a model name, "rule", "fixed" (a
    configured constant) or "given" (the caller supplied it). `evidence_ids` are the records
    a reflection (or any derived record) rests on; it is valid only while they are.
    """

    id: str
    agent: str
    kind: str
    text: str
    created_at: datetime
    last_accessed_at: datetime
    importance: float
    importance_source: str
    evidence_ids: tuple[str, ...] = ()
    valid: bool = True
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Retrieved:
    """A retrieved record with its min-max normalised components and their weighted total."""

    record: MemoryRecord
    recency: float
    importance: float
    relevance: float
    total: float


class Statement(NamedTuple):
    """What reflection reads of a recent record: its text and its importance."""

    text: str
    importance: float
