"""`simulacra calibrate`: the targets file, and ABC-SMC through the sweep machinery recovering
the logit model's constants that the fixed-point fit found (experiments/calibration.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import simulacra
from simulacra.experiments.calibrate import CalibrationError, Statistic, read_targets

SCENARIO = Path(__file__).parents[2] / "scenarios" / "commute.yaml"
SHIPPED_TARGETS = SCENARIO.parent / "commute" / "targets.yaml"
CONSTANTS = "agents.options.logit.constants.student"


def _write(tmp_path: Path, raw: dict) -> Path:  # type: ignore[type-arg]
    path = tmp_path / "targets.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    return path


def test_the_shipped_targets_file_is_valid_and_refers_to_the_fixed_point_fit() -> None:
    targets = read_targets(SHIPPED_TARGETS)
    assert len(targets.parameters) == 8 and len(targets.targets) == 12
    shipped = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))
    constants = shipped["agents"]["options"]["logit"]["constants"]
    for path, parameter in targets.parameters.items():
        profile, mode = path.split(".")[-2:]
        assert parameter.reference == constants[profile][mode]
    assert targets.held_out is not None and len(targets.held_out.targets) == 3


def test_a_bad_targets_file_names_each_field_at_fault(tmp_path: Path) -> None:
    raw = {
        "parameters": {f"{CONSTANTS}.bus": {"uniform": [4, -5]}, f"{CONSTANTS}.walk": {}},
        "targets": {
            "shift": {"metric": "modal_split.student.{day}.bus", "observed": 3},
            "bus": {"metric": "modal_share.student.bus", "observed": 66, "scale": 0},
        },
        "abc": {"particles": 2},
    }
    with pytest.raises(CalibrationError) as caught:
        read_targets(_write(tmp_path, raw))
    said = str(caught.value)
    assert f"targets.parameters.{CONSTANTS}.bus" in said and "low below high" in said
    assert f"targets.parameters.{CONSTANTS}.walk" in said and "give one prior" in said
    assert "targets.targets.shift" in said and "{day}" in said
    assert "targets.targets.bus.scale" in said
    assert "targets.abc.particles" in said


def test_a_statistic_reads_a_day_shift_and_names_a_missing_key() -> None:
    metrics = {
        "modal_split": {"student": {str(d): {"bus": 60.0 + 5 * (d > 3)} for d in range(1, 6)}}
    }
    shift = Statistic(
        metric="modal_split.student.{day}.bus", days=[4, 5], minus_days=[1, 2, 3], observed=5
    )
    assert shift.value(metrics) == 5.0
    with pytest.raises(KeyError, match='unknown key "buss" \\(did you mean "bus"\\?\\)'):
        Statistic(metric="modal_split.student.1.buss", observed=0).value(metrics)


def test_abc_smc_recovers_the_fixed_point_constants_of_the_students(tmp_path: Path) -> None:
    """The students' two constants from their baseline split (taxi 4, bus 66, walk 30), on a
    cheap budget: 20 students x 4 days a run, at most 100 runs. The fixed-point fit (1.183,
    -0.248; 80 students x 20 days, seeds 0-2) must lie inside the 95% intervals, and the
    intervals must be narrower than the prior's; the held-out strike-day figure is reported,
    not fitted (the logit commuter plans a taxi on a day none runs: it learns only from its
    trips)."""
    raw = {
        "set": [
            "agents.mind=logit",
            "world.city.taxi_strikes=[]",
            "agents.mix={student: 20}",
            "clock.ticks=4",
            "model.spec=scripted",
        ],
        "parameters": {
            f"{CONSTANTS}.bus": {"uniform": [-5, 4], "reference": 1.183},
            f"{CONSTANTS}.walk": {"uniform": [-5, 4], "reference": -0.248},
        },
        "targets": {
            mode: {"metric": f"modal_share.student.{mode}", "observed": share}
            for mode, share in (("taxi", 4), ("bus", 66), ("walk", 30))
        },
        "held_out": {
            "set": ["world.city.taxi_strikes=[{days: [3, 4], out_of_service: 1.0}]"],
            "draws": 3,
            "targets": {
                "taxi_on_strike_days": {
                    "metric": "modal_split.student.{day}.taxi",
                    "days": [3, 4],
                    "observed": 0,
                }
            },
        },
        "abc": {"particles": 16, "generations": 3, "runs": 100},
    }
    found = simulacra.calibrate(SCENARIO, _write(tmp_path, raw), root=tmp_path, workers=2)
    parameters = found.parameters()
    assert parameters["reference_inside"].all(), parameters
    width = parameters["high"] - parameters["low"]
    assert (width < 0.85 * 8.55).all(), parameters  # the prior's 95% interval is 8.55 wide
    info = found.info
    assert info["runs"]["fit"] <= 100 and info["runs"]["predictive"] == 6
    assert len(found.posterior()) == 16 and found.posterior()["weight"].sum() == pytest.approx(1)
    assert list(found.fit().index) == ["taxi", "bus", "walk"]
    held = found.held_out()
    assert list(held.index) == ["taxi_on_strike_days"]
    # Reported beside what was observed, never fitted: taxis planned on the days none runs.
    row = held.loc["taxi_on_strike_days"]
    assert row["low"] <= row["median"] <= row["high"] and row["observed"] == 0
    page = (found.path / "report.html").read_text(encoding="utf-8")
    assert "Held-out check" in page and "Pairwise posterior" in page
    assert not (found.path / "runs").exists()
