"""Where a memory came from, in the few words a prompt puts before it: the guide's provenance
risk is a belief read as a fact ("I infer he cares about research" taken for "he said he
cares about research"), so each memory line says whether it was seen, heard from someone,
planned, inferred or thought.

The labels are single common words in brackets (a name where someone said it): a 135M model
reads "[inferred]" before a line, where a legend at the head of the prompt it would not
connect to the lines below.
"""

from __future__ import annotations

from simulacra.memory import DIALOGUE, OBSERVATION, PLAN, REFLECTION, MemoryRecord

THOUGHT = "thought"  # a thought put into an agent's mind (an intervention's), by its kind
# What the longest label but "heard from NAME" costs, in approx_tokens ("[inferred] "): a
# prompt line budgets this much beside its text. A dialogue's names cost a few tokens more,
# on a record of a hundred or more, well inside the tokenizer's slack (scoring.py).
LABEL_TOKENS = 3


def label(record: MemoryRecord) -> str:
    """The provenance of `record`: seen, heard (from whom, where known), planned, inferred,
    thought; a kind the mind does not write is named by its kind."""
    meta = record.meta or {}
    intervention = meta.get("intervention")
    if record.kind == DIALOGUE:
        names = meta.get("names")  # who else took part (Agent.remember_conversation)
        return f"heard from {names}" if isinstance(names, str) and names else "heard"
    if record.kind == PLAN:
        return "planned"
    if record.kind == REFLECTION:
        return "inferred"
    if record.kind == THOUGHT or intervention == "thought":
        return "thought"
    if intervention == "correction":
        return "heard"  # news the world gives the agent: told, not seen
    if record.kind == OBSERVATION:
        return "seen"
    return record.kind
