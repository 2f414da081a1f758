"""Dialogue: alternate turns, ended by a decision or the turn limit, remembered by both."""

from __future__ import annotations

from datetime import timedelta

from simulacra.llm import Request, ScriptedModel
from simulacra.mind.town import converse
from simulacra.mind.town.converse_prompts import SMALL_TALK
from simulacra.mind.town.scripted import offered
from simulacra.runlog import EventWriter, read_events

from .conftest import KLAUS, MONDAY, MakeAgent

NOON = MONDAY + timedelta(hours=12)
TOPIC = "the Valentine's Day party"
INVITATION = "I'm hosting a Valentine's Day party at Hobbs Cafe tomorrow at 17:00. Will you come?"


def _party_chat(request: Request) -> dict[str, object]:
    prompt = request.messages[-1].content
    if request.agent == "isabella":
        if "Will you come?" in prompt:
            return {"raises": SMALL_TALK, "text": "Wonderful, see you there!", "end": True}
        return {"raises": TOPIC, "text": INVITATION, "end": False}
    return {"raises": SMALL_TALK, "text": "I'd love to come to the party!", "end": False}


async def test_a_conversation_ends_by_decision_and_both_remember_it(
    model: ScriptedModel, make_agent: MakeAgent, events: EventWriter
) -> None:
    model.on("converse.turn", _party_chat)
    isabella, klaus = make_agent(), make_agent(KLAUS)
    chat = await converse(isabella, klaus, NOON, topic=TOPIC)
    assert chat.ended_by == "decision" and chat.raised_by() == ("isabella",)
    assert [u.speaker for u in chat.turns] == ["isabella", "klaus", "isabella"]
    assert chat.turns[0].text == INVITATION
    for agent in (isabella, klaus):
        (record,) = [r for r in agent.memory.recent(10) if r.kind == "dialogue"]
        assert INVITATION in record.text and record.meta["conversation"] == chat.id
        assert f"about {TOPIC}:" in record.text and record.meta["topic"] == TOPIC
    events.flush()
    logged = list(read_events(events.path))
    messages = [e for e in logged if e.kind == "message"]
    assert [m.data["turn"] for m in messages] == [0, 1, 2]
    assert messages[1].agent == "klaus" and messages[1].data["to"] == ["isabella"]
    (conversation,) = [e for e in logged if e.kind == "conversation"]
    assert conversation.data["ended_by"] == "decision" and conversation.agent is None


async def test_a_conversation_stops_at_the_turn_limit(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    said: list[str] = []

    def another(request: Request) -> dict[str, object]:
        said.append(f"And another thing ({len(said) + 1})...")
        return {"raises": SMALL_TALK, "text": said[-1], "end": False}

    model.on("converse.turn", another)
    isabella, klaus = make_agent(), make_agent(KLAUS)
    chat = await converse(isabella, klaus, NOON, max_turns=4)
    assert chat.ended_by == "turn_limit" and len(chat.turns) == 4
    seeds = {s for s in model.ledger.by_purpose}  # every turn was one call
    assert "converse.turn" in seeds
    assert model.ledger.by_purpose["converse.turn"].calls == 4


async def test_a_failing_model_still_greets_and_closes(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    model.on("converse.turn", lambda r: "not json at all")
    chat = await converse(make_agent(), make_agent(KLAUS), NOON)
    assert chat.ended_by == "decision" and len(chat.turns) == 2
    assert chat.turns[0].text.startswith("Hi Klaus")


async def test_a_topic_nobody_brings_up_is_small_talk_in_memory_and_changes_no_plan(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    model.on("converse.turn", lambda r: {"raises": SMALL_TALK, "text": "Cold today.", "end": False})
    isabella, klaus = make_agent(), make_agent(KLAUS)
    chat = await converse(isabella, klaus, NOON, topic=TOPIC, max_turns=2)
    assert chat.raised_by() == ()
    for agent in (isabella, klaus):
        (record,) = [r for r in agent.memory.recent(10) if r.kind == "dialogue"]
        assert "(small talk)" in record.text and TOPIC not in record.text
        assert "topic" not in record.meta
    # Small talk, rated so, is nothing to plan around: no decision is asked for.
    assert "plan.replan" not in model.ledger.by_purpose
    assert "plan.revise" not in model.ledger.by_purpose


async def test_after_a_conversation_each_side_keeps_what_it_means_and_decides_on_its_plans(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    """Whoever chose the topic, both read what was said; each keeps its thought (cited to the
    conversation), and the one who decides to replan does, around what it was told."""
    model.on("converse.turn", _party_chat)
    isabella, klaus = make_agent(), make_agent(KLAUS)
    for agent in (isabella, klaus):
        await agent.plan_day(MONDAY)
    shown: dict[str, str] = {}
    going = "I will go to Isabella's party at Hobbs Cafe at 17:00."

    def revise(request: Request) -> dict[str, str]:
        shown[request.agent or ""] = request.messages[-1].content
        none = {"what": "", "start": "none", "place": "none"}
        if request.agent == "klaus":
            return {"thought": going, **none, "plans": "replan"}
        return {"thought": "Klaus wants to come to my party.", **none, "plans": "continue"}

    model.on("plan.revise", revise)
    replans: list[str] = []
    model.on("plan.replan", lambda r: replans.append(r.agent or "") or "not json")
    await converse(isabella, klaus, NOON, topic=TOPIC)
    assert INVITATION in shown["klaus"] and INVITATION in shown["isabella"]
    assert "- 12:00-" in shown["klaus"]  # the plan it decides about
    assert set(replans) == {"klaus"}  # (retried: the answer is no plan)
    (dialogue,) = [r for r in klaus.memory.recent(20) if r.kind == "dialogue"]
    (thought,) = [r for r in klaus.memory.recent(20) if r.kind == "thought"]
    assert thought.text == going and thought.evidence_ids == (dialogue.id,)
    assert INVITATION in [r for r in klaus.memory.recent(30) if r.kind == "plan"][-1].text
    decided = [r for r in model.ledger.by_purpose if r == "plan.revise"]
    assert decided and model.ledger.by_purpose["plan.revise"].calls == 2


async def test_the_second_speaker_keeps_its_own_reason_for_talking(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    mind: dict[str, str] = {}
    exam = "my exam on Friday"

    def turn(request: Request) -> dict[str, object]:
        prompt = request.messages[-1].content
        mind[request.agent or ""] = prompt.split("'s mind: ", 1)[1].split("\n", 1)[0]
        return {"raises": offered(request, "raises")[0], "text": f"{request.agent}!", "end": False}

    model.on("converse.turn", turn)
    isabella, klaus = make_agent(), make_agent(KLAUS)
    klaus.wants = ("isabella", NOON, exam)  # it chose, this tick, to talk to her about it
    chat = await converse(isabella, klaus, NOON, topic=TOPIC, max_turns=2)
    assert mind == {"isabella": TOPIC, "klaus": exam}
    assert chat.raised_by() == ("isabella", "klaus") and chat.topic_of("klaus") == exam
    (record,) = [r for r in isabella.memory.recent(10) if r.kind == "dialogue"]
    assert f"about {TOPIC}; {exam}:" in record.text and record.meta["topic"] == exam


async def test_a_line_said_again_ends_the_conversation(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    said = {"raises": TOPIC, "text": INVITATION, "end": False}
    model.on(
        "converse.turn",
        lambda r: (
            said
            if r.agent == "isabella"
            else {**said, "text": f"Klaus Mueller: {INVITATION.upper()}"}
        ),
    )
    chat = await converse(make_agent(), make_agent(KLAUS), NOON, topic=TOPIC)
    assert chat.ended_by == "repeated" and [u.text for u in chat.turns] == [INVITATION]
