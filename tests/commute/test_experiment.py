"""One commute run in a run directory: events, Table-5 metrics, figures and the report."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from simulacra.commuter import CommuteResults, run_commute_scenario
from simulacra.commuter.metrics import fallback_rates
from simulacra.experiments import ScenarioError
from simulacra.llm import CACHE_FILE
from simulacra.report import build_outputs
from simulacra.runlog import RunDir, read_events

from .conftest import SCENARIO

# 2 agents of each profile x 10 days, the strike on days 6-8.
TINY = [
    "commute.population=[{profile: student, count: 2}, {profile: administrative_worker, "
    "count: 2}, {profile: elderly_resident, count: 2}, {profile: factory_worker, count: 2}]",
    "commute.days=10",
    "commute.city.taxi_strikes=[{days: [6, 7, 8], out_of_service: 0.8}]",
]
TABLE5 = ("early", "late", "on_time", "incomplete", "completion")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> RunDir:
    root = tmp_path_factory.mktemp("runs")
    return run_commute_scenario(
        SCENARIO, model_spec="scripted", root=root, overrides=TINY, progress=False
    )


def metrics_of(run: RunDir) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run.path / "metrics.json").read_text())
    return data


def test_a_run_directory_holds_config_run_info_events_and_outputs(tiny_run: RunDir) -> None:
    info = tiny_run.info()
    assert info["status"] == "completed"
    assert (info["model"], info["variant"], info["executor"]) == ("scripted", "Full", "builtin")
    config = tiny_run.config()
    assert config["commute"]["days"] == 10 and config["model"]["spec"] == "scripted"
    assert "student" in config["commute"]["profiles"]["profiles"]  # resolved: profiles inlined
    for name in ("events.jsonl", "metrics.json", "report.html", "viewer.html"):
        assert (tiny_run.path / name).is_file(), name
    assert not (tiny_run.path / CACHE_FILE).exists()  # the scripted model is not cached


def test_events_hold_a_trip_per_agent_day_a_world_event_per_day_and_every_call(
    tiny_run: RunDir,
) -> None:
    events = list(read_events(tiny_run.events_path))
    kinds = Counter(e.kind for e in events)
    assert kinds["trip"] == 8 * 10
    assert kinds["world"] == 10
    assert kinds["llm.call"] == 8 * 10 * 2.4  # Full: weekly, daily, reflect, abstract
    trip = next(e for e in events if e.kind == "trip")
    assert {"departure_min", "wait_min", "in_vehicle_min", "arrival_min", "punctuality"} <= set(
        trip.data
    )
    assert trip.t is not None and trip.t.startswith("2025-01-06T")
    worlds = [e.data for e in events if e.kind == "world"]
    assert [w["strike"] for w in worlds] == [d in (6, 7, 8) for d in range(1, 11)]
    assert all(sum(w["modal_split"].values()) == pytest.approx(100) for w in worlds)
    assert events[-1].kind == "run" and events[-1].data["status"] == "completed"


def test_metrics_hold_table5_summing_to_100_with_the_on_time_window_stated(
    tiny_run: RunDir,
) -> None:
    punctuality = metrics_of(tiny_run)["punctuality"]
    [row] = punctuality["table"]
    assert row["variant"] == "Full" and row["trips"] == 80
    assert set(TABLE5) <= set(row)
    assert row["early"] + row["late"] + row["on_time"] + row["incomplete"] == pytest.approx(
        100, abs=0.05
    )
    assert row["completion"] == pytest.approx(100 - row["incomplete"])
    assert "within the 5 minutes before the deadline" in punctuality["on_time_window"]
    assert set(punctuality["by_profile"]) == {
        "student",
        "administrative_worker",
        "elderly_resident",
        "factory_worker",
    }


def test_taxi_wait_marks_the_strike_days_and_modal_split_covers_each_profile_and_day(
    tiny_run: RunDir,
) -> None:
    metrics = metrics_of(tiny_run)
    wait = metrics["taxi_wait"]
    assert wait["strike_days"] == [6, 7, 8]
    by_day = wait["by_day"]
    assert [row["day"] for row in by_day] == list(range(1, 11))
    assert [row["day"] for row in by_day if row["strike"]] == [6, 7, 8]
    assert all(row["taxis_in_service"] == 13 for row in by_day if row["strike"])
    split = metrics["modal_split"]
    assert len(split) == 4 and all(len(days) == 10 for days in split.values())
    for days in split.values():
        for modes in days.values():
            assert set(modes) == {"bus", "taxi", "walk"}
            assert sum(modes.values()) == pytest.approx(100, abs=0.05)


def test_fallback_rates_and_model_budget_are_in_the_metrics(tiny_run: RunDir) -> None:
    metrics = metrics_of(tiny_run)
    fallbacks = metrics["fallbacks"]
    assert set(fallbacks) == {
        "commute.weekly",
        "commute.daily",
        "commute.reflect",
        "commute.abstract",
        "total",
    }
    assert fallbacks["total"] == {"calls": 192.0, "fallbacks": 0.0, "rate": 0.0}
    budget = metrics["budget"]
    assert budget["calls_per_agent_day"] == pytest.approx(2.4)
    assert budget["total"]["calls"] == 192
    assert budget["by_purpose"]["commute.daily"]["calls"] == 80


def test_fallback_rate_is_fallbacks_over_calls_per_purpose() -> None:
    results = CommuteResults("B1", agents=4, days=5)
    results.calls.update({"commute.daily": 20, "commute.reflect": 16, "commute.weekly": 4})
    results.fallbacks.update({"commute.daily": 5, "commute.weekly": 4})
    rates = fallback_rates(results)
    assert rates["commute.daily"]["rate"] == 0.25
    assert rates["commute.reflect"]["rate"] == 0.0
    assert rates["commute.weekly"]["rate"] == 1.0
    assert rates["total"] == {"calls": 40.0, "fallbacks": 9.0, "rate": 0.225}


def test_the_report_embeds_the_table_and_both_figures(tiny_run: RunDir) -> None:
    figures = metrics_of(tiny_run)["figures"]
    assert [Path(f["file"]).name for f in figures] == ["modal_split.svg", "taxi_wait.svg"]
    for figure in figures:
        svg = (tiny_run.path / figure["file"]).read_text()
        assert svg.startswith("<?xml") and "<svg" in svg
    page = (tiny_run.path / "report.html").read_text()
    assert page.count('src="data:image/svg+xml;base64,') == 2
    assert "Punctuality (Table 5 of the source)" in page
    assert "Taxi strike: days 6-8" in page


def test_the_report_does_not_embed_a_figure_outside_the_run(
    tiny_run: RunDir, tmp_path: Path
) -> None:
    run = RunDir(Path(shutil.copytree(tiny_run.path, tmp_path / "run")))
    (tmp_path / "secret.svg").write_text("<svg/>")
    metrics = metrics_of(run)
    metrics["figures"] = [{"title": "outside", "file": "../secret.svg"}]
    (run.path / "metrics.json").write_text(json.dumps(metrics))
    page = build_outputs(run.path)["report"].read_text()
    assert "data:image/svg+xml" not in page
    assert "not an .svg or .png inside the run" in page


def test_variant_and_seed_override_the_scenario(tmp_path: Path) -> None:
    run = run_commute_scenario(
        SCENARIO,
        model_spec="scripted",
        variant="A1",
        seed=5,
        root=tmp_path,
        overrides=[*TINY, "commute.days=5"],
        progress=False,
        report=False,
    )
    info = run.info()
    assert (info["variant"], info["seed"]) == ("A1", 5)
    assert info["calls_per_agent_day"] == pytest.approx(0.2)  # A1: one weekly plan a week
    assert not (run.path / "report.html").exists()


def test_a_bad_override_names_the_field_and_creates_no_run(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"commute\.days"):
        run_commute_scenario(
            SCENARIO, model_spec="scripted", root=tmp_path, overrides=["commute.days=0"]
        )
    assert not any(tmp_path.iterdir())
