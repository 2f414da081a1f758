"""`simulacra estimate` against the runs it predicts: on the scripted model, and on a served
model (our misbehaving server on 127.0.0.1, answering every call) whose own token counts the
model pilot has to learn."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.engine import Progress
from simulacra.engine.progress import spent_line
from simulacra.experiments import load_scenario, run
from simulacra.experiments.estimate import Estimate, estimate
from simulacra.experiments.estimate_pilot import PilotRefused
from simulacra.llm.budget import Price
from simulacra.llm.fault_server import FaultServer
from simulacra.runlog import read_events

ROOT = Path(__file__).resolve().parents[2]
ELFAROL = ROOT / "scenarios" / "elfarol.yaml"
TOWN = ROOT / "scenarios" / "town.yaml"


def _small(root: Path, *extra: str) -> list[str]:
    return [
        "model.spec=scripted",
        "agents.count=6",
        "clock.ticks=8",
        f"output.root={root}",
        "output.report=false",
        *extra,
    ]


def _actual(sets: list[str]) -> tuple[int, int]:
    run_dir = run(load_scenario(ELFAROL, sets), progress=False)
    calls = list(read_events(run_dir.path / "events.jsonl", {"llm.call"}))
    tokens = sum(c.data["prompt_tokens"] + c.data["completion_tokens"] for c in calls)
    return len(calls), tokens


def _close(found: Estimate, calls: int, tokens: int) -> None:
    assert found.calls.value == pytest.approx(calls, rel=0.15) and found.calls.covers(calls)
    assert found.tokens.value == pytest.approx(tokens, rel=0.15) and found.tokens.covers(tokens)


def test_a_scripted_estimate_extrapolates_a_pilot_of_the_first_ticks(tmp_path: Path) -> None:
    sets = _small(tmp_path / "runs")
    found = estimate(load_scenario(ELFAROL, sets), work=tmp_path / "pilots")
    assert found.pilot_ticks == 3 and found.ticks == 8 and found.model_pilot_ticks == 0
    # Every agent decides once a week: the calls are known exactly, the tokens are not.
    assert (found.calls.low, found.calls.value, found.calls.high) == (48, 48, 48)
    assert found.tokens.low < found.tokens.value < found.tokens.high
    _close(found, *_actual(sets))


def test_a_pilot_of_the_whole_run_leaves_no_interval(tmp_path: Path) -> None:
    sets = _small(tmp_path / "runs")
    found = estimate(load_scenario(ELFAROL, sets), pilot_ticks=8, work=tmp_path / "pilots")
    calls, tokens = _actual(sets)
    assert found.calls.value == found.calls.low == found.calls.high == calls
    assert found.tokens.value == found.tokens.low == found.tokens.high == tokens


def test_a_served_models_own_token_counts_are_learnt_from_its_pilot(tmp_path: Path) -> None:
    with FaultServer("ok", content='{"reason": "quiet week", "choice": "go"}') as server:
        sets = _small(
            tmp_path / "runs",
            f"model.spec=openai:{server.url}?model=fake",
            "model.max_fallback_rate=1",
        )
        found = estimate(load_scenario(ELFAROL, sets), work=tmp_path / "pilots")
        calls, tokens = _actual(sets)
    assert found.model_pilot_ticks == 2 and found.model.startswith("openai:")
    scripted = estimate(load_scenario(ELFAROL, _small(tmp_path / "s")), work=tmp_path / "p2")
    assert abs(scripted.tokens.value - tokens) > 0.15 * tokens  # the server counts its own way
    _close(found, calls, tokens)


def test_the_day_that_opens_a_town_run_is_no_sample_of_the_rest(tmp_path: Path) -> None:
    # A day's first tick holds every agent's daily plan; a pilot of the first six hours must
    # not multiply it by the day. Two agents, a morning, scripted.
    sets = [
        "model.spec=scripted",
        "agents.count=2",
        "memory.embedder=hashing",
        "clock.duration=6h",
        f"output.root={tmp_path / 'runs'}",
        "output.report=false",
        "interviews=",
        "interventions=[]",
    ]
    scenario = load_scenario(TOWN, sets)
    found = estimate(scenario, work=tmp_path / "pilots")
    run_dir = run(scenario, progress=False)
    calls = sum(1 for _ in read_events(run_dir.path / "events.jsonl", {"llm.call"}))
    assert found.pilot_ticks == 18 and found.calls.covers(calls)
    # Multiplying the first tick's daily plans by the day would overshoot many times over;
    # measured -15%: the later morning holds replans on news that the first three hours lack.
    assert found.calls.value == pytest.approx(calls, rel=0.2)


def test_the_command_prints_a_table_or_json_with_the_cost_at_a_price(tmp_path: Path) -> None:
    sets = _small(tmp_path / "runs", "model.price.input=1", "model.price.output=2")
    args = ["estimate", str(ELFAROL), *[a for s in sets for a in ("--set", s)]]
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    expected = (found["prompt_tokens"]["value"] + 2 * found["completion_tokens"]["value"]) / 1e6
    assert found["dollars"]["value"] == pytest.approx(expected)
    table = CliRunner().invoke(app, args)
    assert table.exit_code == 0 and "model calls" in table.output and "$" in table.output
    assert not (tmp_path / "runs").exists()  # the pilots ran in a scratch folder


def test_the_progress_line_projects_the_spend_to_the_last_tick() -> None:
    p = Progress(2, 8, datetime(2024, 1, 1), 10, 3000, 0, 2000, 1000)
    line = spent_line(p, Price(input=1.0, cached_input=0.5, output=2.0))
    # 1000 fresh + 1000 cached prompt tokens and 1000 completion tokens: $0.0035 so far.
    assert line == "calls 10 ~40  tokens 3.0k ~12.0k  $0.004 ~$0.014"


@pytest.mark.parametrize("rate", ["0.5", "1"])
def test_a_model_that_answers_nothing_gets_no_estimate(tmp_path: Path, rate: str) -> None:
    # A dead endpoint: every call of the model pilot falls back. Its zero tokens must not be
    # printed as the run's cost, whatever fallback rate the scenario tolerates.
    with FaultServer("error") as server:
        sets = _small(
            tmp_path / "runs",
            f"model.spec=openai:{server.url}?model=fake",
            f"model.max_fallback_rate={rate}",
            "model.attempts=1",
        )
        with pytest.raises(PilotRefused, match="answered by the declared fallback"):
            estimate(load_scenario(ELFAROL, sets), work=tmp_path / "pilots")
    result = CliRunner().invoke(
        app, ["estimate", str(ELFAROL), "--model", "openai:http://127.0.0.1:9/v1?model=x"]
    )
    assert result.exit_code != 0 and "no estimate" in result.output and "│" not in result.output


def test_an_episode_that_may_end_early_is_estimated_from_its_progress(tmp_path: Path) -> None:
    # The embodied agent stops at its target after 6 of its 10 decisions. Its pilot of 5
    # walked it to the target, one decision (the stop) is left: the estimate follows that
    # progress, and its interval runs from the pilot's 5 to all 10.
    sets = ["model.spec=scripted", f"output.root={tmp_path}", "output.report=false"]
    scenario = load_scenario(ROOT / "scenarios" / "embodied.yaml", sets)
    found = estimate(scenario, work=tmp_path / "pilots")
    calls = list(read_events(run(scenario, progress=False).events_path, {"llm.call"}))
    assert found.by_progress and not found.at_most
    assert (found.calls.low, found.calls.value, found.calls.high) == (5, 6, 10)
    assert len(calls) == 6
    tokens = sum(c.data["prompt_tokens"] + c.data["completion_tokens"] for c in calls)
    _close(found, len(calls), tokens)
    # A world whose agents all go on to the last tick is no bound.
    elfarol = estimate(load_scenario(ELFAROL, _small(tmp_path / "e")), work=tmp_path / "p")
    assert not elfarol.at_most and not elfarol.by_progress
