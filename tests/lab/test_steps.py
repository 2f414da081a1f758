"""The action loop: one step at a time, each step's output seen before the next; the critic
sees the outputs' contents; a served model's timeout is a setting; `lab solve` takes files."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.lab.agent import Episode
from simulacra.lab.config import LabConfig, model_limits
from simulacra.lab.loop import agent_for, solve_frozen
from simulacra.lab.prompts import CriticVerdict, Decision, Step, StepKind
from simulacra.lab.record import HarnessRecord, Record
from simulacra.lab.sandbox import bwrap_path
from simulacra.lab.scripted import script_lab
from simulacra.lab.tasks import SUITES, Category, Task
from simulacra.llm import Request, load_model
from simulacra.runlog import RunDir

pytestmark = [
    pytest.mark.sumo,
    pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap (make install-dev)"),
]
FILES = SUITES / "v1" / "_files"
TASK = Task(
    id="steps",
    tier=1,
    category=Category.simulation,
    text="Simulate the given network and routes until the end time the notes give, writing "
    "trip information to outputs/tripinfo.xml.",
    files=["grid.net.xml", "routes.rou.xml", "notes.txt"],
    required_outputs=["outputs/tripinfo.xml"],
)
_BROKEN = 'import subprocess\nsubprocess.run(["sumo", "--end", END], check=True)\n'
_FIXED = """\
import subprocess
import xml.etree.ElementTree as ET
subprocess.run(["sumo", "-n", "outputs/grid.net.xml", "-r", "outputs/routes.rou.xml",
                "--end", "{end}", "--tripinfo-output", "outputs/tripinfo.xml",
                "--no-step-log", "--duration-log.disable"], check=True)
trips = len(list(ET.parse("outputs/tripinfo.xml").getroot().iter("tripinfo")))
print(f"claim trips={{trips}} artifact=outputs/tripinfo.xml measure=xml_count element=tripinfo")
"""


def _capable(request: Request) -> Step:
    """A stand-in for a model that works turn by turn: it reads a given file, writes a script
    with a mistake, reads the error, fixes it, runs it and says done, each step decided from
    what the prompt shows of the steps before."""
    text = request.messages[-1].text
    steps = text.split("## Steps so far\n", 1)[1].split("\n## ", 1)[0]
    if steps.strip() == "none":
        return Step(action=StepKind.run, command="cat outputs/notes.txt")
    end = re.search(r"^end=(\d+)$", steps, re.M)
    last = steps.rsplit("### step ", 1)[1]
    if end is None:
        return Step(action=StepKind.done, note="the notes give no end time")
    if "scripts/run.py" not in steps:
        return Step(action=StepKind.write, path="scripts/run.py", content=_BROKEN)
    if ": write" in last.partition("\n")[0]:
        return Step(action=StepKind.run, command="python scripts/run.py")
    if "NameError" in last:
        fixed = _FIXED.format(end=end.group(1))
        return Step(action=StepKind.write, path="scripts/run.py", content=fixed)
    return Step(action=StepKind.done, note="tripinfo written")


def _rerun_first(request: Request) -> CriticVerdict:
    """A critic that asks for a rerun before it decides, and decides from what it showed."""
    text = request.messages[-1].text
    if "## Rerun" not in text:
        return CriticVerdict(decision=Decision.revise, rerun=True)
    same = "every delivered file came out the same" in text
    return CriticVerdict(decision=Decision.accept if same else Decision.revise)


def _solve(
    tmp_path: Path,
    act: Callable[[Request], Step],
    config: LabConfig,
    seen: list[Request],
    critic: Callable[[Request], CriticVerdict] | None = None,
) -> Episode:
    (tmp_path / "notes.txt").write_text("The survey ran one morning.\nend=1200\n")
    files = [FILES / "grid.net.xml", FILES / "routes.rou.xml", tmp_path / "notes.txt"]
    model = script_lab(load_model("scripted", on_call=lambda r, _: seen.append(r)))
    model.on("lab.act", act)
    if critic is not None:
        model.on("lab.critic", critic)
    run = RunDir.create(tmp_path / "runs", "lab-test", seed=0, model="scripted", config={})
    with run.writer() as writer:
        agent = agent_for(None, model, config, writer, "framework")
        return asyncio.run(solve_frozen(agent, TASK, run.path, files=files))


def _prompts(seen: list[Request], purpose: str) -> list[str]:
    return [r.messages[-1].text for r in seen if r.purpose == purpose]


def test_the_agent_sees_each_step_s_output_and_fixes_what_failed(tmp_path: Path) -> None:
    seen: list[Request] = []
    episode = _solve(tmp_path, _capable, LabConfig(outer_attempts=1), seen, _rerun_first)
    acts = _prompts(seen, "lab.act")
    # It read the given file before writing code, and saw the traceback of its first run.
    assert "end=1200" in acts[1] and "NameError" in acts[3]
    assert len(acts) == 6 and episode.accepted, episode.report
    record = Record(episode.final)
    commands = record.commands()
    runs = ["cat outputs/notes.txt", "python scripts/run.py", "python scripts/run.py"]
    assert [c.command for c in commands] == runs
    assert [c.inner for c in commands] == [1, 1, 2]  # the failure ended the first inner try
    notes = [e.what for e in record.entries() if isinstance(e, HarnessRecord)]
    assert notes.count("step 2: the file scripts/run.py") == 1
    assert "step 4: the file scripts/run.py" in notes
    # The critic saw contents: SUMO's output parsed, and the claim beside its artifact's value;
    # it asked for a rerun, and decided on what the replay showed.
    first, critic = _prompts(seen, "lab.critic")
    assert "## Rerun" not in first and "every delivered file came out the same" in critic
    assert "## Output contents" in critic and "written by sumo" in critic
    assert re.search(r"tripinfo\.duration: mean \d", critic)
    trips = episode.report.claims[0].value
    assert f"trips = {trips:g}; outputs/tripinfo.xml gives {trips:g}: agrees" in critic


def test_done_with_an_output_missing_is_a_failed_try_and_the_tries_bound_the_loop(
    tmp_path: Path,
) -> None:
    seen: list[Request] = []
    config = LabConfig(outer_attempts=1, inner_tries=3)
    episode = _solve(tmp_path, lambda _: Step(action=StepKind.done), config, seen)
    acts = _prompts(seen, "lab.act")
    assert len(acts) == 3 and not episode.accepted
    assert "not done: outputs/tripinfo.xml missing" in acts[-1]


def test_the_steps_bound_the_loop(tmp_path: Path) -> None:
    seen: list[Request] = []
    config = LabConfig(outer_attempts=1, max_steps=4)
    _solve(tmp_path, lambda _: Step(action=StepKind.run, command="true"), config, seen)
    acts = _prompts(seen, "lab.act")
    assert len(acts) == 4 and "step 4 of 4" in acts[-1]


def test_a_served_model_s_timeout_is_a_setting() -> None:
    spec = "openai:http://127.0.0.1:9/v1?model=m"
    settings = model_limits(spec, ["model.timeout_s=300", "model.budget.calls=5"])
    assert settings.timeout_s == 300 and settings.budget is not None
    assert settings.load().timeout_s == 300


def test_lab_solve_takes_input_files(tmp_path: Path) -> None:
    args = ["lab", "solve", "Simulate the given network and routes until 1500 s."]
    args += ["--file", str(FILES / "grid.net.xml"), "--file", str(FILES / "routes.rou.xml")]
    args += ["--output", "outputs/tripinfo.xml", "--output", "outputs/statistics.xml"]
    args += ["--set", "end=1500", "--model", "scripted", "--library", str(tmp_path / "lib")]
    result = CliRunner().invoke(app, [*args, "--runs", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    assert "accepted after 1 attempt(s)" in result.output
