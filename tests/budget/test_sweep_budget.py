"""A sweep's budget: runs start in waves, one per worker, and no wave starts a run that the
mean spend of the finished ones says would pass it; the sweep writes what it completed, is
marked `stopped: budget`, and the command exits 3."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from simulacra.cli import app

ELFAROL = Path(__file__).resolve().parents[2] / "scenarios" / "elfarol.yaml"


def _sweep(root: Path, *extra: str) -> tuple[int, str, Path]:
    sets = [
        "model.spec=scripted",
        "agents.count=5",
        "clock.ticks=4",  # 20 calls a run
        "sweep.vary={world.threshold: [0.4, 0.6]}",
        "sweep.replicates=2",  # 4 runs (each wave starts a pool of processes: few waves)
        f"output.root={root}",
        "output.report=false",
        *extra,
    ]
    args = ["sweep", str(ELFAROL), "--workers", "2", *[a for s in sets for a in ("--set", s)]]
    result = CliRunner().invoke(app, args)
    (out,) = [p for p in root.iterdir() if p.is_dir()]
    return result.exit_code, result.output, out


def test_a_sweep_starts_no_run_its_budget_cannot_pay_for(tmp_path: Path) -> None:
    # 20 calls a run, 70 allowed: a wave of two (40 calls), then room for one more run only
    # (a wave of one: 60 calls), then for none.
    code, output, out = _sweep(tmp_path, "sweep.budget.calls=70")
    assert code == 3, output
    info = json.loads((out / "sweep.json").read_text())
    assert info["status"] == "stopped: budget" and info["completed"] == 3
    assert info["spent"]["calls"] == 60
    assert "it completed 3 of 4 runs" in output
    runs = [p for p in out.iterdir() if (p / "run.json").is_file()]
    assert len(runs) == 3
    assert len((out / "results.csv").read_text().splitlines()) == 1 + 3

    # With a raised budget in its config.yaml, a resume reads the three back and runs one.
    config = yaml.safe_load((out / "config.yaml").read_text())
    config["sweep"]["budget"]["calls"] = 1000
    (out / "config.yaml").write_text(yaml.safe_dump(config))
    resumed = CliRunner().invoke(app, ["sweep", "--resume", str(out)])
    assert resumed.exit_code == 0, resumed.output
    info = json.loads((out / "sweep.json").read_text())
    assert info["status"] == "completed" and "completed" not in info
    assert len((out / "results.csv").read_text().splitlines()) == 1 + 4
    assert len([p for p in out.iterdir() if (p / "run.json").is_file()]) == 4


def test_a_sweep_within_its_budget_completes(tmp_path: Path) -> None:
    code, output, out = _sweep(tmp_path, "sweep.budget.calls=80")
    assert code == 0, output
    info = json.loads((out / "sweep.json").read_text())
    assert info["status"] == "completed" and "completed" not in info
