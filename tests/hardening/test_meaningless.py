"""Values that validate but mean nothing are errors, in every world: each names its field and
says why it could never take effect. Checked before anything is created."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulacra.cli import app

from .conftest import SCENARIOS

runner = CliRunner()

CASES = [
    # town
    (
        "town",
        'interviews.times=["06:55"]',
        "scenario.interviews.times[0]: 2024-02-14 06:55 is "
        "before the run's first tick (2024-02-14 07:00)",
    ),
    (
        "town",
        'interventions.0.at="06:00"',
        "scenario.interventions[0].at: 2024-02-14 06:00 is before the run's first tick",
    ),
    (
        "town",
        'world.attendance.start="06:00"',
        "scenario.world.attendance.start: 2024-02-14 06:00 is before the run's first tick",
    ),
    (
        "town",
        'world.attendance.end="16:00"',
        "scenario.world.attendance.end: 16:00 is not after start (17:00)",
    ),
    (
        "town",
        "interventions=[{at: '08:00', type: conversation, agents: [theo_brandt, "
        "theo_brandt], text: hi}]",
        "scenario.interventions[0].agents: a conversation needs two different agents",
    ),
    (
        "town",
        'clock={start: 2024-02-14T07:00, duration: 14h, wake: "08:00", sleep: "20:00"}',
        "scenario.interventions[0].at: 2024-02-14 07:30 is before the run's first tick",
    ),
    ("town", 'clock.sleep="09:00"', "scenario.clock: give both wake and sleep"),
    ("town", "clock.duration=0m", "scenario.clock: duration must be positive"),
    (
        "town",
        "clock={start: 2024-02-17T07:00, duration: 1d, weekdays: true}",
        "scenario.clock: the clock has no tick",
    ),
    ("town", "output.root=''", "scenario.output.root: expected at least 1 character, got ''"),
    # grid
    (
        "hazard",
        "world.fires.0.position=[40, 0]",
        "scenario.world.fires[0].position: fire1 is outside the field -25..25",
    ),
    (
        "hazard",
        "agents.personas=[{id: a, gender: f, position: [30, 30]}]",
        "scenario.agents.personas[0].position: [30, 30] is outside the field -25..25",
    ),
    # commute
    (
        "commute",
        "world.city.taxi_strikes.0.days=[0, 1, 2]",
        "scenario.world.city.taxi_strikes[0].days: [0]: working days count from 1",
    ),
    (
        "commute",
        "world.environment={0: a holiday}",
        "scenario.world.environment.0: day 0: working days count from 1",
    ),
    (
        "commute",
        "agents.profiles.student.deadline='13:30'",
        "scenario.agents.profiles.student.deadline: 13:30 is outside the day's trips (06:00-12:00)",
    ),
    ("commute", "agents.mix={student: 0}", "scenario.agents.mix: adds up to no agent"),
    (
        "commute",
        "world.city.day_end='05:00'",
        "scenario.world.city: day window 06:00-05:00 is empty",
    ),
    (
        "commute",
        "world.city.bus.last_departure='05:30'",
        "scenario.world.city: bus.last_departure 05:30 comes before first_departure 06:00",
    ),
    (
        "commute",
        "world.city.bus.last_departure='12:30'",
        "scenario.world.city: bus departures 06:00-12:30 must lie within the day, 06:00-12:00",
    ),
    # elfarol
    (
        "elfarol",
        "world.memory_weeks=44",
        "scenario.world.memory_weeks: 44, but at most 43 weeks are ever known",
    ),
    (
        "elfarol",
        "agents.count=1",
        "scenario.world.threshold: 0.6 of 1 agents leaves no room at the bar",
    ),
    (
        "elfarol",
        'interviews={times: ["2000-01-13T21:00"], question: "Will you go?"}',
        "scenario.interviews: cannot be held: its agents keep no memory stream (memory.mode: "
        "bounded); run the scenario with --set memory.mode=stream",
    ),
]


@pytest.mark.parametrize(("scenario", "override", "expected"), CASES)
def test_a_value_that_could_never_take_effect_is_refused(
    scenario: str, override: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = str(SCENARIOS / f"{scenario}.yaml")
    result = runner.invoke(app, ["run", path, "--model", "scripted", "--set", override])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ")
    assert expected in " ".join(result.output.split()), result.output
    assert list(tmp_path.iterdir()) == []  # nothing was created


@pytest.mark.parametrize("scenario", ["town", "hazard", "commute", "elfarol"])
def test_every_shipped_scenario_means_what_it_says(scenario: str) -> None:
    result = runner.invoke(app, ["scenario", "check", str(SCENARIOS / f"{scenario}.yaml")])
    assert result.exit_code == 0, result.output
