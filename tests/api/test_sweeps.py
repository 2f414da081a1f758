"""The Python API on sweeps, and `simulacra export`: one tidy table over every run, intervals
per variant, and SQL over every run's tables that agrees with pandas."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from simulacra import api
from simulacra.cli import app
from simulacra.experiments.pool import PoolError
from simulacra.experiments.stats import WILSON_COUNT

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "elfarol.yaml"
SMALL = {
    "agents.count": 10,
    "clock.ticks": 5,
    "output.report": False,
    "sweep.vary": {"world.threshold": [0.4, 0.6]},
    "sweep.replicates": 2,
}


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> api.Sweep:
    root = tmp_path_factory.mktemp("sweeps")
    return api.sweep(SCENARIO, set=SMALL, model="scripted", workers=1, root=root, progress=False)


def test_the_table_has_a_row_per_run_with_its_variant_replicate_seed_and_figures(swept):
    table = swept.table()
    assert len(table) == 4
    assert sorted(zip(table["variant"], table["replicate"], strict=True)) == [
        ("0.4", 1),
        ("0.4", 2),
        ("0.6", 1),
        ("0.6", 2),
    ]
    assert table.groupby("replicate")["seed"].nunique().tolist() == [1, 1]  # shared per replicate
    assert (table["status"] == "completed").all()
    assert table["model"].eq("scripted").all()
    for run_name, attendance in zip(table["run"], table["mean_attendance"], strict=True):
        assert api.open_run(swept.path / run_name).summary()["mean_attendance"] == attendance
    assert str(table["mean_attendance"].dtype) == "float64"
    assert str(table["variant"].value_counts().dtype) == "int64"  # pandas' str, not pyarrow's


def test_the_summary_gives_each_variant_a_mean_inside_its_interval(swept):
    summary = swept.summary()
    attendance = summary[summary["figure"] == "mean_attendance"].set_index("variant")
    table = swept.table()
    for variant, row in attendance.iterrows():
        values = table.loc[table["variant"] == variant, "mean_attendance"]
        assert row["mean"] == pytest.approx(values.mean())
        assert row["n"] == 2
        assert row["low"] <= row["mean"] <= row["high"]
    crowded = summary[summary["figure"] == "crowded_share"]
    assert (crowded["low"] >= 0).all() and (crowded["high"] <= 1).all()  # a share's interval
    assert set(attendance["method"]) == {"t"} and set(crowded["method"]) <= {
        "wilson",
        WILSON_COUNT,
    }


def test_sql_over_the_sweep_agrees_with_pandas(swept):
    found = swept.sql(
        "SELECT r.variant, count(*) AS calls FROM calls c JOIN runs r USING (run) "
        "GROUP BY r.variant ORDER BY r.variant"
    )
    expected = {
        variant: sum(len(api.open_run(swept.path / name).calls()) for name in group["run"])
        for variant, group in swept.table().groupby("variant")
    }
    assert dict(zip(found["variant"], found["calls"], strict=True)) == expected
    weeks = swept.sql("SELECT DISTINCT run, variant, replicate FROM events")
    assert len(weeks) == 4


def test_the_export_command_writes_a_run_s_and_a_sweep_s_tables(swept, tmp_path):
    runner = CliRunner()
    run = swept.runs()[0]
    command = ["export", str(run.path), "--to", "parquet", "--out", str(tmp_path)]
    result = runner.invoke(app, command)
    assert result.exit_code == 0, result.output
    assert pd.read_parquet(tmp_path / "calls.parquet").shape == run.calls().shape

    result = runner.invoke(app, ["export", str(swept.path)])
    assert result.exit_code == 0, result.output
    folder = swept.path / "tables"
    assert len(pd.read_parquet(folder / "runs.parquet")) == 4
    assert len(list((folder / "memories").glob("*.parquet"))) == 4

    refused = runner.invoke(app, ["export", str(swept.path), "--to", "csv"])
    assert refused.exit_code == 2
    assert "unknown format" in refused.output


PLAIN_SCRIPT = """
import simulacra

sweep = simulacra.sweep(
    {scenario!r},
    model="scripted",
    set={{"agents.count": 6, "clock.ticks": 3, "output.report": False,
          "sweep.vary": {{"world.threshold": [0.4, 0.6]}}, "sweep.replicates": 1}},
    workers=1,  # a spawned worker re-imports the main script all the same
    root={root!r},
)
print("variants:", sorted(sweep.table()["variant"]))
"""


def test_a_sweep_runs_from_a_plain_script_without_a_main_guard(tmp_path):
    # spawn re-imports a script that starts its workers; this script has no main guard.
    script = tmp_path / "sweep_it.py"
    script.write_text(PLAIN_SCRIPT.format(scenario=str(SCENARIO), root=str(tmp_path / "runs")))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "variants: ['0.4', '0.6']" in done.stdout
    (folder,) = (tmp_path / "runs").iterdir()  # one sweep, no stray folder from a worker
    assert api.open_sweep(folder).info["status"] == "completed"


def test_a_pool_that_cannot_start_leaves_no_sweep_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "executable", shutil.which("false"))  # an interpreter that fails
    with pytest.raises(PoolError, match=r"process pool stopped \(exit code 1\) after 0 of 4"):
        api.sweep(SCENARIO, set=SMALL, model="scripted", root=tmp_path / "runs", progress=False)
    assert list((tmp_path / "runs").iterdir()) == []
