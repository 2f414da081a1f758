"""What a prompt is given of an agent's memory: the purpose's top-k, best first, each line
labelled with where it came from, and only what is shown counted as accessed."""

from __future__ import annotations

from datetime import datetime, timedelta

from tests.mind.conftest import ISABELLA

from simulacra.embed import HashingEmbedder
from simulacra.llm import ScriptedModel
from simulacra.memory import MemoryRecord, MemoryStream
from simulacra.mind import Ablation
from simulacra.mind.context import RECALL_K, MindContext, memory_lines
from simulacra.mind.provenance import label
from simulacra.mind.town import Persona

NOON = datetime(2023, 2, 13, 12, 0)
PARTY = "Klaus Mueller: I am coming to the Valentine's party at Hobbs Cafe tomorrow at 17:00"


async def busy_morning() -> tuple[MindContext[Persona], dict[str, MemoryRecord]]:
    """Forty routine sights over the morning, with a few records of every kind among them."""
    memory = MemoryStream("isabella", HashingEmbedder(), importance="rule")
    start = NOON - timedelta(hours=5)
    for n in range(40):
        at = start + timedelta(minutes=7 * n)
        await memory.add("observation", f"the espresso machine is idle, look {n}", at, 2)
    named = {
        "seen": await memory.add("observation", "Klaus Mueller is at Hobbs Cafe", NOON, 3),
        "heard": await memory.add(
            "dialogue",
            f"Conversation with Klaus Mueller at 11:50:\n{PARTY}",
            NOON,
            8,
            meta={"with": ["klaus"], "names": "Klaus Mueller"},
        ),
        "planned": await memory.add("plan", "Isabella's plan: the party at 17:00", NOON, 5),
        "inferred": await memory.add("reflection", "Klaus enjoys parties", NOON, 6),
        "thought": await memory.add(
            "observation", "I want a party", NOON, 9, meta={"intervention": "thought"}
        ),
    }
    ctx = MindContext(ISABELLA, memory, ScriptedModel(), Ablation.FULL, None, 0)
    return ctx, named


async def test_each_line_says_where_the_memory_came_from() -> None:
    _, named = await busy_morning()
    assert {kind: label(record) for kind, record in named.items()} == {
        "seen": "seen",
        "heard": "heard from Klaus Mueller",
        "planned": "planned",
        "inferred": "inferred",
        "thought": "thought",
    }


async def test_a_conversation_gets_its_top_10_best_first_and_only_those_count_as_accessed() -> None:
    ctx, named = await busy_morning()
    later = NOON + timedelta(hours=2)
    found = ctx.recall("Klaus Mueller party", later, "converse.turn", room=100_000)
    # 45 candidates, all of which the room would hold: the purpose's k selects.
    assert len(found) == RECALL_K["converse.turn"] == 10
    totals = [r.total for r in found]
    assert totals == sorted(totals, reverse=True)
    # By hand: the dialogue is newest, weightiest and shares "Klaus", "party": it ranks first,
    # and the prompt lists it first, labelled, though 40 older sights were written before it.
    assert found[0].record.id == named["heard"].id
    lines = ctx.shown(found, later).splitlines()
    assert lines[0] == "- [heard from Klaus Mueller] Conversation with Klaus Mueller at 11:50:"
    assert [line for line in lines if line.startswith("- [")] == [
        f"- [{label(r.record)}] {r.record.text.splitlines()[0]}" for r in found
    ]
    # Shown: accessed now; the 35 others keep the time they were written.
    shown = {r.record.id for r in found}
    for record in ctx.memory.recent(len(ctx.memory)):
        assert (record.last_accessed_at == later) == (record.id in shown)


async def test_recall_alone_counts_nothing_as_accessed() -> None:
    ctx, _ = await busy_morning()
    later = NOON + timedelta(hours=2)
    ctx.recall("Klaus Mueller party", later, "plan.daily", room=100_000)
    assert all(r.last_accessed_at <= NOON for r in ctx.memory.recent(len(ctx.memory)))


async def test_the_window_caps_the_top_k() -> None:
    ctx, _ = await busy_morning()
    found = ctx.recall("espresso machine", NOON, "interview.answer", room=60)
    assert 0 < len(found) < RECALL_K["interview.answer"]
    assert memory_lines(found, with_ids=True).startswith(f"- [{found[0].record.id}] [")
