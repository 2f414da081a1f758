"""Before they talk, each agent summarises what it thinks of the other from what it remembers
of them (the source's "what does A think of B?"); the summary is kept per pair until a newer
memory of the other comes up."""

from __future__ import annotations

from datetime import timedelta

from simulacra.llm import Request, ScriptedModel
from simulacra.mind.town import converse
from simulacra.mind.town.relation import relationship

from .conftest import ISABELLA, KLAUS, MONDAY, MakeAgent, calls
from .test_converse import _party_chat

NOON = MONDAY + timedelta(hours=12)
SEEN = "Klaus is reading in the library"


def _summary(request: Request) -> dict[str, str]:
    prompt = request.messages[-1].content
    return {"summary": "Klaus is a regular she likes" if "library" in prompt else "a stranger"}


async def test_dialogue_shows_a_relationship_summarised_from_memories_of_the_other(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    model.on("converse.relation", _summary)
    prompts: list[str] = []
    model.on("converse.turn", lambda r: prompts.append(r.messages[-1].content) or _party_chat(r))
    isabella, klaus = make_agent(), make_agent(KLAUS)
    await isabella.memory.add("observation", SEEN, NOON)
    await converse(isabella, klaus, NOON, topic="the Valentine's Day party")
    assert "\nIsabella Rodriguez and Klaus Mueller: Klaus is a regular she likes\n" in prompts[0]
    # Klaus remembers nothing of Isabella yet: his persona's line stands, without a call.
    assert calls(model, "converse.relation") == 1
    assert "\nKlaus Mueller and Isabella Rodriguez: owns the cafe" in prompts[1]


async def test_the_summary_is_kept_until_a_new_memory_of_the_other_arrives(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    model.on("converse.relation", _summary)
    isabella = make_agent()
    await isabella.memory.add("observation", SEEN, NOON)
    for minutes in (0, 10, 20):  # nothing new about Klaus: one summary serves
        at = NOON + timedelta(minutes=minutes)
        assert await relationship(isabella.ctx, isabella.relations, "klaus", KLAUS.name, at)
    assert calls(model, "converse.relation") == 1
    await isabella.memory.add("observation", "Klaus waves at Isabella", NOON + timedelta(hours=1))
    await relationship(isabella.ctx, isabella.relations, "klaus", KLAUS.name, NOON)
    assert calls(model, "converse.relation") == 2
    state = isabella.state()["relations"]
    assert state["klaus"] == ["isabella-00002", "Klaus is a regular she likes"]


async def test_an_agent_that_remembers_nothing_of_the_other_speaks_from_its_persona(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    prompts: list[str] = []
    model.on("converse.turn", lambda r: prompts.append(r.messages[-1].content) or _party_chat(r))
    await converse(make_agent(), make_agent(KLAUS), NOON, topic="the party")
    assert calls(model, "converse.relation") == 0
    expected = f"\nIsabella Rodriguez and Klaus Mueller: {ISABELLA.relationships['klaus']}\n"
    assert expected in prompts[0]
