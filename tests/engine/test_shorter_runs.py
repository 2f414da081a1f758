"""Shortening a run is one change: what a scenario sets after the run's last tick is left out,
named in one warning line, in every world; a time before the first tick is still refused."""

from __future__ import annotations

import logging
from datetime import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.experiments import ScenarioError, load_scenario
from simulacra.worlds.commute import CommuteConfig
from simulacra.worlds.grid import GridConfig
from simulacra.worlds.town import TownConfig

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_a_three_hour_town_drops_its_later_interviews_and_the_party_window_in_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        town = load_scenario(SCENARIOS / "town.yaml", ["clock.duration=3h", "agents.count=3"])
    (said,) = warnings(caplog)
    assert said.endswith(
        "town.yaml: the run's last tick is tick 18, at 09:50, so these never happen and are "
        "left out: interviews at 13:00, 16:00, 19:00; world.attendance (17:00 to 18:30)"
    )
    assert town.interviews is None
    assert isinstance(town.world, TownConfig) and town.world.attendance is None
    assert [i.at for i in town.interventions] == [time(7, 30)]  # 07:30 is reached: kept


def test_what_the_run_reaches_is_kept(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        town = load_scenario(SCENARIOS / "town.yaml", ["clock.duration=7h"])
    (said,) = warnings(caplog)
    assert "interviews at 16:00, 19:00; world.attendance (17:00 to 18:30)" in said
    assert town.interviews is not None
    assert town.interviews.times == [time(13)]


def test_a_full_length_scenario_warns_of_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        for name in ("town", "hazard", "commute", "elfarol", "embodied"):
            load_scenario(SCENARIOS / f"{name}.yaml")
    assert warnings(caplog) == []


def test_a_shorter_commute_keeps_the_strike_days_it_reaches(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        commute = load_scenario(
            SCENARIOS / "commute.yaml",
            ["clock.ticks=12", "world.environment={11: a fair, 14: a holiday}"],
        )
    (said,) = warnings(caplog)
    assert said.endswith("world.city.taxi_strikes[0] on days 13-15; world.environment on days 14")
    assert isinstance(commute.world, CommuteConfig)
    assert commute.world.city.taxi_strikes[0].days == (11, 12)
    assert commute.world.environment == {11: "a fair"}
    shorter = load_scenario(SCENARIOS / "commute.yaml", ["clock.ticks=5"])
    assert isinstance(shorter.world, CommuteConfig) and shorter.world.city.taxi_strikes == ()


def test_a_shorter_grid_run_drops_the_fires_that_start_after_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        grid = load_scenario(SCENARIOS / "hazard.yaml", ["clock.ticks=4"])
    (said,) = warnings(caplog)
    assert said.endswith("left out: world.fires fire2 (from step 5)")
    assert isinstance(grid.world, GridConfig)
    assert [f.name for f in grid.world.fires] == ["fire1"]


def test_interventions_and_evaluation_times_after_the_end_are_named(
    caplog: pytest.LogCaptureFixture,
) -> None:
    thought = "type: thought, agent: theo_brandt, text: Lunch."
    extra = [
        "clock.duration=2h",
        f"interventions=[{{at: '07:30', {thought}}}, {{at: '12:00', {thought}}}]",
        "evaluation.at='20:00'",
        "evaluation.times=['08:00', '20:00']",
    ]
    with caplog.at_level(logging.WARNING):
        town = load_scenario(SCENARIOS / "town.yaml", extra)
    (said,) = warnings(caplog)
    assert "left out: interventions[1] (thought at 12:00); interviews at 13:00" in said
    assert "evaluation.at 20:00 (the run's end instead); evaluation.times 20:00" in said
    assert [i.at for i in town.interventions] == [time(7, 30)]
    assert town.evaluation.at is None and town.evaluation.times == [time(8)]


def test_a_time_before_the_first_tick_is_still_refused() -> None:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(SCENARIOS / "town.yaml", ["clock.start=2024-02-14T11:00"])
    assert (
        "scenario.interventions[0].at: 2024-02-14 07:30 is before the run's first tick"
        in (caught.value.problems[0])
    )


def test_the_command_line_prints_the_warning_once_after_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = str(SCENARIOS / "town.yaml")
    result = CliRunner().invoke(app, ["scenario", "check", path, "--set", "clock.duration=3h"])
    said = [line for line in result.output.splitlines() if line.startswith("warning: ")]
    assert result.exit_code == 0 and len(said) == 1, result.output
    assert "interviews at 13:00, 16:00, 19:00; world.attendance" in said[0]
