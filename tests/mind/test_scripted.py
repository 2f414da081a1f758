"""The scripted stand-in runs on the mechanism: it acts on what the prompts show (the memories
retrieved, the plan, what was said), whatever the news is about; nothing in it names a party."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from simulacra.core import Observation
from simulacra.core.words import at_a_word
from simulacra.experiments.evaluate.judge import rank_answers
from simulacra.llm import Request, ScriptedModel, chat, load_model
from simulacra.mind.town import Agent, converse
from simulacra.mind.town.actions import fallback_actions
from simulacra.mind.town.plan_check import using
from simulacra.mind.town.plan_prompts import ACTIONS_SYSTEM, ACTIONS_USER, MAX_ACTIONS
from simulacra.mind.town.react_prompts import TOPIC_CHARS
from simulacra.mind.town.scripted import sociable
from simulacra.runlog import EventWriter

from .conftest import ISABELLA_DAY, KLAUS, MONDAY, MakeAgent

VALENTINE = MONDAY + timedelta(days=1)  # Tuesday February 14, 2023
MORNING = VALENTINE + timedelta(hours=7)
NOON = VALENTINE + timedelta(hours=12)
MAYOR = "I have decided to run for mayor in next month's election, and I want people to know."
BIRTHDAY = "I am hosting a birthday celebration at Park on February 14 at 15:00."


def _blocks_at(agent: Agent, place: str) -> list[str]:
    return [f"{b.start:%H:%M}" for b in agent.planner.schedule.blocks if b.place == place]


async def test_news_passes_on_whatever_its_subject_and_is_not_told_back(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    sociable(model)
    isabella, klaus = make_agent(), make_agent(KLAUS)
    await isabella.think(MAYOR, MORNING)  # no party: an election
    chat = await converse(isabella, klaus, NOON, topic="the election")
    first, second = chat.turns[0], chat.turns[1]
    assert first.speaker == "isabella" and "run for mayor" in first.text
    assert second.speaker == "klaus" and "run for mayor" not in second.text
    # Klaus passes it on to someone new, naming who told him; Isabella is not told it back.
    ada = make_agent(KLAUS.model_copy(update={"id": "ada", "name": "Ada Brook"}))
    relayed = await converse(klaus, ada, NOON + timedelta(hours=1))
    assert relayed.turns[0].text.startswith("Have you heard? Isabella Rodriguez told me: I have")
    back = await converse(klaus, isabella, NOON + timedelta(hours=2))
    assert all("mayor" not in u.text for u in back.turns if u.speaker == "klaus")


async def test_an_appointment_heard_today_is_planned_around_and_one_for_another_day_is_not(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    sociable(model)
    isabella, klaus = make_agent(), make_agent(KLAUS)
    for agent in (isabella, klaus):
        await agent.plan_day(MORNING)
        assert 5 <= len(agent.planner.schedule.blocks) <= 8  # within the output model's limits
    assert "15:00" not in _blocks_at(klaus, "Park")
    await isabella.think(BIRTHDAY, MORNING + timedelta(minutes=10))
    assert "15:00" in _blocks_at(isabella, "Park")  # her own decision: it is today
    await converse(isabella, klaus, NOON, topic=BIRTHDAY)
    (thought,) = [r for r in klaus.memory.recent(30) if r.kind == "thought"]
    assert thought.text == (
        "I should go to the birthday celebration at Park at 15:00 on February 14."
    )
    assert "15:00" in _blocks_at(klaus, "Park")
    # The same news a day early changes nobody's plan.
    host, early = make_agent(), make_agent(KLAUS.model_copy(update={"id": "early"}))
    for agent in (host, early):
        await agent.plan_day(MONDAY + timedelta(hours=7))
    await host.think(BIRTHDAY, MONDAY + timedelta(hours=8))
    # A planted thought is her own inner thought, rated like any record; she decided on it
    # (one plan.revise) and kept her day.
    (planted,) = [r for r in host.memory.recent(10) if r.kind == "thought"]
    assert planted.meta["source"] == "planted" and planted.importance_source != "given"
    assert not _blocks_at(host, "Park")
    await converse(host, early, MONDAY + timedelta(hours=12), topic=BIRTHDAY)
    assert any("birthday" in r.text for r in early.memory.recent(10))  # told, all the same
    assert not _blocks_at(early, "Park")


async def test_reactions_follow_what_is_noticed_and_the_plan(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    sociable(model)
    klaus = make_agent(KLAUS)
    await klaus.plan_day(MORNING)
    step = await klaus.current_action(NOON)
    place = step.place
    # A grave sight where he is: he reacts, and the next hour or two of his plan change.
    fire = f"the stove in the kitchen of {place} is on fire"
    seen = Observation("klaus", place, (fire,), (), {"events": [fire]})
    decision = await klaus.react(NOON, await klaus.perceive(NOON, seen), ())
    assert decision.choice == "react"
    reacting = await klaus.current_action(NOON + timedelta(minutes=10))
    assert reacting.description != step.description and reacting.place == place
    window = klaus.planner.schedule.hour_at(NOON + timedelta(minutes=10))
    assert window is not None and window.duration_min >= 60 and "on fire" in window.description
    # Something he needs in use: he waits a tick, then his step runs again.
    later = NOON + timedelta(hours=3)
    klaus.known.seen({place: {"library": ["desk"]}})  # he has seen the library's desk
    reading = {"actions": ["reading"], "object": "desk", "state": "being read at"}
    model.on("plan.actions", lambda r: reading)
    doing = await klaus.current_action(later)
    busy = Observation("klaus", place, (f"the desk in the library of {place} is in use",))
    decision = await klaus.react(later, await klaus.perceive(later, busy), ())
    assert decision.choice == "wait"
    waiting = await klaus.current_action(later)  # as the tick's decide phase goes on
    assert waiting.description == f"waiting to start {doing.description}"
    after = await klaus.current_action(later + timedelta(minutes=10))
    assert not after.description.startswith("waiting")


async def test_the_judge_ranks_by_what_the_memories_support_not_by_length(
    model: ScriptedModel,
) -> None:
    sociable(model)
    remembered = ["Isabella Rodriguez told me: I have decided to run for mayor."]
    answers = [
        "Yes, absolutely, I think several wonderful neighbours are running for many offices "
        "this spring, and there is a lively debate every evening in the square.",
        "Isabella Rodriguez is running for mayor.",
    ]
    order, fallback = await rank_answers(
        model, "Klaus", "Is anyone running for office?", answers, item="i", memories=remembered
    )
    assert order == (1, 0) and not fallback
    order, _ = await rank_answers(
        model, "Klaus", "Is anyone running?", answers[::-1], item="i", memories=remembered
    )
    assert order == (0, 1)  # the same answer first, wherever it is shown


async def test_a_topic_offered_cut_is_told_whole_with_its_time_and_place(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    """A reaction offers a memory as a topic cut to 90 characters; told as cut, the news
    lost its time and place on the way and nobody could plan around it."""
    sociable(model)
    isabella, klaus = make_agent(), make_agent(KLAUS)
    for agent in (isabella, klaus):
        await agent.plan_day(MORNING)
    long = (
        "I am hosting a birthday celebration for my oldest friends and all of their families "
        "at Park on February 14 at 15:00."
    )
    await isabella.think(long, MORNING + timedelta(minutes=10))
    cut = at_a_word(long, TOPIC_CHARS)
    assert "15:00" not in cut and cut.endswith("\u2026")
    chat = await converse(isabella, klaus, NOON, topic=cut)
    assert chat.turns[0].text == f"Have you heard? {long}"
    assert "15:00" in _blocks_at(klaus, "Park")


async def test_an_hour_is_broken_into_the_steps_asked_each_at_an_object_of_the_place(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    """The prompt asks for 3 to 6 actions of 5 to 15 minutes and offers the place's objects:
    the stand-in answers so, from the activity's words and those objects."""
    sociable(model)
    model.on("plan.daily", lambda r: ISABELLA_DAY)
    isabella = make_agent()
    waking = MONDAY + timedelta(hours=6)  # "waking up and having breakfast" at home
    home = ("bed", "stove", "fridge")
    await isabella.planner.current_action(waking, home)
    hour = [s for s in isabella.planner.schedule.actions if s.start >= waking]
    assert len(hour) >= 3 and sum(s.duration_min for s in hour) == 60
    assert all(5 <= s.duration_min <= 15 for s in hour)
    # Each step at an object of the place, named in its words; the activity's parts in order.
    assert all(s.object in home and s.object in s.description for s in hour)
    assert {s.object for s in hour} == set(home)
    assert hour[0].description.startswith("waking up")
    assert hour[-1].description.startswith("having breakfast")
    # The cafe with no object known: steps with none, the activity's parts still in turn.
    opening = MONDAY + timedelta(hours=7)  # "opening and running the cafe"
    await isabella.planner.current_action(opening, ())
    cafe = [s for s in isabella.planner.schedule.actions if s.start >= opening]
    assert len(cafe) >= 3 and all(s.object is None for s in cafe)
    assert [cafe[0].description, cafe[-1].description] == ["opening", "running the cafe"]
    assert model.ledger.by_purpose["plan.actions"].fallbacks == 0


_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz '", min_size=1, max_size=14).map(str.strip)


@settings(max_examples=60, deadline=None)
@given(
    activity=st.lists(_WORDS.filter(bool), min_size=1, max_size=8).map(" ".join),
    objects=st.lists(_WORDS.filter(lambda w: bool(w) and w != "none"), max_size=7, unique=True),
    place=st.lists(_WORDS.filter(bool), min_size=1, max_size=3).map(" ".join),
    minutes=st.integers(16, 60),
)
def test_the_stand_in_s_hour_always_fits_the_output_model(
    activity: str, objects: list[str], place: str, minutes: int
) -> None:
    model = sociable(load_model("scripted"))
    user = ACTIONS_USER.format(
        name="Ada",
        place=place,
        objects=", ".join(objects) or "(none noticed)",
        start="09:00",
        end="10:00",
        minutes=minutes,
        activity=activity,
    )
    request = Request(
        chat(ACTIONS_SYSTEM, user),
        output=using(tuple(objects)),
        fallback=fallback_actions([activity[:36]]),
        purpose="plan.actions",
    )
    done = asyncio.run(model.complete(request))
    assert not done.fallback, done.error
    assert done.value is not None
    assert 3 <= len(done.value.actions) <= MAX_ACTIONS  # type: ignore[attr-defined]


async def test_the_time_decided_on_is_the_one_the_news_names_for_the_appointment(
    model: ScriptedModel, make_agent: MakeAgent, events: EventWriter
) -> None:
    """The news names two times, the appointment's with one digit for the hour: the revision
    offers the times as the news writes them ("9:30"), and the stand-in, which reads the
    appointment's time with the mind's own clock pattern, chooses that one, not the first
    time named (before, it read "09:30", found it not offered and took "10:00")."""
    sociable(model)
    isabella = make_agent()
    await isabella.plan_day(MORNING)
    news = "The flour came at 10:00.\nI am hosting a birthday at Park on February 14 at 9:30."
    await isabella.think(news, MORNING + timedelta(minutes=10))
    events.write()
    logged = [json.loads(line) for line in events.path.read_text(encoding="utf-8").splitlines()]
    decided = [e["data"] for e in logged if e["kind"] == "decision"]
    (revised,) = [d for d in decided if d["purpose"] == "plan.revise"]
    assert revised["parsed"]["start"] == "9:30" and revised["parsed"]["place"] == "Park"
    assert _blocks_at(isabella, "Park") == ["09:30"]
