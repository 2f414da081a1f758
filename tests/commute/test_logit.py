"""The classical baseline commuter: multinomial-logit mode choice over time, cost and lateness
risk with its own priorities as weights, learning expected travel times from its trips."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from tests.runs import same

from simulacra.core import Observation
from simulacra.experiments import ScenarioError, run
from simulacra.mind.commuter import (
    Belief,
    LogitCommuter,
    LogitOptions,
    Profile,
    build_population,
    plan_models,
)
from simulacra.runlog import RunDir, read_events
from simulacra.worlds.commute import City, CommuteConfig

from .conftest import commute

MONDAY = datetime(2025, 1, 6, 6, 0)
SHIPPED = commute()


def baseline(profile: str = "administrative_worker", **options: float) -> LogitCommuter:
    profiles = {n: Profile.model_validate(raw) for n, raw in SHIPPED.agents.profiles.items()}
    [person] = build_population(profiles, {profile: 1}, seed=1)
    assert isinstance(SHIPPED.world, CommuteConfig)
    models = plan_models(person.profile, City(SHIPPED.world.city).window)
    return LogitCommuter(person, models, 1, LogitOptions(**options))


def day(number: int, last: dict[str, object] | None = None) -> Observation:
    facts = {"day": number, "weekday": 0, "week": 1, "environment": "", "last_trip": last}
    return Observation("a", "west_end", facts=facts)


def taxi_trip(wait: float, punctuality: str) -> dict[str, object]:
    return {
        "day": 1,
        "mode": "taxi",
        "departure_min": 470.0,
        "arrival_min": 470.0 + wait + 9.6,
        "cost_eur": 8.6,
        "walk_min": 0.0,
        "wait_min": wait,
        "punctuality": punctuality,
    }


async def test_it_learns_only_the_mode_it_took_towards_what_happened() -> None:
    agent = baseline(learning_rate=0.5)
    before = dict(agent.beliefs)
    await agent.decide("plan", day(2, taxi_trip(wait=50.0, punctuality="late")), MONDAY)
    taxi = agent.beliefs["taxi"]
    assert taxi.minutes == pytest.approx((before["taxi"].minutes + 59.6) / 2)
    assert taxi.risk == pytest.approx((before["taxi"].risk + 1.0) / 2)
    assert taxi.burden_min == pytest.approx((before["taxi"].burden_min + 50.0) / 2)
    assert agent.beliefs["bus"] == before["bus"] and agent.beliefs["walk"] == before["walk"]
    # The same trip seen again on the next plan is not learnt twice.
    await agent.decide("plan", day(3, taxi_trip(wait=50.0, punctuality="late")), MONDAY)
    assert agent.beliefs["taxi"] == taxi


def test_a_mode_gets_likelier_as_it_gets_quicker_and_surer() -> None:
    agent = baseline()
    slow = agent.utility(Belief(40.0, 8.6, 20.0, 0.6))
    quick = agent.utility(Belief(15.0, 8.6, 5.0, 0.1))
    assert quick > slow
    # The weights are the commuter's own: cost weighs more for the student than the worker.
    cheap, dear = Belief(20.0, 1.5, 10.0, 0.1), Belief(20.0, 9.0, 10.0, 0.1)
    student, worker = baseline("student"), baseline()
    assert student.utility(cheap) - student.utility(dear) > worker.utility(cheap) - (
        worker.utility(dear)
    )


def test_it_leaves_earlier_when_its_usual_time_would_make_it_late() -> None:
    agent = baseline(margin_min=5)
    habit = agent.commuter.person.habit_min
    assert agent.departure(Belief(10.0, 0.0, 0.0, 0.0)) == habit
    deadline = 8 * 60 + 45
    assert agent.departure(Belief(90.0, 0.0, 0.0, 0.0)) == 5 * ((deadline - 95) // 5)


def test_a_logit_run_calls_no_model_logs_its_choices_and_adapts_to_the_strike(
    tmp_path: Path,
) -> None:
    def logit_run(root: Path) -> RunDir:
        scenario = commute(
            "agents.mind=logit",
            "agents.mix={administrative_worker: 40}",
            "clock.ticks=15",
            "world.city.taxi_strikes=[{days: [8, 9, 10, 11, 12, 13, 14, 15], "
            "out_of_service: 0.95}]",
            f"output.root={root}",
            "output.report=false",
        )
        return run(scenario, progress=False)

    first = logit_run(tmp_path / "a")
    done = first.path
    assert not list(read_events(done / "events.jsonl", {"llm.call"}))
    decisions = list(read_events(done / "events.jsonl", {"decision"}))
    assert len(decisions) == 40 * 15 and {d.data["purpose"] for d in decisions} == {"commute.logit"}
    assert sum(decisions[0].data["parsed"]["probabilities"].values()) == pytest.approx(1, abs=1e-3)
    metrics = json.loads((done / "metrics.json").read_text())
    split = metrics["modal_split"]["administrative_worker"]
    before = sum(split[str(d)]["taxi"] for d in (5, 6, 7)) / 3
    late_strike = sum(split[str(d)]["taxi"] for d in (13, 14, 15)) / 3
    assert late_strike < before - 10  # fewer taxis after a few days of long waits
    assert metrics["summary"]["calls_per_agent_tick"] == 0.0
    assert same(logit_run(tmp_path / "b"), first)


def test_a_logit_run_takes_no_ablation_and_only_its_own_options() -> None:
    with pytest.raises(ScenarioError) as refused:
        commute("agents.mind=logit", "ablation=B1", "agents.options.logit.pace=2")
    assert refused.value.problems == [
        "scenario.ablation: the logit mind calls no language model and has no faculties to "
        "switch off; drop the ablation (ablation: null)",
        "scenario.agents.options.logit.pace: unknown setting; the logit mind takes: scale, "
        "learning_rate, margin_min",
    ]
