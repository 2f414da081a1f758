"""The suite as a sweep: tasks x agent kinds, and the sweep report's table of success and SPL
per task and agent."""

from __future__ import annotations

import json
from pathlib import Path

from simulacra.experiments.sweep import run_sweep


def test_a_small_suite_sweep_tabulates_success_and_spl(tmp_path: Path, renders: None) -> None:
    out = run_sweep(
        "scenarios/embodied-suite.yaml",
        [
            "sweep.vary={world.task: [armchair_near], agents.mind: [oracle, random]}",
            "sweep.replicates=1",
            "world.camera.width=96",
            "world.camera.height=72",
            "clock.ticks=8",
        ],
        workers=1,
        root=tmp_path,
        progress=False,
    )
    summary = json.loads((out / "summary.json").read_text())
    by_variant = {row["variant"]: row["figures"] for row in summary["rows"]}
    oracle = by_variant["world.task=armchair_near,agents.mind=oracle"]
    assert oracle["success"]["mean"] == 1.0 and oracle["spl"]["mean"] >= 0.8
    page = (out / "report.html").read_text()
    assert "Success and SPL per task and agent" in page
    assert (
        "<td>armchair_near</td>" in page and "<th>oracle</th>" in page and "<th>random</th>" in page
    )
