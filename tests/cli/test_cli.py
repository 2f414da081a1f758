"""The `simulacra` command, driven as a user would, with the scripted model."""

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from simulacra.cli import app

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
runner = CliRunner()


def _run_dir(output: str) -> Path:
    line = next(x for x in output.splitlines() if x.startswith("run finished:"))
    return Path(line.split(":", 1)[1].strip())


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
    assert "world.fires.0.intensity" in result.output


def test_a_scenario_without_a_known_world_says_which_are(in_tmp):
    odd = in_tmp / "odd.yaml"
    odd.write_text("world: {kind: ocean}\n")
    result = runner.invoke(app, ["run", str(odd)])
    assert result.exit_code == 2
    assert "town, grid, commute" in result.output


def test_run_a_grid_scenario_then_inspect_and_draw_it(in_tmp):
    result = runner.invoke(
        app, ["run", str(SCENARIOS / "hazard.yaml"), "--model", "scripted", "--set", "steps=2"]
    )
    assert result.exit_code == 0, result.output
    run = _run_dir(result.output)
    assert (run / "report.html").exists() and (run / "viewer.html").exists()

    inspected = runner.invoke(app, ["inspect", str(run)])
    assert inspected.exit_code == 0, inspected.output
    assert "completed" in inspected.output
    assert "llm.call" in inspected.output

    drawn = runner.invoke(app, ["frames", str(run), "--video"])
    assert drawn.exit_code == 0, drawn.output
    assert "3 frames" in drawn.output
    assert list(run.glob("frames.*"))


def test_run_the_town_with_overrides_then_interview_an_agent(in_tmp):
    result = runner.invoke(
        app,
        [
            "run",
            str(SCENARIOS / "town.yaml"),
            "--model",
            "scripted",
            "--seed",
            "3",
            "--set",
            "embedder.kind=hashing",
            "--set",
            "schedule.duration=3h",
            "--set",
            "agents.count=3",
            "--set",
            'interviews.times=["09:00"]',
        ],
    )
    assert result.exit_code == 0, result.output
    run = _run_dir(result.output)
    assert yaml.safe_load((run / "config.yaml").read_text())["seed"] == 3

    answer = runner.invoke(
        app, ["interview", str(run), "marta_okafor", "What are you planning today?"]
    )
    assert answer.exit_code == 0, answer.output
    assert "marta_okafor:" in answer.output
    assert "memories used: marta_okafor-" in answer.output

    unknown = runner.invoke(app, ["interview", str(run), "nobody", "Hello?"])
    assert unknown.exit_code == 2

    again = runner.invoke(app, ["run", "--resume", str(run)])
    assert again.exit_code == 2
    assert "already completed" in again.output


def test_run_needs_a_scenario_or_a_run_to_resume():
    result = runner.invoke(app, ["run"])
    assert result.exit_code == 2
    assert "--resume" in result.output
