"""A grid run killed mid-way, or failed, resumes from its checkpoint to the log an
uninterrupted run writes."""

from pathlib import Path

import pytest
from tests.runs import latest_checkpoint, same

from simulacra.engine import Progress
from simulacra.experiments import load_scenario, resume, run
from simulacra.runlog import RunDir

from .conftest import HAZARD, run_killed

MODES = ("bounded", "stream")


def overrides(root: Path, mode: str) -> list[str]:
    """The hazard run (20 agents, 7 steps, both fires) with a checkpoint every 3 steps."""
    return [
        "model.spec=scripted",
        f"output.root={root}",
        "output.report=false",
        "output.frames=false",
        "clock.checkpoint_every=3",
        f"memory.mode={mode}",
        "memory.embedder=hashing",
    ]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunDir]:
    return {
        mode: run(
            load_scenario(HAZARD, overrides(tmp_path_factory.mktemp(mode), mode)), progress=False
        )
        for mode in MODES
    }


@pytest.mark.parametrize("mode", MODES)
def test_a_run_killed_with_sigkill_resumes_to_the_same_log(
    reference: dict[str, RunDir], mode: str, tmp_path: Path
) -> None:
    killed = run_killed(HAZARD, overrides(tmp_path, mode), 5, tmp_path)
    assert killed.info()["status"] == "running"
    state = latest_checkpoint(killed)
    assert state["step"] == 3
    if mode == "stream":
        assert (killed.path / "checkpoint" / state["memory"]).exists()
    else:
        assert state["memory"] is None and not (killed.path / "memory.sqlite").exists()
    resumed = resume(killed.path, progress=False)
    assert resumed.info()["status"] == "completed"
    assert same(resumed, reference[mode])
    assert resumed.info()["summary"] == reference[mode].info()["summary"]


def test_a_failed_run_resumes_from_its_checkpoint_to_the_same_log(
    reference: dict[str, RunDir], tmp_path: Path
) -> None:
    def fail(progress: Progress) -> None:
        if progress.step == 4:
            raise RuntimeError("power cut")

    scenario = load_scenario(HAZARD, overrides(tmp_path, "stream"))
    with pytest.raises(RuntimeError, match="power cut"):
        run(scenario, progress=False, on_progress=fail)
    (failed,) = [RunDir(p) for p in tmp_path.iterdir() if p.is_dir()]
    assert failed.info()["status"] == "failed"
    resumed = resume(failed.path, progress=False)
    assert same(resumed, reference["stream"])
    with pytest.raises(ValueError, match="already completed"):
        resume(failed.path, progress=False)
