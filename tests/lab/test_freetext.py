"""The source's own task format: a prompt and its files, verified by reproduction where the
prompt names outputs, and by a judge reading the record, the two reported apart."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.lab.attempts import build, claim, scripted

from simulacra.lab.agent import LearningAgent
from simulacra.lab.config import LabConfig
from simulacra.lab.episode import Attempt
from simulacra.lab.loop import agent_for
from simulacra.lab.sandbox import bwrap_path
from simulacra.lab.scripted import script_lab
from simulacra.lab.tasks import SuiteTask, TaskError, load_suite, load_task
from simulacra.lab.verifier import verify
from simulacra.llm import load_model

FREE = {t.task.id: t for t in load_suite("freetext")}
KEEP = "sumo -n outputs/grid.net.xml -r outputs/routes.rou.xml --end 1500 --no-step-log "
TRIPS = claim("trips", 300, "outputs/trips.xml", "xml_count", element="tripinfo")
_FAKE = """\
trip = '<tripinfo id="{i}" depart="{i}.00" arrival="{a}.00" duration="60.00"/>'
body = "\\n".join(trip.format(i=i, a=i + 60) for i in range(300))
open("outputs/trips.xml", "w").write("<tripinfos>\\n" + body + "\\n</tripinfos>\\n")
"""


class _Quiet:
    """An event sink that keeps nothing: the judge's calls are not under test here."""

    def emit(self, payload: object, *, t: object = None, agent: str | None = None) -> None:
        return None


def _judge() -> LearningAgent:
    model = script_lab(load_model("scripted"))
    return agent_for(None, model, LabConfig(), _Quiet(), "framework")


def test_a_free_text_task_has_a_prompt_and_files_only() -> None:
    kept = FREE["trips-kept"].task
    assert kept.free and not kept.inputs and not kept.required_outputs
    assert kept.checkable() == ["outputs/trips.xml"]  # named by its text
    grid = FREE["four-by-four"]
    assert grid.task.checkable() == [] and grid.verifier is None


def test_a_structured_task_still_needs_its_verifier(tmp_path: Path) -> None:
    (tmp_path / "task.yaml").write_text(
        "id: t\ntier: 1\ncategory: network\ntext: Build it.\nrequired_outputs: [outputs/a.xml]\n"
    )
    with pytest.raises(TaskError, match="needs its verifier"):
        load_task(tmp_path)


@pytest.mark.sumo
@pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap (make install-dev)")
def test_a_free_text_task_is_verified_by_reproduction_and_by_the_judge_apart(
    tmp_path: Path,
) -> None:
    task = FREE["trips-kept"]
    real = build(
        tmp_path / "real",
        "trips-kept",
        [KEEP + "--tripinfo-output outputs/trips.xml"],
        claims=(TRIPS,),
        suite_task=task,
    )
    fake = scripted(tmp_path / "fake", "trips-kept", _FAKE, claims=(TRIPS,), suite_task=task)
    assert verify(task, real).passed
    assert not verify(task, fake).passed  # no SUMO header: reproduction refuses it
    # The scripted judge reads the record; it cannot tell the fabrication (both pass), which
    # is why the two verdicts are reported apart.
    agent = _judge()
    assert asyncio.run(agent.judge(task.task, Attempt(real))).passed
    assert asyncio.run(agent.judge(task.task, Attempt(fake))).passed
    missing = build(tmp_path / "none", "trips-kept", ["true"], suite_task=task)
    verdict = asyncio.run(agent.judge(task.task, Attempt(missing)))
    assert not verdict.passed and "missing: outputs/trips.xml" in verdict.reasons


@pytest.mark.sumo
@pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap (make install-dev)")
def test_a_v1_task_restated_without_inputs_and_with_another_output_name_still_verifies(
    tmp_path: Path,
) -> None:
    """v1 tripinfo-run fails today when its output is renamed or its inputs: block removed;
    restated as free text (outputs/trips.xml, no inputs) it verifies by reproduction."""
    v1 = {t.task.id: t for t in load_suite("v1")}["tripinfo-run"]
    text = v1.task.text.replace("outputs/tripinfo.xml", "outputs/trips.xml")
    files = [str(v1.folder / f) for f in v1.task.files]
    restated = v1.task.model_copy(
        update={"text": text, "inputs": {}, "required_outputs": [], "files": files}
    )
    (tmp_path / "task").mkdir()
    free = SuiteTask(task=restated, folder=tmp_path / "task")  # no verify.py: free text
    command = KEEP + "--tripinfo-output outputs/trips.xml --statistic-output outputs/statistics.xml"
    attempt = build(tmp_path, "tripinfo-run", [command], claims=(TRIPS,), suite_task=free)
    assert restated.free and free.verifier is None
    verdict = verify(free, attempt)
    assert verdict.passed, verdict
    assert restated.checkable() == ["outputs/trips.xml", "outputs/statistics.xml"]
