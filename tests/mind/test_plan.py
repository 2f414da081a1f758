"""Planning: a day of 5-8 blocks, lazily decomposed into contiguous 5-15 minute actions."""

from __future__ import annotations

from datetime import timedelta
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulacra.core import Observation
from simulacra.llm import Request, ScriptedModel
from simulacra.mind.town import Agent, PlanStep
from simulacra.mind.town.plan_check import checked
from simulacra.mind.town.plan_prompts import DailyPlanOutput, RevisionOutput
from simulacra.mind.town.routine import routine_plan
from simulacra.mind.town.schedule import fit_durations, holds, laid_over
from simulacra.runlog import EventWriter, read_events

from .conftest import ISABELLA_DAY, KLAUS, MONDAY, PLACES, MakeAgent, calls, day_plan


def _contiguous(steps: list[PlanStep]) -> bool:
    return all(a.end == b.start for a, b in pairwise(steps))


def _hourly(request: Request) -> dict[str, object]:
    return {"activities": ["taking orders", "making coffee", "cleaning tables", "restocking"]}


def _actions(request: Request) -> dict[str, object]:
    """The hour brews at the coffee machine where the output model offers it (the agent
    knows it), else uses no object."""
    assert request.output is not None
    offered = request.output.model_json_schema()["$defs"]["Object"]["enum"]
    machine = "coffee machine" in offered
    return {
        "actions": ["greeting a customer", "brewing at the coffee machine", "wiping up"],
        "object": "coffee machine" if machine else "none",
        "state": "brewing coffee" if machine else "",
    }


async def _planned_day(model: ScriptedModel, make_agent: MakeAgent) -> Agent:
    """Isabella with Monday planned, its hours and actions answered by the responders above."""
    model.on("plan.daily", lambda r: ISABELLA_DAY)
    model.on("plan.hourly", _hourly)
    model.on("plan.actions", _actions)
    agent = make_agent()
    await agent.plan_day(MONDAY)
    return agent


async def test_daily_plan_has_5_to_8_contiguous_blocks_until_midnight(
    model: ScriptedModel, make_agent: MakeAgent, events: EventWriter
) -> None:
    model.on("plan.daily", lambda r: ISABELLA_DAY)
    agent = make_agent()
    blocks = await agent.plan_day(MONDAY)
    assert 5 <= len(blocks) <= 8
    assert blocks[0].start == MONDAY
    assert blocks[-1].end == MONDAY + timedelta(days=1)
    assert _contiguous(blocks)
    assert calls(model, "plan.daily") == 1
    (record,) = [r for r in agent.memory.recent(10) if r.kind == "plan"]
    assert "decorating the cafe for the party" in record.text
    assert record.importance_source == "scripted"  # rated, as every record is
    events.flush()
    (plan,) = [e for e in read_events(events.path) if e.kind == "plan"]
    assert plan.data["level"] == "day" and len(plan.data["items"]) == len(blocks)


async def test_fallback_daily_plan_is_the_persona_routine(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    agent = make_agent()  # no responder: the scripted model answers with the fallback
    blocks = await agent.plan_day(MONDAY)
    assert 5 <= len(blocks) <= 8
    assert {b.place for b in blocks} == {"Isabella's apartment", "Hobbs Cafe"}
    assert blocks[1].start == MONDAY + timedelta(hours=6)  # "wakes up around 6am"


async def test_lazy_decomposition_yields_contiguous_5_to_15_minute_actions_covering_the_block(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    agent = await _planned_day(model, make_agent)
    block = agent.planner.schedule.blocks[2]  # 07:00-12:00 at the cafe
    first = await agent.current_action(block.start)
    # Only the hour about to run is decomposed into actions.
    assert agent.planner.schedule.actions[-1].end == block.start + timedelta(hours=1)
    assert calls(model, "plan.hourly") == 1 and calls(model, "plan.actions") == 1
    assert first.object == "coffee machine" or first.description == "greeting a customer"
    seen: dict[object, PlanStep] = {}
    t = block.start
    while t < block.end:
        step = await agent.current_action(t)
        seen[step.start] = step
        t += timedelta(minutes=5)
    actions = sorted(seen.values(), key=lambda s: s.start)
    assert all(5 <= a.duration_min <= 15 for a in actions)
    assert _contiguous(actions)
    assert actions[0].start == block.start and actions[-1].end == block.end
    assert all(a.place == "Hobbs Cafe" for a in actions)
    assert calls(model, "plan.hourly") == 2  # a 5-hour block is broken down 3 hours at a time
    assert calls(model, "plan.actions") == 5  # one call per hour of the block


async def test_an_hour_is_shared_among_its_actions_which_use_its_object_in_its_state(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    agent = await _planned_day(model, make_agent)
    start = agent.planner.schedule.blocks[2].start  # 07:00 at the cafe
    here = Observation("isabella", "Hobbs Cafe", facts={"objects": ["counter", "coffee machine"]})
    await agent.perceive(start, here)
    await agent.current_action(start)
    hour = [
        (s.duration_min, s.description, s.object, s.object_state)
        for s in agent.planner.schedule.actions
    ]
    machine = ("coffee machine", "brewing coffee")
    assert hour == [
        (15, "greeting a customer", *machine),
        (15, "brewing at the coffee machine", *machine),
        (15, "wiping up", *machine),
        (15, "wiping up", *machine),  # three actions, four 15-minute steps: the last goes on
    ]
    # Where the model chose no object, a step naming one it knows uses it, in the rule's state.
    model.on("plan.actions", lambda r: {**_actions(r), "object": "none", "state": "ignored"})
    await agent.current_action(start + timedelta(hours=1))
    after = [(s.description, s.object, s.object_state) for s in agent.planner.schedule.actions]
    assert after[4:7] == [
        ("greeting a customer", None, None),
        ("brewing at the coffee machine", "coffee machine", "in use"),
        ("wiping up", None, None),
    ]


async def test_sleep_is_not_decomposed(model: ScriptedModel, make_agent: MakeAgent) -> None:
    model.on("plan.daily", lambda r: ISABELLA_DAY)
    agent = make_agent()
    await agent.plan_day(MONDAY)
    step = await agent.current_action(MONDAY + timedelta(hours=3))
    assert step.description == "sleeping" and step.duration_min == 6 * 60
    assert calls(model, "plan.") == 1  # the day; its sleep is not broken down


async def test_replan_keeps_the_past_and_rebuilds_from_now(
    model: ScriptedModel, make_agent: MakeAgent, events: EventWriter
) -> None:
    model.on("plan.daily", lambda r: ISABELLA_DAY)
    model.on(
        "plan.replan",
        lambda r: day_plan(
            ("10:30", "Park", "looking for the lost cat"),
            ("12:00", "Hobbs Cafe", "serving customers"),
            ("23:00", "Isabella's apartment", "sleeping"),
        ),
    )
    agent = make_agent()
    await agent.plan_day(MONDAY)
    t = MONDAY + timedelta(hours=7)
    now = MONDAY + timedelta(hours=10, minutes=30)
    while t < now:
        await agent.current_action(t)
        t += timedelta(minutes=10)
    schedule = agent.planner.schedule
    past_blocks = [b for b in schedule.blocks if b.end <= now]
    past_actions = [a for a in schedule.actions if a.end <= now]
    await agent.replan(now, reason="the cat ran away")
    assert [b for b in schedule.blocks if b.end <= now][: len(past_blocks)] == past_blocks
    assert [a for a in schedule.actions if a.end <= now] == past_actions
    running = [b for b in schedule.blocks if b.start < now < b.end]
    assert not running  # the block that was running now ends at `now`
    ahead = [b for b in schedule.blocks if b.start >= now]
    assert ahead[0].start == now and ahead[0].place == "Park"
    assert ahead[-1].end == MONDAY + timedelta(days=1) and _contiguous(schedule.blocks)
    step = await agent.current_action(now)
    assert step.place == "Park"
    events.flush()
    levels = [e.data["level"] for e in read_events(events.path) if e.kind == "plan"]
    assert levels[0] == "day" and "replan" in levels


async def test_a_replan_that_keeps_the_running_block_keeps_its_hours_to_its_new_end(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    model.on("plan.daily", lambda r: ISABELLA_DAY)
    model.on(
        "plan.replan",
        lambda r: day_plan(
            ("10:30", "Hobbs Cafe", "opening and running the cafe"),
            ("11:30", "Park", "a walk before lunch"),
            ("23:00", "Isabella's apartment", "sleeping"),
        ),
    )
    agent = make_agent()
    await agent.plan_day(MONDAY)
    t, now = MONDAY + timedelta(hours=7), MONDAY + timedelta(hours=10, minutes=30)
    while t <= now:  # the day as lived, its steps decomposed as they come due
        before = await agent.current_action(t)
        t += timedelta(minutes=10)
    hourly = calls(model, "plan.hourly")
    await agent.replan(now, reason="a walk")
    schedule = agent.planner.schedule
    assert await agent.current_action(now) == before  # the step already planned runs on
    assert calls(model, "plan.hourly") == hourly
    assert max(h.end for h in schedule.hours) == MONDAY + timedelta(hours=11, minutes=30)
    park = await agent.current_action(MONDAY + timedelta(hours=11, minutes=40))
    assert park.place == "Park"


async def test_a_day_planned_from_7_sleeps_until_then(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    model.on("plan.daily", lambda r: {"blocks": ISABELLA_DAY["blocks"][1:]})
    agent = make_agent()
    blocks = await agent.plan_day(MONDAY)
    assert (blocks[0].description, blocks[0].place) == ("sleeping", "Isabella's apartment")
    assert blocks[1].start == MONDAY + timedelta(hours=6) and len(blocks) == 8


async def test_a_plan_that_names_a_place_off_the_map_is_refused_for_the_routine(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    plan = day_plan(
        ("00:00", "Isabella's apartment", "sleeping"),
        ("07:00", "the Moon Base", "visiting the moon"),
        ("12:00", "hobbs cafe", "lunch"),
        ("13:00", "Hobbs Cafe", "working"),
        ("22:00", "Isabella's apartment", "sleeping"),
    )
    model.on("plan.daily", lambda r: plan)
    agent = make_agent()
    schema = str(checked(DailyPlanOutput, agent.planner.rules).model_json_schema())
    assert all(place in schema for place in PLACES)  # the places are the output model's enum
    blocks = await agent.plan_day(MONDAY)
    assert "visiting the moon" not in [b.description for b in blocks]
    assert model.ledger.by_purpose["plan.daily"].fallbacks == 1
    assert {b.place for b in blocks} <= set(PLACES) and agent.unknown_places == 0


async def test_plan_includes_a_remembered_commitment(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    def planner(request: Request) -> dict[str, list[dict[str, str]]]:
        prompt = request.messages[-1].content
        party = ("17:00", "Hobbs Cafe", "going to the party at Hobbs Cafe")
        evening = party if "party at Hobbs Cafe at 17:00" in prompt else ("17:00", "Park", "walk")
        return day_plan(
            ("00:00", "Klaus's apartment", "sleeping"),
            ("07:00", "Klaus's apartment", "breakfast"),
            ("08:00", "Oak Hill College", "studying"),
            evening,
            ("23:00", "Klaus's apartment", "sleeping"),
        )

    model.on("plan.daily", planner)
    from .conftest import KLAUS

    agent = make_agent(KLAUS)
    await agent.memory.add(
        "dialogue", "Isabella invited me to her party at Hobbs Cafe at 17:00 tomorrow.", MONDAY
    )
    blocks = await agent.plan_day(MONDAY + timedelta(days=1))
    assert "going to the party at Hobbs Cafe" in [b.description for b in blocks]


@given(
    st.lists(st.integers(min_value=-5, max_value=40), max_size=15),
    st.integers(min_value=5, max_value=24 * 60),
)
def test_fitted_durations_are_5_to_15_minutes_and_cover_exactly(
    wanted: list[int], total: int
) -> None:
    durations = fit_durations(wanted, total)
    assert sum(durations) == total
    assert all(5 <= d <= 15 for d in durations)


BAD_DAYS = {
    "out of order": day_plan(
        ("00:00", "Isabella's apartment", "sleeping"),
        ("13:00", "Hobbs Cafe", "serving customers"),
        ("07:00", "Hobbs Cafe", "opening the cafe"),
        ("20:00", "Isabella's apartment", "relaxing at home"),
        ("23:00", "Isabella's apartment", "sleeping"),
    ),
    "overlapping": day_plan(
        ("00:00", "Isabella's apartment", "sleeping"),
        ("07:00", "Hobbs Cafe", "opening the cafe"),
        ("07:00", "Park", "jogging"),
        ("20:00", "Isabella's apartment", "relaxing at home"),
        ("23:00", "Isabella's apartment", "sleeping"),
    ),
    "asleep at the cafe": day_plan(
        ("00:00", "Hobbs Cafe", "sleeping"),
        ("07:00", "Hobbs Cafe", "opening the cafe"),
        ("12:00", "Hobbs Cafe", "having lunch"),
        ("20:00", "Isabella's apartment", "relaxing at home"),
        ("23:00", "Isabella's apartment", "sleeping"),
    ),
    "a time for an activity": day_plan(
        ("00:00", "Isabella's apartment", "sleeping"),
        ("07:00", "Hobbs Cafe", "07:00"),
        ("12:00", "Hobbs Cafe", "having lunch"),
        ("20:00", "Isabella's apartment", "relaxing at home"),
        ("23:00", "Isabella's apartment", "sleeping"),
    ),
    "an activity placed elsewhere": day_plan(
        ("00:00", "Isabella's apartment", "sleeping"),
        ("07:00", "Isabella's apartment", "getting ready at Hobbs Cafe"),
        ("12:00", "Hobbs Cafe", "having lunch"),
        ("20:00", "Isabella's apartment", "relaxing at home"),
        ("23:00", "Isabella's apartment", "sleeping"),
    ),
    "asleep all afternoon": day_plan(
        ("00:00", "Isabella's apartment", "sleeping"),
        ("07:00", "Hobbs Cafe", "opening the cafe"),
        ("14:00", "Isabella's apartment", "sleeping"),
        ("20:00", "Isabella's apartment", "relaxing at home"),
        ("23:00", "Isabella's apartment", "sleeping"),
    ),
}


@pytest.mark.parametrize("fault", sorted(BAD_DAYS))
async def test_a_plan_that_cannot_be_played_is_retried_then_the_routine_runs_counted(
    model: ScriptedModel, make_agent: MakeAgent, fault: str
) -> None:
    model.on("plan.daily", lambda r: BAD_DAYS[fault])
    blocks = await make_agent().plan_day(MONDAY)
    tally = model.ledger.by_purpose["plan.daily"]
    assert (tally.calls, tally.retries, tally.fallbacks) == (1, 2, 1)  # three tries, counted
    model.on("plan.daily", lambda r: r.fallback)
    routine = await make_agent(seed=8).plan_day(MONDAY)
    assert [(b.start, b.place, b.description) for b in blocks] == [
        (b.start, b.place, b.description) for b in routine
    ]


async def test_a_playable_plan_from_the_afternoon_is_played(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    afternoon = day_plan(
        ("15:00", "Hobbs Cafe", "serving customers"),
        ("17:00", "Hobbs Cafe", "hosting the party"),
        ("19:00", "Isabella's apartment", "having dinner"),
        ("21:00", "Isabella's apartment", "reading"),
        ("23:00", "Isabella's apartment", "sleeping"),
    )
    model.on("plan.daily", lambda r: afternoon)
    blocks = await make_agent().plan_day(MONDAY + timedelta(hours=15))
    assert [b.description for b in blocks][1] == "hosting the party"
    assert model.ledger.by_purpose["plan.daily"].fallbacks == 0


async def test_copies_of_the_last_block_padding_a_plan_are_folded_into_it(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    padded = day_plan(
        ("15:00", "Hobbs Cafe", "serving customers"),
        ("18:00", "Isabella's apartment", "having dinner"),
        ("23:00", "Isabella's apartment", "sleeping"),
        ("23:00", "Isabella's apartment", "sleeping"),
        ("03:00", "Isabella's apartment", "sleeping"),
    )
    model.on("plan.daily", lambda r: padded)
    blocks = await make_agent().plan_day(MONDAY + timedelta(hours=15))
    assert [b.description for b in blocks] == ["serving customers", "having dinner", "sleeping"]
    assert model.ledger.by_purpose["plan.daily"].fallbacks == 0


def test_the_routine_keeps_the_visits_its_lifestyle_line_times_and_resumes_after_them() -> None:
    klaus = KLAUS.model_copy(
        update={
            "lifestyle": "Wakes up at 7am, has coffee at Hobbs Cafe at 8:30, reads at Park "
            "from 13:00 to 15:00, goes to Park in the evening, goes to bed around 11pm."
        }
    )
    blocks = [(b.start, b.place, b.activity) for b in routine_plan(klaus, PLACES).blocks]
    assert ("08:30", "Hobbs Cafe", "has coffee at Hobbs Cafe") in blocks
    assert ("09:00", "Oak Hill College", "working") in blocks  # the day resumes
    assert ("13:00", "Park", "reads at Park") in blocks
    assert ("15:00", "Oak Hill College", "working") in blocks
    assert not any(place == "Park" and start >= "18:00" for start, place, _ in blocks)  # untimed
    assert [start for start, _, _ in blocks] == sorted(start for start, _, _ in blocks)


def test_whether_news_changes_the_day_is_the_models_to_decide() -> None:
    """Constrained decoding makes a field with a default optional, and SmolLM2-135M closed
    the object after its thought: the default "continue" decided all 5 revisions of a demo."""
    assert set(RevisionOutput.model_json_schema()["required"]) == {
        "thought",
        "what",
        "start",
        "place",
        "plans",
    }


NEWS = "Klaus Mueller: There is a reading at Park today at 15:00; do come."


@pytest.mark.parametrize("decision", ["replan", "continue"])
async def test_an_appointment_named_on_a_replan_is_kept_where_the_new_plan_lacks_it(
    model: ScriptedModel, make_agent: MakeAgent, decision: str
) -> None:
    """The model names the appointment (when and where: what the news says) and decides; a
    replan that copies the old day gets it laid over and counted, a "continue" changes
    nothing."""
    offered: list[list[str]] = []

    def revise(request: Request) -> dict[str, str]:
        assert request.output is not None
        for field in ("start", "place"):
            kinds = request.output.model_fields[field].annotation
            offered.append([str(m.value) for m in kinds])
        start = {"thought": "I should go.", "what": "the reading", "start": "15:00"}
        return {**start, "place": "Park", "plans": decision}

    model.on("plan.daily", lambda r: ISABELLA_DAY)
    model.on("plan.revise", revise)
    model.on("plan.replan", lambda r: day_plan(("09:00", "Hobbs Cafe", "serving customers")))
    agent = make_agent()
    await agent.plan_day(MONDAY)
    nine = MONDAY + timedelta(hours=9)
    await agent.take_in(NEWS, nine)
    assert offered == [["15:00", "none"], ["Park", "none"]]  # what the news says, or none
    blocks = agent.planner.schedule.remaining(nine)
    at_park = [(b.start.hour, b.duration_min, b.description) for b in blocks if b.place == "Park"]
    if decision == "continue":
        assert at_park == [] and agent.planner.laid == 0
        return
    assert at_park == [(15, 60, "the reading")] and agent.planner.laid == 1
    assert [(b.start.hour, b.place) for b in blocks] == [
        (9, "Hobbs Cafe"),
        (15, "Park"),
        (16, "Hobbs Cafe"),  # the day it interrupted goes on after it
    ]


@given(
    st.lists(st.integers(min_value=5, max_value=300), min_size=1, max_size=8),
    st.integers(min_value=0, max_value=1200),
    st.integers(min_value=5, max_value=240),
)
def test_an_appointment_laid_over_a_plan_keeps_it_contiguous(
    lengths: list[int], offset: int, minutes: int
) -> None:
    start = MONDAY + timedelta(hours=6)
    steps, at = [], start
    for i, length in enumerate(lengths):
        steps.append(PlanStep(at, length, PLACES[i % 2], f"step {i}"))
        at += timedelta(minutes=length)
    # Within the plan, as a replan's appointment is: from now to midnight at most.
    offset %= sum(lengths)
    minutes = min(minutes, sum(lengths) - offset)
    appointment = PlanStep(start + timedelta(minutes=offset), minutes, "Park", "the reading")
    laid = laid_over(steps, appointment)
    assert appointment in laid and holds(laid, appointment)
    assert all(a.end == b.start for a, b in pairwise(laid))  # no gap, no overlap
    assert (laid[0].start, laid[-1].end) == (start, steps[-1].end)
