"""The memory stream: records with provenance, three-factor retrieval, reflection, invalidation."""

from simulacra.memory.consolidation import PATTERN, consolidate, merge
from simulacra.memory.importance import ImportancePolicy, rule_importance
from simulacra.memory.record import (
    DIALOGUE,
    OBSERVATION,
    PLAN,
    RECORD_KINDS,
    REFLECTION,
    THOUGHT,
    WITNESSED,
    MemoryRecord,
    Retrieved,
)
from simulacra.memory.reflection import ReflectionConfig, ReflectionOutcome, RejectedInsight
from simulacra.memory.scoring import Weights, approx_tokens, min_max, recency, score, sim_hours
from simulacra.memory.stream import MemoryStream
from simulacra.runlog import EventSink

__all__ = [
    "DIALOGUE",
    "OBSERVATION",
    "PATTERN",
    "PLAN",
    "RECORD_KINDS",
    "REFLECTION",
    "THOUGHT",
    "WITNESSED",
    "EventSink",
    "ImportancePolicy",
    "MemoryRecord",
    "MemoryStream",
    "ReflectionConfig",
    "ReflectionOutcome",
    "RejectedInsight",
    "Retrieved",
    "Weights",
    "approx_tokens",
    "consolidate",
    "merge",
    "min_max",
    "recency",
    "rule_importance",
    "score",
    "sim_hours",
]
