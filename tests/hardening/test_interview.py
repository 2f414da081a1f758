"""`simulacra interview`: an empty question is refused, a run without memories is an error
that creates nothing in the run, and `--model SPEC` answers when the run's server is gone."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.experiments import load_scenario, run
from simulacra.llm.fault_server import closed_port_url
from simulacra.runlog import RunDir

from .conftest import ELFAROL, SCENARIOS, small_elfarol

runner = CliRunner()


def _files(run_dir: RunDir) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in run_dir.path.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def town(tmp_path_factory: pytest.TempPathFactory) -> RunDir:
    """A short town run whose configuration names a server that is gone."""
    root = tmp_path_factory.mktemp("town")
    overrides = [
        "model.spec=scripted",
        "memory.embedder=hashing",
        "agents.count=2",
        "clock.duration=30m",
        "interviews=null",
        "world.attendance=null",
        "interventions=[]",
        f"output.root={root}",
        "output.report=false",
    ]
    done = run(load_scenario(SCENARIOS / "town.yaml", overrides), progress=False)
    config = done.config()
    config["model"]["spec"] = f"openai:{closed_port_url()}?model=gone"
    done.config_path.write_text(yaml.safe_dump(config, sort_keys=False))
    return done


@pytest.mark.parametrize("question", ["", "   "])
def test_an_empty_question_is_refused(town: RunDir, question: str) -> None:
    result = runner.invoke(app, ["interview", str(town.path), "marta_okafor", question])
    assert result.exit_code == 2
    assert result.output.startswith("error: the question is empty")


def test_a_run_without_memories_is_an_error_and_nothing_is_created(tmp_path: Path) -> None:
    done = run(load_scenario(ELFAROL, small_elfarol(tmp_path)), progress=False)
    before = _files(done)
    result = runner.invoke(app, ["interview", str(done.path), "3", "Will you go?"])
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert (
        "cannot be interviewed: its agents keep no memory stream (memory.mode: bounded); " in said
    )
    assert "run the scenario with --set memory.mode=stream to interview them" in said
    assert _files(done) == before


def test_the_runs_model_gone_is_said_and_another_model_answers(town: RunDir) -> None:
    before = _files(town)
    gone = runner.invoke(app, ["interview", str(town.path), "marta_okafor", "How was your day?"])
    assert gone.exit_code == 2 and gone.output.startswith("error: the model openai:gone at ")
    assert "did not answer" in gone.output and "--model SPEC" in gone.output

    answered = runner.invoke(
        app,
        ["interview", str(town.path), "marta_okafor", "How was your day?", "--model", "scripted"],
    )
    assert answered.exit_code == 0, answered.output
    assert answered.output.startswith("marta_okafor: ")
    assert "memories used: marta_okafor-" in answered.output
    assert _files(town) == before  # no cache, no memory written in the run


def test_a_bad_model_spec_is_named(town: RunDir) -> None:
    result = runner.invoke(
        app, ["interview", str(town.path), "marta_okafor", "Hello?", "--model", "gpt-nowhere"]
    )
    assert result.exit_code == 2 and "unknown model spec 'gpt-nowhere'" in result.output
