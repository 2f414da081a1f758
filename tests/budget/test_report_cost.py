"""The report's cost section on a real scripted run: dollars per purpose, agent and simulated
hour at the run's price, the budget and what was spent, a budget's stop, and the estimate
beside the run once `simulacra estimate --run` has written it."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.report.live import LiveReplay
from simulacra.runlog import RunDir, read_events

ELFAROL = Path(__file__).resolve().parents[2] / "scenarios" / "elfarol.yaml"
PRICE = ["model.price.input=1000", "model.price.output=3000"]


def _section(run: Path) -> str:
    page = (run / "report.html").read_text(encoding="utf-8")
    start = page.index('<section id="cost">')
    text = re.sub(r"<[^>]+>", " ", page[start : page.index("</section>", start)])
    return unescape(re.sub(r"\s+", " ", text))


def _run(root: Path, *extra: str) -> tuple[int, Path]:
    sets = ["model.spec=scripted", "agents.count=4", "clock.ticks=6", f"output.root={root}"]
    args = ["run", str(ELFAROL), *[a for s in [*sets, *extra] for a in ("--set", s)]]
    result = CliRunner().invoke(app, args)
    (run,) = [p for p in root.iterdir() if p.is_dir()]
    return result.exit_code, run


def test_the_cost_section_prices_every_purpose_and_agent(tmp_path: Path) -> None:
    code, run = _run(tmp_path, *PRICE, "model.budget.calls=1000")
    assert code == 0
    calls = list(read_events(run / "events.jsonl", {"llm.call"}))
    prompt = sum(c.data["prompt_tokens"] for c in calls)
    completion = sum(c.data["completion_tokens"] for c in calls)
    dollars = (prompt * 1000 + completion * 3000) / 1e6
    text = _section(run)
    assert "Priced at $1000 per million input tokens" in text
    assert f"Budget: calls 1,000; spent: calls {len(calls)}." in text
    assert f"total {len(calls)} {prompt:,} {completion:,} {dollars:.4f}" in text
    assert "Cost per agent" in text and "Per simulated hour" in text
    assert RunDir(run).info()["spent"]["dollars"] == pytest.approx(dollars)


def test_a_stopped_run_and_its_estimate_show_beside_what_it_spent(tmp_path: Path) -> None:
    code, run = _run(tmp_path, *PRICE, "model.budget.calls=10", "output.report=true")
    assert code == 3
    resumed = CliRunner().invoke(
        app, ["run", "--resume", str(run), "--set", "model.budget.calls=1000"]
    )
    assert resumed.exit_code == 0, resumed.output
    estimated = CliRunner().invoke(app, ["estimate", "--run", str(run)])
    assert estimated.exit_code == 0, estimated.output
    found = json.loads((run / "estimate.json").read_text())
    text = _section(run)
    assert "The estimate beside the run" in text
    assert f"calls {found['calls']['value']:,.0f}" in text and " 24 " in text  # 4 x 6 calls


def test_a_run_that_stopped_says_so_in_its_report(tmp_path: Path) -> None:
    code, run = _run(tmp_path, "model.budget.calls=10")
    assert code == 3  # and its report is written, of the ticks it played
    assert "The run stopped: budget (calls: 12 spent of 10)" in _section(run)
    assert "No model.price was given" in _section(run)


def _spend_line(run: Path) -> str:
    page = (run / "viewer.html").read_text(encoding="utf-8")
    data = page.split('id="replay-data">', 1)[1].split("</script>", 1)[0]
    return str(json.loads(data)["run"]["spend"])


def test_the_viewer_shows_the_dollars_spent_at_the_runs_price(tmp_path: Path) -> None:
    code, run = _run(tmp_path / "priced", *PRICE)
    assert code == 0
    calls = list(read_events(run / "events.jsonl", {"llm.call"}))
    prompt = sum(c.data["prompt_tokens"] for c in calls)
    completion = sum(c.data["completion_tokens"] for c in calls)
    dollars = (prompt * 1000 + completion * 3000) / 1e6
    assert _spend_line(run).startswith(f"model: {len(calls)} calls, ")
    assert _spend_line(run).endswith(f"k tokens, ${dollars:.4f}")
    _, body = LiveReplay(run).current()  # what the live viewer polls
    assert json.loads(body)["run"]["spend"] == _spend_line(run)
    code, free = _run(tmp_path / "free")
    assert code == 0 and "$" not in _spend_line(free)
