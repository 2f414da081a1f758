"""Interviews answer from retrieved memories and name the ones they relied on."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta

import pytest
import yaml

from simulacra.core import Observation
from simulacra.embed import default_embedder
from simulacra.experiments import load_scenario
from simulacra.experiments.facts import aware_test
from simulacra.llm import Request, ScriptedModel, load_model
from simulacra.memory import MemoryStream
from simulacra.mind import Ablation
from simulacra.mind.town import Agent, Persona, converse
from simulacra.mind.town.scripted import sociable
from simulacra.runlog import EventWriter, read_events

from .conftest import KLAUS, MONDAY, MakeAgent
from .test_answers_do_not_loop import MEMORIES, SCENARIOS
from .test_converse import _party_chat

NOON = MONDAY + timedelta(hours=12)
_CITED = re.compile(r"^- \[([^\]]+)\] (.*)$", re.M)


def _answer_from_party_memories(request: Request) -> dict[str, object]:
    shown = _CITED.findall(request.messages[-1].content)
    party = [i for i, text in shown if "party" in text.lower()]
    answer = "I'm going to Isabella's party at Hobbs Cafe at 17:00." if party else "No plans."
    return {"answer": answer, "memory_ids": [*party, "klaus-99999"]}


async def test_an_agent_told_of_a_party_cites_the_dialogue_when_asked_about_its_plans(
    model: ScriptedModel, make_agent: MakeAgent, events: EventWriter
) -> None:
    model.on("converse.turn", _party_chat)
    model.on("interview.answer", _answer_from_party_memories)
    isabella, klaus = make_agent(), make_agent(KLAUS)
    await converse(isabella, klaus, NOON, topic="the Valentine's Day party")
    (dialogue,) = [r for r in klaus.memory.recent(10) if r.kind == "dialogue"]
    for tick in range(60):  # an afternoon of routine sights in between
        now = NOON + timedelta(minutes=10 * (tick + 1))
        sight = f"the desk in the library of Oak Hill College is in use ({tick % 3})"
        await klaus.perceive(now, Observation("klaus", "Oak Hill College", (sight,)))
    asked = MONDAY + timedelta(hours=23)
    reply = await klaus.interview("What are you doing tomorrow, Valentine's Day?", asked)
    assert "party" in reply.answer
    assert reply.memory_ids == (dialogue.id,)  # the unknown id it also cited is dropped
    assert reply.evidence == (dialogue.text,)  # what it heard, for an awareness test
    assert not reply.fallback
    events.flush()
    (logged,) = [e for e in read_events(events.path) if e.kind == "interview"]
    assert logged.data["memory_ids"] == [dialogue.id]


async def test_the_party_is_recalled_days_later_among_thousands_of_routine_observations(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    model.on("converse.turn", _party_chat)
    model.on("interview.answer", _answer_from_party_memories)
    isabella, klaus = make_agent(), make_agent(KLAUS)
    await converse(isabella, klaus, NOON, topic="the Valentine's Day party")
    (dialogue,) = [r for r in klaus.memory.recent(10) if r.kind == "dialogue"]
    places = ("library", "lecture hall", "kitchen", "bedroom", "park bench", "bus stop")
    for hour in range(1, 72):
        routine = [f"the {places[(hour + i) % 6]} desk number {i} is in use" for i in range(45)]
        await klaus.memory.add_many("observation", routine, NOON + timedelta(hours=hour), 2.0)
    assert len(klaus.memory) > 3000
    later = NOON + timedelta(days=3)
    reply = await klaus.interview("What are your plans for Valentine's Day?", later)
    assert dialogue.id in reply.memory_ids and "party" in reply.answer


async def test_an_answer_citing_nothing_returns_the_memories_it_was_shown(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    agent = make_agent(KLAUS)
    first = await agent.memory.add("observation", "Klaus finished his paper draft", NOON)
    reply = await agent.interview("How is your paper going?", NOON + timedelta(hours=1))
    assert reply.memory_ids == (first.id,)
    assert reply.answer  # the declared fallback answer


async def test_an_answer_resting_on_what_the_agent_made_of_things_has_no_evidence(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    # A reflection is the agent's own: citing it shows nothing was seen or heard.
    model.on("interview.answer", _answer_from_party_memories)
    agent = make_agent(KLAUS)
    made = await agent.memory.add("reflection", "Klaus will go to a party at Hobbs Cafe", NOON)
    reply = await agent.interview("Any party today?", NOON + timedelta(hours=1))
    assert reply.memory_ids == (made.id,) and "party" in reply.answer
    assert reply.evidence == ()


async def test_a_closed_question_is_answered_with_one_of_its_choices(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    schemas: list[dict[str, object]] = []

    def knows(request: Request) -> dict[str, object]:
        assert request.output is not None
        schemas.append(request.output.model_json_schema())
        return {"choice": "maybe", "answer": "Perhaps."}  # not a choice: the fallback stands

    model.on("interview.answer", knows)
    agent = make_agent(KLAUS)
    reply = await agent.interview("Do you know Isabella Rodriguez?", NOON, ("yes", "no"))
    assert "yes" in str(schemas[0]) and "no" in str(schemas[0])
    assert reply.fallback and reply.choice == "no"
    model.on("interview.answer", lambda r: {"choice": "yes", "answer": "She runs the cafe."})
    again = await agent.interview("Do you know Isabella Rodriguez?", NOON, ("yes", "no"))
    assert (again.choice, again.answer, again.fallback) == ("yes", "She runs the cafe.", False)


async def test_the_day_plan_is_shown_to_a_planning_mind_and_withheld_without_planning(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    prompts: list[str] = []
    model.on(
        "interview.answer", lambda r: prompts.append(r.messages[-1].content) or {"answer": "."}
    )
    for ablation in (Ablation.FULL, Ablation.NO_REFLECTION_NO_PLANNING):
        agent = make_agent(ablation=ablation)
        await agent.memory.add(
            "plan", "07:00 open the cafe; 17:00 the party", NOON, 5.0, meta={"level": "day"}
        )
        await agent.interview("What will you do at 17:00?", NOON)
    full, ablated = prompts
    # Shown once, above the memories, though it is a memory too.
    assert full.count("07:00 open the cafe; 17:00 the party") == 1
    assert full.index("17:00 the party") < full.index("memories:")
    assert "17:00 the party" not in ablated


async def test_an_interview_reads_memory_without_changing_it(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    isabella = make_agent()
    invited = await isabella.memory.add("observation", "Maria invited me to her party", NOON)
    asked: list[Request] = []
    model.on(
        "interview.answer",
        lambda r: asked.append(r) or {"answer": "Maria's party.", "memory_ids": [invited.id]},
    )
    later = NOON + timedelta(hours=5)
    reply = await isabella.interview("Are you going to a party?", later)
    assert reply.memory_ids == (invited.id,)
    # Its retrieval left the memory's last access alone; its call is a probe.
    assert isabella.memory.get(invited.id).last_accessed_at == NOON
    assert [r.probe for r in asked] == [True]
    isabella.memory.retrieve("party", later)  # what an ordinary retrieval does
    assert isabella.memory.get(invited.id).last_accessed_at == later


async def test_the_scripted_interviewee_answers_from_many_party_memories_without_falling_back(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    sociable(model)
    isabella = make_agent()
    for n in range(5):  # more party memories than an answer may name
        text = f"Isabella will host a Valentine's party at Hobbs Cafe (note {n})"
        await isabella.memory.add("observation", text, NOON + timedelta(minutes=n))
    reply = await isabella.interview("Do you know of any party?", NOON + timedelta(hours=1))
    assert not reply.fallback and "Valentine's party at Hobbs Cafe" in reply.answer
    assert 1 <= len(reply.memory_ids) <= 3


@pytest.mark.slow
async def test_the_embedded_model_answers_a_closed_question_with_a_choice_and_a_source() -> None:
    # Sam at 16:00 of a real demo day, asked as the town asks: one call.
    town = load_scenario(SCENARIOS / "town.yaml")
    assert town.interviews is not None and town.interviews.closed
    model = load_model("embedded", timeout_s=300, repetition=town.model.repetition)
    raw = yaml.safe_load((SCENARIOS / "town" / "personas.yaml").read_text())["personas"]
    personas = {p.id: p for p in (Persona.model_validate(r) for r in raw)}
    now = datetime(2024, 2, 14, 16, 0)
    memory = MemoryStream("sam_whitaker", default_embedder(town.memory.embedder.kind))
    for record in json.loads(MEMORIES.read_text())["agents"]["sam_whitaker"]:
        if (made := datetime.fromisoformat(record["at"])) <= now:
            await memory.add(record["kind"], record["text"], made, record["importance"])
    names = {p.id: p.name for p in personas.values()}
    choices, sources = aware_test(town, town.interviews.aware_when, names).asks("sam_whitaker")
    sam = Agent(personas["sam_whitaker"], memory, model)
    answer = await sam.interview(town.interviews.question, now, choices, sources)
    assert not answer.fallback, answer
    assert answer.choice in choices and answer.source in sources and answer.answer
