"""One commute run in a run directory: events, Table-5 metrics, the memory stream, figures and
the report, and a run killed mid-way that resumes to the same log."""

from __future__ import annotations

import base64
import json
import re
import shutil
from collections import Counter, defaultdict
from datetime import timedelta
from html import escape
from pathlib import Path
from typing import Any

import pytest
from tests.runs import latest_checkpoint, same

from simulacra.experiments import ScenarioError, load_scenario, resume, run
from simulacra.experiments.measures import budget, fallbacks
from simulacra.llm import CACHE_FILE
from simulacra.report import build_outputs
from simulacra.runlog import Event, RunDir, read_events

from .conftest import NO_STRIKE, OFFLINE, SCENARIO, commute, run_killed

# 2 agents of each profile x 10 days, the strike on days 6-8.
TINY = [
    "agents.mix={student: 2, administrative_worker: 2, elderly_resident: 2, factory_worker: 2}",
    "clock.ticks=10",
    "world.city.taxi_strikes=[{days: [6, 7, 8], out_of_service: 0.8}]",
]
TABLE5 = ("early", "late", "on_time", "incomplete", "completion")
PROFILES = {"student", "administrative_worker", "elderly_resident", "factory_worker"}
_SVG_URI = re.compile(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"')


def tiny(root: Path, *extra: str) -> list[str]:
    return [*OFFLINE, *TINY, f"output.root={root}", "output.report=false", *extra]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> RunDir:
    root = tmp_path_factory.mktemp("runs")
    return run(load_scenario(SCENARIO, tiny(root)), progress=False)


def metrics_of(run_dir: RunDir) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run_dir.path / "metrics.json").read_text())
    return data


def events(run_dir: RunDir, kind: str) -> list[Event]:
    return list(read_events(run_dir.events_path, {kind}))


def test_a_run_directory_holds_config_run_info_events_and_metrics(tiny_run: RunDir) -> None:
    info = tiny_run.info()
    assert info["status"] == "completed"
    assert (info["model"], info["world"], info["ticks"]) == ("scripted", "commute", 10)
    start = events(tiny_run, "run")[0].data
    assert (start["ablation"], start["mind"], start["model"]) == ("Full", "commuter", "scripted")
    config = tiny_run.config()
    assert config["clock"]["ticks"] == 10 and config["model"]["spec"] == "scripted"
    assert (config["ablation"], config["world"]["executor"]) == (None, "builtin")  # default: Full
    assert "student" in config["agents"]["profiles"]  # resolved: profiles inlined
    for name in ("events.jsonl", "metrics.json", "memory.sqlite"):
        assert (tiny_run.path / name).is_file(), name
    assert not (tiny_run.path / CACHE_FILE).exists()  # the scripted model is not cached


def test_a_run_writes_its_report_and_viewer(tmp_path: Path) -> None:
    scenario = commute(*TINY, "clock.ticks=1", NO_STRIKE, f"output.root={tmp_path}")
    assert scenario.output.report
    done = run(scenario, progress=False)
    assert done.info()["status"] == "completed"
    assert (done.path / "report.html").is_file() and (done.path / "viewer.html").is_file()


def test_events_hold_a_trip_per_agent_day_a_world_event_per_day_and_every_call(
    tiny_run: RunDir,
) -> None:
    log = list(read_events(tiny_run.events_path))
    kinds = Counter(e.kind for e in log)
    trips = [e for e in log if e.kind == "action" and e.data["phase"] == "travel"]
    assert len(trips) == kinds["action"] == 8 * 10
    assert kinds["llm.call"] == 8 * 10 * 2.4  # Full: weekly, daily, reflect, abstract
    trip = trips[0]
    assert {"departure_min", "wait_min", "in_vehicle_min", "arrival_min", "punctuality"} <= set(
        trip.data
    )
    assert trip.t is not None and trip.t.startswith("2025-01-06T")
    assert [e.data["day"] for e in trips] == [d for d in range(1, 11) for _ in range(8)]
    worlds = [e.data for e in log if e.kind == "world"]
    assert [w["step"] for w in worlds] == list(range(11))  # the start, then each day
    days = worlds[1:]
    assert [w["day"] for w in days] == list(range(1, 11))
    assert [w["strike"] for w in days] == [d in (6, 7, 8) for d in range(1, 11)]
    assert all(sum(w["modal_split"].values()) == pytest.approx(100) for w in days)
    assert log[-1].kind == "run.end" and log[-1].data["status"] == "completed"


def test_episodes_and_patterns_are_logged_and_each_pattern_cites_its_weeks_episodes(
    tiny_run: RunDir,
) -> None:
    added = events(tiny_run, "memory.add")
    by_agent: defaultdict[str, list[Event]] = defaultdict(list)
    for e in added:
        assert e.agent is not None
        by_agent[e.agent].append(e)
    assert len(by_agent) == 8
    for agent, records in by_agent.items():
        kinds = [e.data["kind"] for e in records]
        assert kinds == (["episode"] * 5 + ["pattern"]) * 2, agent
        for week in (records[:6], records[6:]):
            *episodes, pattern = week
            assert all(e.data["id"].startswith(f"{agent}-") for e in week)
            assert pattern.data["evidence_ids"] == [e.data["id"] for e in episodes]
        first = [int(e.data["text"].split(":")[0].removeprefix("Day ")) for e in records[:5]]
        assert first == [1, 2, 3, 4, 5]


def test_metrics_hold_table5_summing_to_100_with_the_on_time_window_stated(
    tiny_run: RunDir,
) -> None:
    punctuality = metrics_of(tiny_run)["punctuality"]
    row = punctuality["table"]
    assert row["trips"] == 80
    assert set(TABLE5) <= set(row)
    assert row["early"] + row["late"] + row["on_time"] + row["incomplete"] == pytest.approx(
        100, abs=0.05
    )
    assert row["completion"] == pytest.approx(100 - row["incomplete"])
    assert "within the 5 minutes before the deadline" in punctuality["on_time_window"]
    assert set(punctuality["by_profile"]) == PROFILES
    summary = tiny_run.info()["summary"]
    assert {k: summary[k] for k in TABLE5} == {k: row[k] for k in TABLE5}


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
    assert set(split) == PROFILES and all(len(days) == 10 for days in split.values())
    for days in split.values():
        for modes in days.values():
            assert set(modes) == {"bus", "taxi", "walk"}
            assert sum(modes.values()) == pytest.approx(100, abs=0.05)


def test_fallback_rates_and_model_budget_are_in_the_metrics(tiny_run: RunDir) -> None:
    metrics = metrics_of(tiny_run)
    assert metrics["fallbacks"] == {"total": 0, "rate": 0.0, "by_purpose": {}}
    spent = metrics["budget"]
    assert set(spent["by_purpose"]) == {
        "commute.weekly",
        "commute.daily",
        "commute.reflect",
        "commute.abstract",
    }
    assert spent["calls_per_agent_tick"] == pytest.approx(2.4)
    assert spent["total"]["calls"] == 192
    assert spent["by_purpose"]["commute.daily"]["calls"] == 80


def test_fallback_rate_is_fallbacks_over_calls_per_purpose() -> None:
    def call(purpose: str, fallback: bool) -> Event:
        data = {"purpose": purpose, "fallback": fallback}
        return Event(0, "2025-01-06T06:00:00", 0.0, "llm.call", "a", data)

    log = (
        [call("commute.daily", i < 5) for i in range(20)]
        + [call("commute.reflect", False) for _ in range(16)]
        + [call("commute.weekly", True) for _ in range(4)]
    )
    rates = fallbacks(budget(log, agents=4, ticks=5, tick=timedelta(days=1)))
    assert rates["by_purpose"] == {
        "commute.daily": {"fallbacks": 5, "calls": 20, "rate": 0.25},
        "commute.weekly": {"fallbacks": 4, "calls": 4, "rate": 1.0},
    }
    assert (rates["total"], rates["rate"]) == (9, 0.225)


def embedded_svgs(page: str) -> list[str]:
    return [base64.b64decode(uri).decode() for uri in _SVG_URI.findall(page)]


def test_the_report_embeds_the_table_the_figures_and_the_weekly_trace(
    tiny_run: RunDir, tmp_path: Path
) -> None:
    run_dir = RunDir(Path(shutil.copytree(tiny_run.path, tmp_path / "run")))
    page = build_outputs(run_dir.path)["report"].read_text()
    figures = embedded_svgs(page)
    # Modal split, taxi wait, modes and wait per profile, origins, one profile's day.
    assert len(figures) == 5
    for svg in figures:
        assert svg.startswith("<?xml") and "<svg" in svg
    for title in (
        "Punctuality (Table 5 of the source)",
        "Modal share and satisfaction",
        "Modal split per profile per day under the strike (Figure 6 of the source is the run "
        "without one: the sweep's available100)",
        "Modal split against the expectation (Table 4 of the source)",
        "Modes and taxi wait per profile under the strike (Figure 7 of the source)",
        "Origins and destinations on the corridor (Figure 4 of the source)",
        "Student trips on day 10 (Figure 5 of the source)",  # day 14, or the last of 10
        "Weekly trace of administrative_worker_001 (Appendix B of the source)",
    ):
        assert escape(title) in page, title
    assert "Taxi strike: days 6-8" in page
    assert "<h3>Week 2</h3>" in page and "<b>Lesson:</b> " in page and " min door to door" in page


def test_a_run_without_a_strike_measures_no_strike_day_wait_and_draws_figure_6(
    tmp_path: Path,
) -> None:
    scenario = commute(*TINY, "clock.ticks=3", NO_STRIKE, f"output.root={tmp_path}")
    done = run(scenario, progress=False)
    metrics = metrics_of(done)
    # No strike day: no strike-day wait (not a wait of 0 that a sweep's mean would take in).
    assert "taxi_wait_strike_min" not in metrics["headline"]
    assert "taxi_wait_strike_min" not in done.info()["summary"]
    assert metrics["headline"]["taxi_wait_normal_min"] > 0
    assert metrics["punctuality"]["strike_days_only"] is None
    page = (done.path / "report.html").read_text()
    assert escape("Modal split per profile per day (Figure 6 of the source: no strike)") in page
    assert "Figure 7 of the source" not in page


def test_the_modal_split_is_read_against_the_expectation(tiny_run: RunDir) -> None:
    metrics = metrics_of(tiny_run)
    found = metrics["expectation"]
    assert set(found) == PROFILES
    for profile, row in found.items():
        split = metrics["modal_share"][profile]
        assert row["split"] == split
        first, *_ = row["expected"]
        assert row["in_first_expected"] == split[first]
        assert row["in_expected_modes"] == pytest.approx(sum(split[m] for m in row["expected"]))
        assert row["most_used"] == max(split, key=lambda m: split[m])
        assert row["as_expected"] is (row["most_used"] == first)
    assert found["student"]["expected"] == ["walk", "bus"]  # Table 4's order


def test_the_report_does_not_embed_a_file_that_metrics_name(
    tiny_run: RunDir, tmp_path: Path
) -> None:
    run_dir = RunDir(Path(shutil.copytree(tiny_run.path, tmp_path / "run")))
    secret = "<svg><text>secret-0451</text></svg>"
    (tmp_path / "secret.svg").write_text(secret)
    metrics = metrics_of(run_dir)
    metrics["figures"] = [{"title": "outside", "file": "../secret.svg"}]
    (run_dir.path / "metrics.json").write_text(json.dumps(metrics))
    page = build_outputs(run_dir.path)["report"].read_text()
    assert "secret-0451" not in page and secret not in embedded_svgs(page)
    assert base64.b64encode(secret.encode()).decode() not in page
    assert len(embedded_svgs(page)) == 3  # Figures 4 and 5 read `figures`, now unreadable


def test_ablation_and_seed_override_the_scenario(tmp_path: Path) -> None:
    scenario = load_scenario(
        SCENARIO, tiny(tmp_path, "ablation=A1", "seed=5", "clock.ticks=5", NO_STRIKE)
    )
    done = run(scenario, progress=False)
    info = done.info()
    assert info["seed"] == 5 and events(done, "run")[0].data["ablation"] == "A1"
    assert info["summary"]["calls_per_agent_tick"] == pytest.approx(0.2)  # A1: a weekly plan
    assert not (done.path / "report.html").exists()


def test_a_bad_override_names_the_field() -> None:
    with pytest.raises(ScenarioError) as refused:
        load_scenario(SCENARIO, ["clock.ticks=0"])
    [problem] = refused.value.problems
    assert problem.startswith("scenario.clock.ticks: ") and problem.endswith(
        "expected at least 1, got 0"
    )


def test_a_run_killed_with_sigkill_resumes_to_the_same_log(
    tiny_run: RunDir, tmp_path: Path
) -> None:
    # Checkpoints every 5 days: killed after day 7, it resumes from the end of day 5.
    killed = run_killed(SCENARIO, tiny(tmp_path), 7, tmp_path)
    assert killed.info()["status"] == "running"
    state = latest_checkpoint(killed)
    assert state["step"] == 5
    assert (killed.path / "checkpoint" / state["memory"]).exists()
    resumed = resume(killed.path, progress=False)
    assert resumed.info()["status"] == "completed"
    assert same(resumed, tiny_run)
    assert resumed.info()["summary"] == tiny_run.info()["summary"]
