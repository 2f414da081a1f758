"""`simulacra lab learn` obeys `model.budget` as a run does: it stops after the iteration
that reaches a limit, `stopped: budget` with the limit and what it spent, exits 3, and goes
on with a raised budget; on the scripted policy (its token counts are real), real SUMO and
the real sandbox."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.lab.sandbox import bwrap_path
from simulacra.runlog import read_events

pytestmark = [
    pytest.mark.sumo,
    pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap (make install-dev)"),
]


def _learn(root: Path) -> tuple[int, str]:
    args = ["lab", "learn", "--iterations", "3", "--model", "scripted", "--library"]
    result = CliRunner().invoke(app, [*args, str(root / "lib"), "--runs", str(root / "runs")])
    return result.exit_code, result.output


def _calls(run: Path) -> list[int]:
    """Prompt plus completion tokens of each model call in the run's log."""
    return [
        e.data["prompt_tokens"] + e.data["completion_tokens"]
        for e in read_events(run / "events.jsonl", {"llm.call"})
    ]


def _iterations(run: Path) -> list[int]:
    return [e.data["iteration"] for e in read_events(run / "events.jsonl", {"lab.iteration"})]


def test_a_learning_run_stops_at_its_budget_and_resumes_with_a_raised_one(tmp_path: Path) -> None:
    free = tmp_path / "free"
    code, output = _learn(free)
    assert code == 0, output
    (whole,) = (free / "runs").glob("lab-learn-*")
    per_iteration = len(_calls(whole)) // 3

    budgeted = tmp_path / "budgeted"
    limit = per_iteration + 1  # reached within the second iteration, which still finishes
    args = ["lab", "learn", "--iterations", "3", "--model", "scripted"]
    args += ["--library", str(budgeted / "lib"), "--runs", str(budgeted / "runs")]
    result = CliRunner().invoke(app, [*args, "--set", f"model.budget.calls={limit}"])
    assert result.exit_code == 3, result.output
    (run,) = (budgeted / "runs").glob("lab-learn-*")
    info = json.loads((run / "run.json").read_text())
    assert info["status"] == "stopped: budget"
    assert info["error"].startswith("calls: ") and info["budget"]["calls"] == limit
    assert _iterations(run) == [1, 2]
    assert info["spent"]["calls"] == len(_calls(run)) >= limit
    assert info["spent"]["tokens"] == sum(_calls(run))
    assert "simulacra lab learn --resume" in " ".join(result.output.split())

    again = ["lab", "learn", "--iterations", "3", "--model", "scripted"]
    again += ["--library", str(budgeted / "lib"), "--resume", str(run)]
    result = CliRunner().invoke(app, [*again, "--set", f"model.budget.calls={limit * 10}"])
    assert result.exit_code == 0, result.output
    assert json.loads((run / "run.json").read_text())["status"] == "completed"
    assert _iterations(run) == [1, 2, 3]
    assert _calls(run) == _calls(whole)  # the same calls as the run without a budget


def test_the_budget_counts_what_earlier_sessions_spent(tmp_path: Path) -> None:
    args = ["lab", "learn", "--iterations", "3", "--model", "scripted"]
    args += ["--library", str(tmp_path / "lib"), "--runs", str(tmp_path / "runs")]
    result = CliRunner().invoke(app, [*args, "--set", "model.budget.tokens=1"])
    assert result.exit_code == 3, result.output
    (run,) = (tmp_path / "runs").glob("lab-learn-*")
    spent = json.loads((run / "run.json").read_text())["spent"]["tokens"]
    # Resumed with a limit its first session already spent: it stops after one more iteration.
    again = ["lab", "learn", "--iterations", "3", "--model", "scripted"]
    again += ["--library", str(tmp_path / "lib"), "--resume", str(run)]
    result = CliRunner().invoke(app, [*again, "--set", f"model.budget.tokens={spent}"])
    assert result.exit_code == 3, result.output
    assert _iterations(run) == [1, 2]
    assert json.loads((run / "run.json").read_text())["spent"]["tokens"] == sum(_calls(run))


def test_a_lab_set_other_than_a_budget_or_price_is_refused(tmp_path: Path) -> None:
    args = ["lab", "learn", "--model", "scripted", "--library", str(tmp_path / "lib")]
    result = CliRunner().invoke(app, [*args, "--set", "model.spec=embedded"])
    assert result.exit_code == 2 and "model.budget.NAME=VALUE" in result.output
    result = CliRunner().invoke(app, [*args, "--set", "model.budget.calls=0"])
    assert result.exit_code == 2 and "model.budget.calls" in result.output
    assert not (tmp_path / "lib").exists()


def test_a_bench_stops_after_the_task_that_reaches_its_budget(tmp_path: Path) -> None:
    from simulacra.lab.tasks import load_suite

    (task,) = [t for t in load_suite("v1") if t.task.id == "grid-network"]
    shutil.copytree(task.folder, tmp_path / "suite" / "grid-network")
    args = ["lab", "bench", str(tmp_path / "suite"), "--model", "scripted"]
    args += ["--library", str(tmp_path / "lib"), "--runs", str(tmp_path / "runs")]
    args += ["--condition", "full", "--condition", "framework"]
    result = CliRunner().invoke(app, [*args, "--set", "model.budget.calls=1"])
    assert result.exit_code == 3, result.output
    (run,) = (tmp_path / "runs").glob("lab-bench-*")
    info = json.loads((run / "run.json").read_text())
    assert info["status"] == "stopped: budget" and info["error"].startswith("calls: ")
    rows = json.loads((run / "results.json").read_text())
    assert [r["condition"] for r in rows] == ["full"]  # the second task never started
    assert info["spent"]["calls"] == rows[0]["calls"] == len(_calls(run))


def test_a_served_models_own_token_counts_stop_a_bench(tmp_path: Path) -> None:
    from simulacra.lab.tasks import load_suite
    from simulacra.llm.fault_server import FaultServer

    (task,) = [t for t in load_suite("v1") if t.task.id == "grid-network"]
    shutil.copytree(task.folder, tmp_path / "suite" / "grid-network")
    with FaultServer("ok", content='{"summary": "nothing", "success": false}') as server:
        args = ["lab", "bench", str(tmp_path / "suite"), "--model"]
        args += [f"openai:{server.url}?model=fake", "--library", str(tmp_path / "lib")]
        args += ["--runs", str(tmp_path / "runs"), "--condition", "vanilla"]
        args += ["--condition", "framework", "--set", "model.budget.tokens=1"]
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 3, result.output
    (run,) = (tmp_path / "runs").glob("lab-bench-*")
    info = json.loads((run / "run.json").read_text())
    assert info["status"] == "stopped: budget" and info["error"].startswith("tokens: ")
    assert len(json.loads((run / "results.json").read_text())) == 1
    assert info["spent"]["tokens"] == sum(_calls(run)) > 0  # the server's own counts


def test_a_price_table_prices_a_benchs_tasks_and_its_dollar_budget(tmp_path: Path) -> None:
    from simulacra.lab.tasks import load_suite

    (task,) = [t for t in load_suite("v1") if t.task.id == "grid-network"]
    shutil.copytree(task.folder, tmp_path / "suite" / "grid-network")
    (tmp_path / "prices.yaml").write_text("scripted: {input: 3, output: 5}\n")
    args = ["lab", "bench", str(tmp_path / "suite"), "--model", "scripted"]
    args += ["--library", str(tmp_path / "lib"), "--runs", str(tmp_path / "runs")]
    args += ["--condition", "full", "--condition", "framework"]
    args += ["--prices", str(tmp_path / "prices.yaml"), "--set", "model.budget.dollars=0.000001"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 3, result.output
    (run,) = (tmp_path / "runs").glob("lab-bench-*")
    info = json.loads((run / "run.json").read_text())
    assert info["status"] == "stopped: budget" and info["error"].startswith("dollars: ")
    (row,) = json.loads((run / "results.json").read_text())
    dollars = (3 * row["prompt_tokens"] + 5 * row["completion_tokens"]) / 1e6
    assert row["cost_usd"] == pytest.approx(dollars, abs=1e-6) and dollars > 0.000001
    assert info["spent"]["dollars"] == pytest.approx(dollars, abs=1e-6)


def _solve_unsolvable(root: Path, *extra: str) -> tuple[int, str]:
    args = ["lab", "solve", "Draw a bicycle.", "--output", "outputs/bicycle.svg"]
    args += ["--model", "scripted", "--library", str(root / "lib"), "--runs", str(root / "runs")]
    args += ["--outer-attempts", "3", "--inner-tries", "1", *extra]
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.output


def test_a_solve_stops_between_outer_attempts_at_its_budget(tmp_path: Path) -> None:
    from simulacra.lab.library import SEED, Library

    code, output = _solve_unsolvable(tmp_path / "free", "--set", "model.budget.calls=10000")
    assert code == 0 and "rejected after 3 attempt(s)" in output, output

    library = Library.create(tmp_path / "lib", SEED)
    digest = library.digest()
    code, output = _solve_unsolvable(tmp_path, "--set", "model.budget.calls=1", "--mode", "normal")
    assert code == 3, output
    assert "rejected after 1 attempt(s)" in output and "memory changed: nothing" in output
    (run,) = (tmp_path / "runs").glob("lab-solve-*")
    info = json.loads((run / "run.json").read_text())
    assert info["status"] == "stopped: budget" and info["error"].startswith("calls: ")
    assert info["spent"]["calls"] == len(_calls(run)) >= 1
    assert library.digest() == digest  # a stopped solve learns nothing
    assert not list((library.root / "episodes").glob("*-user-task"))
