"""Derived files (JSON, YAML, CSV, `name: value` text) agree with the SUMO outputs they name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulacra.lab.derived import derived_problems, quantity

HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n\n<!-- generated on 2026-12-06 by Eclipse SUMO '
    'sumo 1.28.0\n<sumoConfiguration>\n    <end value="1500"/>\n</sumoConfiguration>\n-->\n\n'
)
DURATIONS = [60.0, 70.0, 110.0]  # mean 80, sum 240; the cars' mean 65, the truck's 110
TYPES = ["car", "car", "truck"]


@pytest.fixture
def attempt(tmp_path: Path) -> Path:
    trips = "".join(
        f'<tripinfo id="{i}" duration="{d:.2f}" waitingTime="{i}.00" timeLoss="2.00" vType="{t}"/>'
        for i, (d, t) in enumerate(zip(DURATIONS, TYPES, strict=True))
    )
    (tmp_path / "outputs").mkdir()
    (tmp_path / "outputs" / "tripinfo.xml").write_text(f"{HEADER}<tripinfos>{trips}</tripinfos>")
    return tmp_path


def _problems(attempt: Path, name: str, text: str) -> list[str]:
    (attempt / "outputs" / name).write_text(text)
    paths = ["outputs/tripinfo.xml", f"outputs/{name}"]
    return derived_problems(attempt, paths, ["Simulate until 1500 s."])


def test_names_are_read_as_a_quantity_and_an_aggregate() -> None:
    assert quantity("mean_duration_s") == ("duration", "mean")
    assert quantity("meanTravelTime") == ("traveltime", "mean")
    assert quantity("total-time-loss") == ("timeloss", "sum")


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("metrics.json", json.dumps({"mean_duration_s": 80.0, "trips": 3})),
        ("metrics.json", json.dumps({"results": {"avgTripDuration": 80}})),
        ("metrics.json", json.dumps({"total_time_loss": 6.0, "max_waiting_s": 2})),
        ("metrics.json", json.dumps({"mean_duration_s": {"car": 65.0, "truck": 110.0}})),
        ("metrics.json", json.dumps({"Car": {"max_duration": 70, "trips": 2}})),
        ("metrics.json", json.dumps({"duration": {"mean": 80.0}})),  # an aggregate, no group
        ("by-type.csv", "type,mean_duration,trips\ncar,65.00,2\ntruck,110.00,1\n"),
        ("by-trip.csv", "run,duration\ntripinfo,60.00\ntripinfo,110.00\n"),  # the file's name
        ("metrics.yaml", "mean_travel_time_s: 80.0\nend: 1500\n"),
        ("durations.csv", "id,duration\n0,60.00\n1,70.00\n2,110.00\n"),
        ("summary.md", "# Run\n- Mean duration: 80 s\n- Trips: 3\n"),
        ("notes.txt", "cycle = 60\nseed: 7\n"),  # names no quantity SUMO writes
    ],
)
def test_figures_that_the_sumo_outputs_give_pass(attempt: Path, name: str, text: str) -> None:
    assert _problems(attempt, name, text) == []


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("metrics.json", json.dumps({"mean_duration_s": 120.0}), "mean_duration_s = 120.0"),
        ("metrics.json", json.dumps({"summary": {"meanTripDuration": 120}}), "= 120"),
        # Within the range of all trips (60 to 110), but not the cars' mean, 65:
        ("metrics.json", json.dumps({"mean_duration_s": {"car": 80.0}}), "gives for car"),
        ("by-type.csv", "type,mean_duration\ncar,80.00\n", "<tripinfo vType='car'>"),
        # A group the data does not hold, its figure within the range:
        ("metrics.json", json.dumps({"mean_duration_s": {"early": 65.0}}), "holds early"),
        ("by-type.csv", "type,mean_duration\nbus,65.00\n", "holds bus"),
        ("metrics.yaml", "mean_travel_time_s: 120.0\n", "mean_travel_time_s = 120.0"),
        ("durations.csv", "id,duration\n0,60.00\n1,75.00\n", "duration = 75.00"),
        ("summary.md", "- Mean duration: 120 s\n", "Mean duration = 120"),
        ("metrics.json", json.dumps({"mean_speed": 9.1}), "no delivered SUMO output gives"),
    ],
)
def test_figures_that_no_sumo_output_gives_are_refused(
    attempt: Path, name: str, text: str, problem: str
) -> None:
    found = _problems(attempt, name, text)
    assert len(found) == 1 and problem in found[0], found
