"""The commute sweep: variants x replicates on a process pool (or Ray), results.csv, the
summaries with confidence intervals over replicates, the paired differences from a reference
(here the logit model, a classical baseline), and the sweep report."""

from __future__ import annotations

import base64
import csv
import importlib.util
import json
import math
import re
from html import escape
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulacra.experiments import ScenarioError, load_scenario
from simulacra.experiments.stats import mean_ci, t_quantile
from simulacra.experiments.sweep import SweepError, run_sweep, variants
from simulacra.runlog import read_events
from simulacra.worlds.commute import City, CommuteConfig

from .conftest import OFFLINE, SCENARIO

# 1 agent of each profile x 5 days, the strike on days 3-4, 2 replicates.
TINY = [
    *OFFLINE,
    "agents.mix={student: 1, administrative_worker: 1, elderly_resident: 1, factory_worker: 1}",
    "clock.ticks=5",
    "world.city.taxi_strikes=[{days: [3, 4], out_of_service: 0.8}]",
    "sweep.replicates=2",
    "sweep.seed=10",
    # the ablation, the logit model and the baseline scenario (no strike)
    "sweep.variants={logit: {agents.mind: logit}, available100: {world.city.taxi_strikes: []}}",
    "sweep.reference=logit",
    "output.report=false",  # each run's own report; the sweep's report is written regardless
]
VARIANTS = ("logit", "available100", "A1", "B1", "Full")
SHARES = ("early", "late", "on_time", "incomplete")
RAY = importlib.util.find_spec("ray") is not None


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    return run_sweep(SCENARIO, TINY, workers=2, root=root, progress=False)


def test_results_csv_has_one_row_per_variant_and_replicate(sweep: Path) -> None:
    assert sweep.name.startswith("commute-sweep-")
    with (sweep / "results.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == (
        "variant",
        "model",
        "replicate",
        "seed",
        "bus_share",
        "calls_per_agent_tick",
        "completion",
        "early",
        "fallback_rate",
        "incomplete",
        "late",
        "on_time",
        "satisfaction",
        "taxi_share",
        "taxi_wait_normal_min",
        "taxi_wait_strike_min",
        "walk_share",
    )
    assert [(r["variant"], r["model"], r["replicate"], r["seed"]) for r in rows] == [
        (v, "scripted", str(rep), str(seed)) for rep, seed in ((1, 10), (2, 11)) for v in VARIANTS
    ]
    for row in rows:
        assert sum(float(row[k]) for k in SHARES) == pytest.approx(100, abs=0.05)
        assert float(row["completion"]) == pytest.approx(100 - float(row["incomplete"]))
    calls = {r["variant"]: float(r["calls_per_agent_tick"]) for r in rows}
    assert calls == {"logit": 0.0, "available100": 2.4, "A1": 0.2, "B1": 2.0, "Full": 2.4}
    # No strike day, no strike-day wait: the cell is empty, not 0.
    assert {r["variant"] for r in rows if r["taxi_wait_strike_min"] == ""} == {"available100"}


def test_the_sweep_directory_holds_each_run_and_the_summaries(sweep: Path) -> None:
    runs = sorted(p for p in sweep.iterdir() if (p / "run.json").is_file())
    assert len(runs) == 10
    infos = [json.loads((p / "run.json").read_text()) for p in runs]
    assert all(i["status"] == "completed" for i in infos)
    assert sorted((i["variant"], i["replicate"], i["seed"]) for i in infos) == sorted(
        (v, r, 9 + r) for v in VARIANTS for r in (1, 2)
    )
    for path, info in zip(runs, infos, strict=True):
        start = next(read_events(path / "events.jsonl", {"run"}))
        if info["variant"] == "logit":
            assert (start.data["mind"], start.data.get("ablation")) == ("logit", None)
        elif info["variant"] == "available100":
            assert start.data["ablation"] == "Full"
        else:
            assert (start.data["ablation"], start.data["seed"]) == (info["variant"], info["seed"])
    summary = json.loads((sweep / "summary.json").read_text())
    assert [row["variant"] for row in summary["rows"]] == list(VARIANTS)
    assert summary["minds"] == {
        "logit": "logit",
        "available100": "commuter",
        "A1": "commuter",
        "B1": "commuter",
        "Full": "commuter",
    }
    assert [group for group, _ in summary["columns"]] == [
        "Table 5",
        "modal split",
        "taxi wait",
        "satisfaction",
        "model",
    ]
    full = summary["rows"][4]
    assert full["replicates"] == 2
    late = full["figures"]["late"]
    assert late["low"] <= late["mean"] <= late["high"] and late["n"] == 2
    assert summary["config"]["world"]["city"]["taxi_strikes"][0]["days"] == [3, 4]
    markdown = (sweep / "summary.md").read_text()
    assert "| Full | scripted | 2 |" in markdown and "## Paired differences from logit" in markdown


def test_each_variant_is_compared_with_the_reference_replicate_by_replicate(sweep: Path) -> None:
    summary = json.loads((sweep / "summary.json").read_text())
    assert summary["reference"] == "logit"
    compared = {row["variant"]: row for row in summary["comparison"]}
    assert set(compared) == {"available100", "A1", "B1", "Full"}
    with (sweep / "results.csv").open() as fh:
        results = {(r["variant"], r["replicate"]): r for r in csv.DictReader(fh)}
    for variant, row in compared.items():
        assert row["against"] == {"variant": "logit", "model": "scripted"} and row["pairs"] == 2
        late = [
            float(results[variant, rep]["late"]) - float(results["logit", rep]["late"])
            for rep in ("1", "2")
        ]
        assert row["figures"]["late"]["mean"] == pytest.approx(sum(late) / 2)
        calls = row["figures"]["calls_per_agent_tick"]
        expected = {"available100": 2.4, "A1": 0.2, "B1": 2.0, "Full": 2.4}[variant]
        assert calls["mean"] == pytest.approx(expected)
    sweep_info = json.loads((sweep / "sweep.json").read_text())
    assert sweep_info["status"] == "completed" and sweep_info["seeds"] == [10, 11]


def test_the_sweep_report_is_one_file_with_the_table_and_per_variant_figures(
    sweep: Path,
) -> None:
    page = (sweep / "report.html").read_text()
    assert escape("The source's Table 5") in page and "taxi strike on days 3, 4" in page
    # 2 figures x 5 variants, and each figure by variant with its interval
    assert page.count('src="data:image/svg+xml;base64,') == 11
    assert "<script" not in page and 'src="http' not in page
    # Figure 6 is drawn from the run with no strike, and only from it.
    assert page.count("available100 (scripted): no strike: every taxi in service") == 1
    assert page.count("Full (scripted): taxi strike on days 3, 4, 13 taxis in service") == 1
    figure6 = [svg for svg in _figures(page) if "Figure 6 of the source" in svg]
    assert len(figure6) == 1 and "available100" in figure6[0]
    # The logit model and language-model variants in one table, then the differences.
    assert page.count("baseline: no model") == 1  # logit's row of the results
    assert "Paired differences from logit" in page and "<th colspan=5>Table 5</th>" in page


def _figures(page: str) -> list[str]:
    found = re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', page)
    return [base64.b64decode(uri).decode() for uri in found]


def test_the_shipped_variants_are_named_by_the_taxis_they_leave_available() -> None:
    scenario = load_scenario(SCENARIO, list(OFFLINE))
    named = variants(scenario)
    in_service = {}
    for name, changes in named.items():
        sets = [f"{k}={json.dumps(v)}" for k, v in changes.items()]
        one = load_scenario(SCENARIO, [*OFFLINE, *sets])
        assert isinstance(one.world, CommuteConfig)
        city = City(one.world.city)
        in_service[name] = [len(city.taxis_in_service(d)) for d in (10, 11, 15, 16)]
    # The strike runs with 20% available (13 of 64); the source's 40% availability leaves 26.
    assert in_service == {
        "logit": [64, 13, 13, 64],
        "available100": [64, 64, 64, 64],
        "available40": [64, 26, 26, 64],
        "A1": [64, 13, 13, 64],
        "B1": [64, 13, 13, 64],
        "Full": [64, 13, 13, 64],
    }
    assert scenario.sweep.reference == "logit"


def test_named_variants_alone_are_the_sweep_and_nothing_at_all_is_one_base_run() -> None:
    named = load_scenario(
        SCENARIO,
        [*OFFLINE, "sweep.vary={}", "sweep.variants={llm: {}, logit: {agents.mind: logit}}"],
    )
    assert variants(named) == {"llm": {}, "logit": {"agents.mind": "logit"}}
    bare = load_scenario(SCENARIO, [*OFFLINE, "sweep.vary={}", "sweep.variants={}"])
    assert variants(bare) == {"base": {}}


def test_a_bad_override_or_variant_is_refused_before_anything_is_created(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as refused:
        run_sweep(SCENARIO, [*TINY, "clock.ticks=0"], root=tmp_path, progress=False)
    assert [p.split(":")[0] for p in refused.value.problems] == ["scenario.clock.ticks"]
    with pytest.raises(ScenarioError, match="sweep variant Z9") as refused:
        run_sweep(SCENARIO, [*TINY, "sweep.vary={ablation: [A1, Z9]}"], root=tmp_path)
    assert refused.value.problems == [
        'scenario.ablation: unknown ablation "Z9"; known ablations: Full, A1, B1'
    ]
    with pytest.raises(ScenarioError) as refused:
        run_sweep(SCENARIO, [*TINY, "sweep.reference=A2"], root=tmp_path, progress=False)
    assert refused.value.problems == [
        'scenario.sweep.reference: "A2" is neither a variant nor a model of this sweep; known: '
        "logit, available100, A1, B1, Full, scripted"
    ]
    assert not any(tmp_path.iterdir())


def test_ray_needs_ray_or_says_how_to_install_it(tmp_path: Path) -> None:
    if RAY:
        pytest.skip("Ray is installed: the missing-Ray message cannot be shown")
    with pytest.raises(SweepError, match="pip install"):
        run_sweep(SCENARIO, TINY, executor="ray", root=tmp_path, progress=False)
    assert not any(tmp_path.iterdir())


@pytest.mark.skipif(not RAY, reason="Ray is not installed (the optional ray extra)")
@pytest.mark.slow
def test_the_sweep_runs_on_a_local_ray(tmp_path: Path) -> None:
    out = run_sweep(SCENARIO, TINY, executor="ray", workers=2, root=tmp_path, progress=False)
    with (out / "results.csv").open() as fh:
        assert len(list(csv.DictReader(fh))) == 10


def test_t_quantiles_match_the_tables() -> None:
    for df, expected in ((1, 12.706), (2, 4.303), (4, 2.776), (9, 2.262), (30, 2.042)):
        assert t_quantile(0.975, df) == pytest.approx(expected, abs=5e-4)
    assert t_quantile(0.975, 100_000) == pytest.approx(1.960, abs=5e-4)


def test_mean_ci_on_hand_made_numbers() -> None:
    ci = mean_ci([1.0, 2.0, 3.0])  # sd 1, n 3: half-width 4.303 / sqrt(3)
    assert ci.mean == 2.0 and ci.n == 3
    assert ci.high is not None and ci.low is not None
    assert ci.high - ci.mean == pytest.approx(4.3027 / math.sqrt(3), abs=1e-4)
    assert ci.mean - ci.low == pytest.approx(ci.high - ci.mean)
    one = mean_ci([42.5])
    assert (one.mean, one.low, one.high) == (42.5, None, None)
    assert one.text() == "42.50 (CI n/a)"
    same = mean_ci([7.0, 7.0, 7.0])
    assert (same.low, same.high) == (7.0, 7.0)


percent = st.floats(min_value=0, max_value=100, allow_nan=False)


@given(st.lists(percent, min_size=2, max_size=12))
def test_the_mean_lies_inside_its_interval(values: list[float]) -> None:
    ci = mean_ci(values)
    assert ci.low is not None and ci.high is not None
    assert ci.low - 1e-9 <= ci.mean <= ci.high + 1e-9
    assert min(values) - 1e-9 <= ci.mean <= max(values) + 1e-9


@given(st.lists(percent, min_size=2, max_size=6), st.integers(min_value=2, max_value=5))
def test_the_interval_narrows_as_the_same_replicates_repeat(
    values: list[float], times: int
) -> None:
    def width(xs: list[float]) -> float:
        ci = mean_ci(xs)
        assert ci.low is not None and ci.high is not None
        return ci.high - ci.low

    once, repeated = width(values), width(values * times)
    assert mean_ci(values * times).mean == pytest.approx(mean_ci(values).mean)
    assert repeated <= once + 1e-9
    if once > 1e-6:
        assert repeated < once
