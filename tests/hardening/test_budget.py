"""A run's budget (model.budget) stops it at the end of a tick with a checkpoint, marks it
`stopped: budget` with the limit and what it spent, exits 3, and resumes with a raised
budget into the log an unlimited run writes. On the scripted model (its token counts are its
own, the same on every machine) and on our misbehaving server's reported usage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.llm.budget import Budget, Price, Spent, reached
from simulacra.llm.fault_server import FaultServer
from simulacra.runlog import RunDir, read_events
from simulacra.runlog.compare import without_wall

from .conftest import ELFAROL, run_dirs, sets, small_elfarol

runner = CliRunner()


def _run(root: Path, *extra: str, model: str | None = None) -> tuple[int, str, RunDir]:
    args = ["run", str(ELFAROL), *sets(small_elfarol(root, *extra))]
    result = runner.invoke(app, [*args, *(["--model", model] if model else [])])
    assert "Traceback" not in result.output
    (run_dir,) = [RunDir(p) for p in run_dirs(root)]
    return result.exit_code, result.output, run_dir


def _log(run_dir: RunDir) -> list[tuple[Any, ...]]:
    """The events as a comparison sees them, without checkpoints (a budget's stop takes one
    where an unlimited run does not) and the run's end."""
    return [
        (e.kind, e.agent, e.t, without_wall(e.data))
        for e in read_events(run_dir.events_path)
        if e.kind not in ("checkpoint", "run.end")
    ]


def _calls(run_dir: RunDir) -> int:
    return sum(1 for _ in read_events(run_dir.events_path, {"llm.call"}))


def _last_step(run_dir: RunDir) -> int:
    return max(int(e.data["step"]) for e in read_events(run_dir.events_path, {"world"}))


def test_a_call_budget_stops_the_run_at_a_ticks_end_and_a_raised_one_finishes_it(
    tmp_path: Path,
) -> None:
    # Ten agents decide once a week: 10 calls a tick, so a budget of 25 calls is reached in
    # the third tick, and the run stops when that tick ends, not in the middle of it.
    code, output, run_dir = _run(tmp_path / "limited", "model.budget.calls=25")
    assert code == 3, output
    assert "stopped: budget (calls: 30 spent of 25)" in output
    assert f"simulacra run --resume {run_dir.path} --set model.budget.calls=" in output
    info = run_dir.info()
    assert info["status"] == "stopped: budget" and info["error"] == "calls: 30 spent of 25"
    assert info["spent"]["calls"] == 30 and info["budget"]["calls"] == 25
    assert _calls(run_dir) == 30 and _last_step(run_dir) == 3
    ended = list(read_events(run_dir.events_path, {"run.end"}))
    assert [e.data["status"] for e in ended] == ["stopped: budget"]

    # A resume at the same budget stops again at once; a raised one runs to the end.
    resumed = runner.invoke(app, ["run", "--resume", str(run_dir.path)])
    assert resumed.exit_code == 3 and _last_step(run_dir) == 4
    resumed = runner.invoke(
        app, ["run", "--resume", str(run_dir.path), "--set", "model.budget.calls=1000"]
    )
    assert resumed.exit_code == 0, resumed.output
    assert run_dir.info()["status"] == "completed" and run_dir.info()["spent"]["calls"] == 90

    code, _, straight = _run(tmp_path / "straight")
    assert code == 0
    assert _log(run_dir) == _log(straight)


def test_a_resume_may_change_the_budget_and_price_and_nothing_else(tmp_path: Path) -> None:
    code, _, run_dir = _run(tmp_path, "model.budget.calls=10")
    assert code == 3
    refused = runner.invoke(app, ["run", "--resume", str(run_dir.path), "--set", "agents.count=3"])
    assert refused.exit_code == 2
    assert 'error: --set "agents.count=3": settings other than model.budget' in refused.output
    assert "do not apply to --resume" in refused.output
    assert run_dir.info()["status"] == "stopped: budget"  # refused before anything changed


def test_a_dollar_budget_counts_tokens_at_the_scenarios_price(tmp_path: Path) -> None:
    price = ["model.price.input=1000", "model.price.output=4000"]
    code, output, run_dir = _run(tmp_path, *price, "model.budget.dollars=5")
    assert code == 3, output
    spent = run_dir.info()["spent"]
    calls = list(read_events(run_dir.events_path, {"llm.call"}))
    prompt = sum(c.data["prompt_tokens"] for c in calls)
    completion = sum(c.data["completion_tokens"] for c in calls)
    assert spent["tokens"] == prompt + completion
    assert spent["dollars"] == pytest.approx((prompt * 1000 + completion * 4000) / 1e6)
    assert spent["dollars"] >= 5 and _last_step(run_dir) < 9


def test_a_dollar_budget_without_a_price_is_refused_before_the_run(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["run", str(ELFAROL), *sets(small_elfarol(tmp_path, "model.budget.dollars=5"))]
    )
    assert result.exit_code == 2 and "model.price" in result.output
    assert run_dirs(tmp_path) == []


def test_a_token_budget_counts_what_a_served_model_reports(tmp_path: Path) -> None:
    with FaultServer("ok") as server:
        code, output, run_dir = _run(
            tmp_path, "model.budget.tokens=2000", model=f"openai:{server.url}?model=fake"
        )
    assert code == 3, output
    calls = list(read_events(run_dir.events_path, {"llm.call"}))
    tokens = sum(c.data["prompt_tokens"] + c.data["completion_tokens"] for c in calls)
    assert tokens >= 2000 and run_dir.info()["spent"]["tokens"] == tokens
    # The tick before the last one had not reached it: the run stopped at the first tick end.
    per_tick = tokens / _last_step(run_dir)
    assert tokens - per_tick < 2000 * 1.01


def test_a_wall_time_budget_stops_the_run_at_a_tick_boundary(tmp_path: Path) -> None:
    code, output, run_dir = _run(tmp_path, "model.budget.hours=1e-9")
    assert code == 3 and "hours:" in output
    assert _last_step(run_dir) == 1 and run_dir.info()["wall_s"] > 0


def test_no_limit_is_no_budget() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Budget()


def test_the_first_limit_reached_is_named() -> None:
    spend = Spent(calls=10, tokens=500, dollars=None, hours=0.1)
    assert reached(Budget(calls=11, tokens=9999), spend) is None
    assert reached(Budget(calls=10), spend) == "calls: 10 spent of 10"
    assert reached(Budget(tokens=400, hours=0.05), spend) == "tokens: 500 spent of 400"
    assert reached(Budget(dollars=1), spend) is None  # no price: no dollars counted


def test_a_price_charges_cached_prompt_tokens_at_their_own_rate() -> None:
    price = Price(input=2.0, cached_input=0.5, output=8.0)
    assert price.cost(1_000_000, 400_000, 500_000) == pytest.approx(1.2 + 0.2 + 4.0)
    assert Price(input=2.0, output=8.0).cost(1_000_000, 400_000, 0) == pytest.approx(2.0)
