"""A commute population fitted by IPF to zone margins (experiments/population.py), written as
the population file (`agents.personas`) and run."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.commute.conftest import NO_STRIKE, SCENARIO, commute
from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.experiments import load_scenario, run
from simulacra.experiments.load import ScenarioError
from simulacra.experiments.population import (
    Controls,
    PopulationError,
    fit_population,
    read_controls,
    read_seed,
    srmse,
    write_population,
)
from simulacra.mind.commuter import Profile

EXAMPLE = SCENARIO.parent / "commute" / "population"
MARGINS = ("age_band", "income_band", "employment", "household_size")


def _profiles() -> dict[str, Profile]:
    return {n: Profile.model_validate(r) for n, r in commute().agents.profiles.items()}


def _zones() -> list[str]:
    return list(commute().world.city.zones)  # type: ignore[union-attr]


def _fit(controls: Controls, seed: int = 0):  # type: ignore[no-untyped-def]
    sample = read_seed(EXAMPLE / "seed.csv")
    return fit_population(sample, controls, _profiles(), _zones(), rng_seed=seed)


def test_the_shipped_example_meets_every_margin_and_draws_each_zone_in_full() -> None:
    controls = read_controls(EXAMPLE / "controls.yaml")
    fit = _fit(controls)
    margins = fit.margins().set_index("margin")
    assert list(margins.index) == list(MARGINS)
    assert margins["met"].all()
    assert (margins["srmse_fitted"] < 1e-3).all()
    # Whole persons cannot meet every cell of four margins at once, but they come close.
    assert (margins["srmse_drawn"] < 0.2).all()
    homes = [p.profile.home for p in fit.people]
    for zone, by_margin in controls.zones.items():
        assert homes.count(zone) == sum(by_margin["employment"].values())
    # The drawn employment cells follow the targets person by person where a cell is large.
    cells = fit.cells[(fit.cells["margin"] == "employment") & (fit.cells["target"] >= 40)]
    assert ((cells["drawn"] - cells["target"]).abs() <= 0.1 * cells["target"]).all()
    assert fit.unmet() == []


def test_a_written_population_runs_as_the_commute_with_its_own_homes(tmp_path: Path) -> None:
    fit = _fit(read_controls(EXAMPLE / "controls.yaml"))
    write_population(fit, tmp_path)
    rows = yaml.safe_load((tmp_path / "population.yaml").read_text(encoding="utf-8"))["personas"]
    assert len(rows) == 320
    # Three rows, so the run takes a second; the factory worker's seed row lives by the river.
    some = [r for r in rows if r["home"] == "west_end"][:3]
    (tmp_path / "few.yaml").write_text(yaml.safe_dump({"personas": some}), encoding="utf-8")
    scenario = commute(
        f"agents.personas={tmp_path / 'few.yaml'}",
        "agents.mix=null",
        "agents.mind=logit",
        "clock.ticks=2",
        NO_STRIKE,
        f"output.root={tmp_path}",
        "output.report=false",
    )
    done = run(scenario, progress=False)
    with (done.path / "events.jsonl").open(encoding="utf-8") as events:
        agents = json.loads(events.readline())["data"]["agents"]
    assert list(agents) == [r["id"] for r in some]
    for row in some:
        who = agents[row["id"]]
        assert (who["home"], who["destination"]) == (row["home"], row["work"])
        assert (who["age"], who["income_eur"], who["habit"]) == (
            row["age"],
            row["income_eur"],
            row["habit"],
        )


def test_margins_whose_totals_differ_are_refused_naming_them() -> None:
    raw = yaml.safe_load((EXAMPLE / "controls.yaml").read_text(encoding="utf-8"))
    raw["zones"]["west_end"]["household_size"]["1"] += 7
    with pytest.raises(PopulationError) as caught:
        _fit(Controls.model_validate(raw))
    said = str(caught.value)
    assert "zones.west_end: the margins contradict each other" in said
    assert "household_size 87" in said and "age_band 80" in said
    assert "riverside" not in said


def test_a_category_no_seed_person_has_cannot_be_met() -> None:
    raw = yaml.safe_load((EXAMPLE / "controls.yaml").read_text(encoding="utf-8"))
    ages = raw["zones"]["riverside"]["age_band"]
    ages["18-25"] -= 5
    ages["86+"] = 5
    with pytest.raises(PopulationError, match=r"zones\.riverside\.age_band\.86\+: 5 persons"):
        _fit(Controls.model_validate(raw))


def _infeasible() -> Controls:
    """Only the seed's elderly residents are retired, and all of them are over 65: 30 retired
    persons with 10 over 65 agree in every total, yet no weighting meets both."""
    return Controls.model_validate(
        {
            "zones": {
                "old_quarter": {
                    "employment": {"student": 20, "office": 20, "factory": 30, "retired": 30},
                    "age_band": {"18-25": 25, "26-45": 35, "46-65": 30, "66+": 10},
                }
            }
        }
    )


def test_margins_that_cannot_be_met_together_are_reported_not_met(tmp_path: Path) -> None:
    fit = _fit(_infeasible())
    margins = fit.margins().set_index("margin")
    # IPF ends each sweep on the last margin listed, which it then meets; the one before it
    # keeps the gap: the 10 persons over 65 are all the retired persons it can have.
    assert margins.loc["age_band", "met"] and not margins.loc["employment", "met"]
    assert margins.loc["employment", "srmse_fitted"] > 0.3
    retired = fit.cells.query("margin == 'employment' and category == 'retired'")
    assert retired["fitted"].item() == pytest.approx(10.0, abs=0.01)
    assert "old_quarter.employment.retired" in fit.unmet()
    assert not any(".age_band." in cell for cell in fit.unmet())
    write_population(fit, tmp_path)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<td class=out>no</td>" in page  # the employment margin
    assert page.count("<td class=out>") == 1 + len(fit.unmet())


def test_the_command_prints_the_fit_and_refuses_an_unmet_margin(tmp_path: Path) -> None:
    runner = CliRunner()
    sample, controls = str(EXAMPLE / "seed.csv"), str(EXAMPLE / "controls.yaml")
    done = runner.invoke(
        app,
        [
            "population",
            "fit",
            sample,
            controls,
            "--scenario",
            str(SCENARIO),
            "--out",
            str(tmp_path),
        ],
    )
    assert done.exit_code == 0, done.output
    assert "SRMSE" in done.output and "employment" in done.output
    assert (tmp_path / "population.yaml").is_file() and (tmp_path / "margins.csv").is_file()
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Fit per margin" in page and page.count("<tr>") == 1 + 4 + 1 + 56
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(_infeasible().model_dump(), sort_keys=False), encoding="utf-8")
    out = tmp_path / "bad"
    refused = runner.invoke(
        app, ["population", "fit", sample, str(bad), "--scenario", str(SCENARIO), "--out", str(out)]
    )
    assert refused.exit_code == 2
    assert "old_quarter.employment.retired" in refused.output
    assert not (out / "population.yaml").exists()


def test_a_population_file_names_its_faults_by_row() -> None:
    row = {
        "id": "a1",
        "profile": "student",
        "home": "student_quarter",
        "work": "university",
        "age": 20,
        "gender": "female",
        "income_eur": 600,
        "weights": {"time": 1, "cost": 3},
        "habit": "08:10",
    }
    bad = [row, {**row, "id": "a2", "home": "moon"}, {**row, "id": "a1", "profile": "pilot"}]
    with pytest.raises(ScenarioError) as caught:
        load_scenario(
            SCENARIO, ["model.spec=scripted", "agents.mix=null", f"agents.personas={bad}"]
        )
    said = "\n".join(caught.value.problems)
    assert 'scenario.agents.personas[1].home: unknown zone "moon"' in said
    assert 'scenario.agents.personas[2].profile: unknown profile "pilot"' in said
    assert "scenario.agents.personas[2].id: 'a1' is listed twice" in said
    with pytest.raises(ScenarioError, match="leave the mix out"):
        load_scenario(SCENARIO, ["model.spec=scripted", f"agents.personas={[row]}"])


def test_srmse_is_zero_for_a_perfect_fit_and_scales_with_the_error() -> None:
    assert srmse([10, 20, 30], [10, 20, 30]) == 0.0
    assert srmse([12, 18, 30], [10, 20, 30]) == pytest.approx((8 / 3) ** 0.5 / 20)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_margins_of_any_weighting_of_the_seed_are_met(draw: int) -> None:
    """Margins made from a random whole-person weighting of the seed are met exactly, and the
    drawn population has each zone's total."""
    sample = read_seed(EXAMPLE / "seed.csv")
    rng = random.Random(draw)
    counts = [rng.choice([0, 0, 1, 2, 5]) for _ in range(len(sample))]
    counts[0] += 1  # at least one person
    margins = {
        m: {
            c: float(sum(n for n, v in zip(counts, sample[m], strict=True) if v == c))
            for c in set(sample[m])
        }
        for m in MARGINS
    }
    fit = fit_population(
        sample, Controls(zones={"riverside": margins}), _profiles(), _zones(), rng_seed=draw
    )
    assert fit.unmet() == []
    assert len(fit.people) == sum(counts)
