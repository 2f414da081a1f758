"""The `simulacra` command, driven as a user would, with the scripted model: every command on
every world."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from simulacra.cli import app

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
runner = CliRunner()

# Each shipped scenario, made small: a few ticks and agents, the hashing embedder.
SMALL = {
    "town": [
        "memory.embedder=hashing",
        "clock.duration=3h",
        "agents.count=3",
        'interviews.times=["09:00"]',
        "world.attendance=null",
    ],
    "hazard": [
        "clock.ticks=4",
        "world.fires.1.start_step=4",
        "memory.mode=stream",
        "memory.embedder=hashing",
    ],
    "commute": [
        "memory.embedder=hashing",
        "clock.ticks=6",
        "world.city.taxi_strikes.0.days=[4, 5]",
        "agents.mix={student: 2, factory_worker: 2}",
    ],
}


def _remembering(run: Path) -> str:
    """The first agent that wrote a memory."""
    for line in (run / "events.jsonl").open():
        event = json.loads(line)
        if event["kind"] == "memory.add":
            return str(event["agent"])
    raise AssertionError(f"{run}: nobody remembered anything")


def _run_dir(output: str) -> Path:
    line = next(x for x in output.splitlines() if x.startswith("run finished:"))
    return Path(line.split(":", 1)[1].strip())


def _sets(overrides: list[str]) -> list[str]:
    return [arg for override in overrides for arg in ("--set", override)]


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_models_check_prints_one_structured_answer_with_its_cost():
    result = runner.invoke(app, ["models", "check", "scripted", "--embedder", "hashing"])
    assert result.exit_code == 0, result.output
    assert "model check: scripted" in result.output
    assert "tokens" in result.output
    assert "paraphrase cosine" in result.output


def test_an_unknown_model_spec_is_a_clear_error():
    result = runner.invoke(app, ["models", "check", "gpt-nowhere", "--embedder", "hashing"])
    assert result.exit_code == 2
    assert "unknown model spec" in result.output


def test_a_missing_scenario_file_is_named(in_tmp):
    result = runner.invoke(app, ["run", "nowhere.yaml"])
    assert result.exit_code == 2
    assert "file not found" in result.output


def test_a_malformed_scenario_names_the_field(in_tmp):
    raw = yaml.safe_load((SCENARIOS / "hazard.yaml").read_text())
    raw["world"]["fires"][0]["intensity"] = 3
    bad = in_tmp / "bad.yaml"
    bad.write_text(yaml.safe_dump(raw))
    result = runner.invoke(app, ["run", str(bad), "--model", "scripted"])
    assert result.exit_code == 2
    assert "scenario.world.fires[0].intensity" in result.output
    assert not (in_tmp / "runs").exists()


def test_a_scenario_without_a_known_world_says_which_are(in_tmp):
    odd = in_tmp / "odd.yaml"
    odd.write_text("name: odd\nclock: {ticks: 1}\nworld: {kind: ocean}\n")
    result = runner.invoke(app, ["run", str(odd)])
    assert result.exit_code == 2
    assert "town, grid, commute" in result.output


def test_run_needs_a_scenario_or_a_run_to_resume():
    result = runner.invoke(app, ["run"])
    assert result.exit_code == 2
    assert "--resume" in result.output


@pytest.mark.parametrize("name", ["town", "hazard", "commute"])
def test_a_scenario_is_checked_without_running_it(name, in_tmp):
    result = runner.invoke(app, ["scenario", "check", str(SCENARIOS / f"{name}.yaml")])
    assert result.exit_code == 0, result.output
    assert "valid:" in result.output
    bad = runner.invoke(
        app, ["scenario", "check", str(SCENARIOS / f"{name}.yaml"), "--set", "clock.tik=1"]
    )
    assert bad.exit_code == 2 and "scenario.clock.tik: unknown field" in bad.output
    assert not (in_tmp / "runs").exists()


def test_the_scenario_schema_is_json_schema_for_every_world():
    result = runner.invoke(app, ["scenario", "schema"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    kinds = {
        definition["properties"]["kind"].get("const")
        for definition in schema["$defs"].values()
        if "kind" in definition.get("properties", {})
        and definition["properties"]["kind"].get("const")
    }
    assert {"town", "grid", "commute"} <= kinds
    assert {"clock", "world", "agents", "model", "sweep"} <= set(schema["properties"])


@pytest.mark.parametrize("name", ["town", "hazard", "commute"])
def test_every_command_works_on_every_world(name, in_tmp):
    result = runner.invoke(
        app,
        [
            "run",
            str(SCENARIOS / f"{name}.yaml"),
            *("--model", "scripted", "--seed", "3"),
            *_sets(SMALL[name]),
        ],
    )
    assert result.exit_code == 0, result.output
    run = _run_dir(result.output)
    assert yaml.safe_load((run / "config.yaml").read_text())["seed"] == 3
    assert (run / "report.html").exists() and (run / "viewer.html").exists()

    inspected = runner.invoke(app, ["inspect", str(run)])
    assert inspected.exit_code == 0, inspected.output
    assert "completed" in inspected.output and "llm.call" in inspected.output

    drawn = runner.invoke(app, ["frames", str(run), "--video"])
    assert drawn.exit_code == 0, drawn.output
    worlds = sum(1 for line in (run / "events.jsonl").open() if '"kind":"world"' in line)
    assert f"{worlds} frames" in drawn.output
    assert list(run.glob("frames.*"))

    agent = _remembering(run)
    answer = runner.invoke(app, ["interview", str(run), agent, "What do you remember?"])
    assert answer.exit_code == 0, answer.output
    assert f"{agent}:" in answer.output
    assert f"memories used: {agent}-" in answer.output
    unknown = runner.invoke(app, ["interview", str(run), "nobody", "Hello?"])
    assert unknown.exit_code == 2 and "no agent 'nobody'" in unknown.output

    again = runner.invoke(app, ["run", "--resume", str(run)])
    assert again.exit_code == 2
    assert "already completed" in again.output


def test_a_grid_agent_with_bounded_memory_says_it_cannot_be_interviewed(in_tmp):
    result = runner.invoke(
        app,
        [
            "run",
            str(SCENARIOS / "hazard.yaml"),
            *("--model", "scripted", "--set", "clock.ticks=1", "--set", "world.fires=[]"),
        ],
    )
    assert result.exit_code == 0, result.output
    answer = runner.invoke(app, ["interview", str(_run_dir(result.output)), "0", "Hello?"])
    assert answer.exit_code == 2
    said = " ".join(answer.output.split())
    assert "cannot be interviewed: its agents keep no memory stream (memory.mode: bounded)" in said
    assert "--set memory.mode=stream" in said


@pytest.mark.parametrize("name", ["town", "hazard", "commute"])
def test_every_world_sweeps(name, in_tmp):
    # One worker: a worker process costs an import of the package, and what runs in
    # parallel is tested in tests/budget/test_sweep_budget.py and tests/hardening.
    sweep = ["sweep.replicates=2", "sweep.workers=1", "output.report=false"]
    if name == "hazard":
        sweep.append("sweep.vary={memory.recall: [0, 5]}")
    elif name == "town":
        sweep.append("sweep.vary={ablation: [full, no_reflection]}")
    result = runner.invoke(
        app,
        [
            "sweep",
            str(SCENARIOS / f"{name}.yaml"),
            *("--model", "scripted"),
            *_sets(SMALL[name] + sweep),
        ],
    )
    assert result.exit_code == 0, result.output
    out = Path(result.output.split("sweep finished:", 1)[1].split()[0])
    rows = (out / "results.csv").read_text().splitlines()
    # commute: A1, B1, Full, logit, available100 (no strike), available40
    assert len(rows) == 1 + 2 * (6 if name == "commute" else 2)
    assert (out / "report.html").exists() and (out / "summary.md").exists()


def test_paths_hints_and_tables_stay_whole_lines_through_a_pipe(tmp_path):
    deep = tmp_path / ("a-folder-with-a-rather-long-name-" * 3) / "runs"
    command = [sys.executable, "-m", "simulacra"]
    small = ["--set", "agents.count=4", "--set", "clock.ticks=2", "--set", f"output.root={deep}"]
    done = subprocess.run(
        [*command, "run", str(SCENARIOS / "elfarol.yaml"), "--model", "scripted", *small],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    (finished,) = [line for line in done.stdout.splitlines() if line.startswith("run finished:")]
    run = Path(finished.removeprefix("run finished: "))
    assert run.is_dir() and len(str(run)) > 120  # longer than a terminal's 80 columns
    assert f"  inspect it:    simulacra inspect {run}" in done.stdout.splitlines()
    inspected = subprocess.run([*command, "inspect", str(run)], capture_output=True, text=True)
    rows = [line for line in inspected.stdout.splitlines() if "metrics.json" in line]
    assert rows and str(run / "metrics.json") in rows[0]  # one table row, not wrapped or cut
    assert "…" not in inspected.stdout
