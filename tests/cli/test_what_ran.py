"""Every page says what ran: a run whose mind calls no model is labelled so in run.json,
`inspect`, the report and the viewer (not with the model its scenario names); a mixed run
names each mind's model; `models check` on a dead address is one error line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.llm.fault_server import closed_port_url
from simulacra.runlog import model_label

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
runner = CliRunner()
NONE = "none: the logit mind calls no model"


def _commute(root: Path, mind: str) -> Path:
    overrides = [
        f"agents.mind={mind}",
        "agents.mix={student: 2, factory_worker: 1}",
        "clock.ticks=1",
        "memory.embedder=hashing",
        f"output.root={root / mind}",
    ]
    sets = [a for o in overrides for a in ("--set", o)]
    result = runner.invoke(
        app, ["run", str(SCENARIOS / "commute.yaml"), "--model", "scripted", *sets]
    )
    assert result.exit_code == 0, result.output
    (run,) = (root / mind).iterdir()
    return run


def _shown(run: Path) -> str:
    inspected = runner.invoke(app, ["inspect", str(run)])
    assert inspected.exit_code == 0, inspected.output
    rows = [
        [cell.strip() for cell in line.split("│")[1:-1]] for line in inspected.output.splitlines()
    ]
    (label,) = [row[1] for row in rows if row and row[0] == "model"]
    return label


def test_a_baseline_run_is_labelled_as_calling_no_model_everywhere(tmp_path: Path) -> None:
    run = _commute(tmp_path, "logit")
    info = json.loads((run / "run.json").read_text())
    assert info["minds"] == {"logit": None}
    assert info["model"] == "scripted"  # the spec its scenario names stays, for sweeps
    assert '"llm.call"' not in (run / "events.jsonl").read_text()
    assert _shown(run) == NONE
    report = (run / "report.html").read_text()
    assert f"<th>model</th><td>{NONE}</td>" in report
    assert "scripted: canned answers" not in report  # no model answered anything
    assert f'"model":"{NONE}"' in (run / "viewer.html").read_text()


def test_a_run_whose_mind_calls_a_model_is_labelled_with_it(tmp_path: Path) -> None:
    run = _commute(tmp_path, "commuter")
    assert json.loads((run / "run.json").read_text())["minds"] == {"commuter": "scripted"}
    assert _shown(run) == "scripted"
    assert "<th>model</th><td>scripted <span" in (run / "report.html").read_text()


def test_a_mixed_run_names_each_mind_s_model_and_an_old_run_its_spec() -> None:
    mixed = {"model": "embedded", "minds": {"logit": None, "commuter": "embedded"}}
    assert model_label(mixed) == "commuter: embedded; logit: no model"
    assert model_label({"model": "embedded"}) == "embedded"  # run.json without minds


def test_models_check_on_a_dead_address_is_one_error_line() -> None:
    url = closed_port_url()
    spec = f"openai:{url}?model=fake"
    result = runner.invoke(app, ["models", "check", spec, "--embedder", "hashing"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: the model {spec} at "), lines
    assert "did not answer (3 attempts; last: " in lines[0]
    assert "check that its server is up at that address" in lines[0]
