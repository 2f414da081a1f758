"""A branch study: a scenario's `sweep.fork` forks one run into branches x replicates and
compares each branch with the unchanged one, replicate by replicate."""

import json
from pathlib import Path

import pytest
from tests.engine.test_conformance import SCENARIOS, small

from simulacra.experiments import ForkError
from simulacra.experiments.sweep import run_sweep
from simulacra.runlog import compare_runs

TOLD = (
    '{at: "07:20", type: conversation, agents: [marta_okafor, theo_brandt], '
    'text: "Isabella is throwing a Valentine party at Hobbs Cafe at 5 pm"}'
)


def test_a_branch_study_runs_the_parent_then_pairs_each_branch_with_the_unchanged_one(
    tmp_path: Path,
) -> None:
    sets = [
        *small("town", tmp_path),
        "sweep.replicates=2",
        f'sweep.fork={{at: "07:20", branches: {{told: {{interventions: [{TOLD}]}}}}}}',
    ]
    out = run_sweep(SCENARIOS / "town.yaml", sets, progress=False)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["reference"] == "unchanged"
    runs = {(r["variant"], r["replicate"]): r for r in summary["runs"]}
    assert set(runs) == {(b, r) for b in ("unchanged", "told") for r in (0, 1)}
    (parent,) = [p for p in out.iterdir() if (p / "run.json").is_file() and "fork" not in p.name]
    # Replicate 0 of the unchanged branch keeps the parent's random numbers: it is the parent.
    assert compare_runs(parent, out / runs[("unchanged", 0)]["run"]).same
    # The paired difference is the per-replicate difference of the two branches' figures.
    (row,) = summary["comparison"]
    assert (row["variant"], row["pairs"]) == ("told", 2)
    for name, figure in row["figures"].items():
        each = [
            runs[("told", r)]["summary"][name] - runs[("unchanged", r)]["summary"][name]
            for r in (0, 1)
        ]
        assert figure["mean"] == pytest.approx(sum(each) / 2)
    # Told of the party in a conversation at the fork point, more agents know of it.
    assert row["figures"]["aware_final"]["mean"] > 0
    assert "Paired differences from unchanged" in (out / "summary.md").read_text()


def test_a_branch_study_refuses_a_branch_it_cannot_make_before_running_one(
    tmp_path: Path,
) -> None:
    sets = [
        *small("town", tmp_path),
        'sweep.fork={at: "07:20", branches: {bigger: {set: {agents.count: 2}}}}',
    ]
    with pytest.raises(ForkError, match="cannot change mid-run"):
        run_sweep(SCENARIOS / "town.yaml", sets, progress=False)
    assert not list(tmp_path.rglob("run.json"))  # not even the parent ran
