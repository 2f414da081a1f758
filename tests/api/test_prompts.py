"""Every prompt a run sends is kept in its folder, compactly, and read back from the Python API
and `simulacra inspect RUN --prompt SEQ`; a scenario may keep none."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulacra import api
from simulacra.cli import app
from simulacra.experiments import load_scenario, run

COMMUTE = Path(__file__).parents[2] / "scenarios" / "commute.yaml"
SMALL = [
    "model.spec=scripted",
    "memory.embedder=hashing",
    "agents.mix={student: 2, administrative_worker: 2, elderly_resident: 2, factory_worker: 2}",
    "clock.ticks=6",
    "world.city.taxi_strikes=[]",
    "output.report=false",
]


def small_run(root: Path, *more: str) -> api.Run:
    done = run(load_scenario(COMMUTE, [*SMALL, f"output.root={root}", *more]), progress=False)
    return api.open_run(done.path)


def test_every_call_names_its_prompt_and_the_api_gives_it_back(tmp_path: Path) -> None:
    found = small_run(tmp_path)
    calls = found.calls(prompts=True)
    # Full, per agent: 2 weekly plans, 6 daily re-plans, 6 reflections (Tuesday to Friday,
    # Friday's own, and day 6's as the run ends), 2 lessons.
    assert len(calls) == 8 * 16
    assert calls["prompt_ref"].notna().all()
    for purpose, says in (
        ("commute.weekly", "Plan Monday to Friday"),
        ("commute.daily", "Planned for today: "),
        ("commute.reflect", "What happened: "),
        ("commute.abstract", "State the lesson of this week"),
    ):
        prompt = calls[calls["purpose"] == purpose]["prompt"].iloc[0]
        assert [m["role"] for m in prompt] == ["system", "user"]
        assert says in prompt[1]["text"]
    # The reflection of day 3 is shown to every later prompt of its week: kept once.
    dailies = calls[calls["purpose"] == "commute.daily"]
    daily = dailies[[("Today is Friday." in p[1]["text"]) for p in dailies["prompt"]]].iloc[0]
    assert "Reflection: Day 3: the " in daily["prompt"][1]["text"]
    assert found.prompt(int(daily["seq"])) == daily["prompt"]
    # Compact: the system message is kept once for all 128 calls, each commuter's identity
    # once for all its own, and the whole is smaller than the prompts laid end to end, hashes
    # and all (a quarter smaller here, where most lines are a day's own).
    log = (found.path / "prompts.jsonl").read_text()
    assert log.count(calls["prompt"].iloc[0][0]["text"]) == 1
    people = {p[1]["text"].splitlines()[0] for p in calls["prompt"]}
    assert log.count('"t":"I am ') == len(people) == 8
    sent = sum(len(m["text"]) for p in calls["prompt"] for m in p)
    assert len(log) < 0.75 * sent, (len(log), sent)


def test_inspect_prints_a_calls_prompt_and_names_an_event_that_is_none(tmp_path: Path) -> None:
    found = small_run(tmp_path)
    calls = found.calls()
    seq = int(calls[calls["purpose"] == "commute.reflect"]["seq"].iloc[0])
    shown = CliRunner().invoke(app, ["inspect", str(found.path), "--prompt", str(seq)])
    assert shown.exit_code == 0, shown.output
    assert "[system]" in shown.output and "What happened: " in shown.output
    wrong = CliRunner().invoke(app, ["inspect", str(found.path), "--prompt", "0"])
    assert wrong.exit_code != 0 and "event 0 is no model call" in wrong.output


def test_a_scenario_may_keep_no_prompts(tmp_path: Path) -> None:
    found = small_run(tmp_path, "output.prompts=false")
    assert not (found.path / "prompts.jsonl").exists()
    calls = found.calls(prompts=True)
    assert calls["prompt_ref"].isna().all() and calls["prompt"].isna().all()
    with pytest.raises(ValueError, match="prompt was not kept"):
        found.prompt(int(calls["seq"].iloc[0]))
