"""A correction invalidates what it contradicts, with what rests on it; interviews then rest on
the correction."""

from __future__ import annotations

from datetime import timedelta

from simulacra.llm import ScriptedModel
from simulacra.runlog import EventWriter, read_events

from .conftest import KLAUS, MONDAY, MakeAgent

NOON = MONDAY + timedelta(hours=12)
CANCELLED = "Isabella called off the Valentine's party at Hobbs Cafe."


async def test_a_correction_invalidates_contradicted_memories_and_their_reflections(
    model: ScriptedModel, make_agent: MakeAgent, events: EventWriter
) -> None:
    klaus = make_agent(KLAUS)
    memory = klaus.memory
    told = await memory.add("dialogue", "Isabella: come to my party at Hobbs Cafe!", NOON, 6.0)
    other = await memory.add("observation", "the library is quiet", NOON, 2.0)
    insight = await memory.add("reflection", "Klaus looks forward to Friday", NOON, 5.0, [told.id])
    above = await memory.add("reflection", "Klaus is sociable", NOON, 5.0, [insight.id, other.id])
    later = NOON + timedelta(hours=1)
    gone = await klaus.correct(CANCELLED, [["party"], ["hobbs", "cafe"]], later, 9.0)
    assert gone == [told.id, insight.id, above.id]
    valid = {r.id for r in memory.recent(100)}
    assert valid.isdisjoint(gone) and other.id in valid
    (note,) = [r for r in memory.recent(100) if r.text == CANCELLED]
    assert note.meta["invalidated"] == gone and note.importance == 9.0

    seen: list[str] = []
    model.on("interview.answer", lambda r: seen.append(r.messages[-1].content) or {"answer": "."})
    reply = await klaus.interview("Is there a party at Hobbs Cafe?", later)
    assert note.id in reply.memory_ids and not set(gone) & set(reply.memory_ids)
    assert CANCELLED in seen[0] and "come to my party" not in seen[0]
    events.flush()
    logged = [e.data for e in read_events(events.path) if e.kind == "memory.invalidate"]
    assert logged == [
        {"id": told.id, "reason": f"corrected: {CANCELLED}", "invalidated": [insight.id, above.id]}
    ]
