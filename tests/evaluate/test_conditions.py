"""Each condition sees exactly the memories it should, all from the same saved memories."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

from simulacra.embed import HashingEmbedder
from simulacra.experiments import load_scenario
from simulacra.experiments.evaluate.memory_at import interviewees
from simulacra.llm import Request
from simulacra.memory import MemoryStream

from .conftest import TOWN, scripted

NOON = datetime(2024, 2, 14, 12, 0)
KINDS = {
    "full": {"observation", "dialogue", "plan", "reflection"},
    "no_reflection": {"observation", "dialogue", "plan"},
    "no_reflection_no_planning": {"observation", "dialogue"},
    "no_observation_reflection_planning": set(),
}


async def _memories(db: Path) -> dict[str, str]:
    stream = MemoryStream("theo_brandt", HashingEmbedder(), db, importance=5.0)
    seen = await stream.add("observation", "Theo saw the party poster at the cafe", NOON)
    said = await stream.add("dialogue", "Marta told Theo about the party at the cafe", NOON)
    plan = await stream.add(
        "plan", "Theo plans to go to the party at the cafe", NOON, meta={"level": "day"}
    )
    thought = await stream.add(
        "reflection", "Theo thinks the party at the cafe matters", NOON, evidence=[seen.id, said.id]
    )
    stream.close()
    return {r.id: r.kind for r in (seen, said, plan, thought)}


def test_each_condition_retrieves_only_its_kinds_from_the_same_memories(tmp_path: Path) -> None:
    db = tmp_path / "memory.sqlite"
    kinds = asyncio.run(_memories(db))
    scenario = load_scenario(TOWN, ["agents.count=2", "memory.embedder=hashing"])
    model = scripted()
    prompts: list[str] = []

    def answer(request: Request) -> dict[str, object]:
        prompts.append(request.messages[-1].content)
        return {"answer": "The party.", "memory_ids": []}  # cites nothing: all shown count

    model.on("interview.answer", answer)
    for condition, expected in KINDS.items():
        with interviewees(scenario, db, model, HashingEmbedder(), condition) as minds:
            reply = asyncio.run(minds["theo_brandt"].interview("What about the party?", NOON))
        assert {kinds[i] for i in reply.memory_ids} == expected, condition
        plan_shown = "Theo plans to go" in prompts[-1]
        assert plan_shown == ("plan" in expected), condition
    # The conditions left the saved memories as they were: no access was recorded.
    stream = MemoryStream("theo_brandt", HashingEmbedder(), db)
    assert all(r.last_accessed_at == NOON for r in stream.recent(10))
    stream.close()
