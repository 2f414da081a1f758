import json
import statistics
from collections import Counter
from pathlib import Path

import pytest

from simulacra.experiments import ScenarioError, load_scenario, run
from simulacra.runlog import RunDir, read_events

ELFAROL = Path(__file__).resolve().parents[2] / "scenarios" / "elfarol.yaml"


def small(root: Path, *extra: str) -> list[str]:
    """20 agents for 8 weeks on Arthur's predictors: a run of a second."""
    return [
        "model.spec=scripted",
        "agents.count=20",
        "clock.ticks=8",
        f"output.root={root}",
        "output.report=false",
        "output.frames=false",
        *extra,
    ]


def play(root: Path, *extra: str) -> RunDir:
    return run(load_scenario(ELFAROL, small(root, *extra)), progress=False)


def test_a_scripted_run_finishes_and_its_metrics_agree_with_its_log(tmp_path: Path) -> None:
    done = play(tmp_path)
    info = done.info()
    assert info["status"] == "completed" and info["model"] == "scripted"
    events = list(read_events(done.events_path))
    decisions = [e for e in events if e.kind == "decision"]
    assert len(decisions) == 20 * 8 and not any(e.data["fallback"] for e in decisions)
    going = Counter(e.data["step"] for e in decisions if e.data["choice"] == "go")
    attendance = [going[week] for week in range(1, 9)]
    at_bar = Counter(
        e.data["step"] for e in events if e.kind == "action" and e.data["place"] == "bar"
    )
    assert [at_bar[week] for week in range(1, 9)] == attendance
    metrics = json.loads((done.path / "metrics.json").read_text())
    assert metrics["elfarol"]["seats"] == 12  # 0.6 of 20
    assert metrics["elfarol"]["attendance"] == attendance
    summary = metrics["summary"]
    assert summary["mean_attendance"] == pytest.approx(statistics.fmean(attendance))
    assert summary["attendance_std"] == pytest.approx(statistics.pstdev(attendance))
    assert summary["crowded_share"] == pytest.approx(sum(a > 12 for a in attendance) / 8)
    assert summary["calls_per_agent_tick"] == 1.0


def test_a_seed_fixes_a_run(tmp_path: Path) -> None:
    def attendance(done: RunDir) -> list[int]:
        return json.loads((done.path / "metrics.json").read_text())["elfarol"]["attendance"]

    first, again = play(tmp_path / "a"), play(tmp_path / "b")
    other = play(tmp_path / "c", "seed=7")
    assert attendance(first) == attendance(again) != attendance(other)


def test_attendance_settles_near_the_threshold_as_arthur_found(tmp_path: Path) -> None:
    for threshold, seats in ((0.4, 40), (0.6, 60)):
        extra = ("agents.count=100", "clock.ticks=30", f"world.threshold={threshold}")
        done = play(tmp_path / str(threshold), *extra)
        mean = json.loads((done.path / "metrics.json").read_text())["summary"]["mean_attendance"]
        assert abs(mean - seats) < 6


@pytest.mark.parametrize(
    ("override", "problem"),
    [
        (
            "world.history=[0.4, 21]",
            "scenario.world.history[1]: expected at most 1, got 21",
        ),
        ("world.threshold=0.01", "scenario.world.threshold: 0.01 of 20 agents leaves no room"),
        ("world.threshold=1.5", "scenario.world.threshold: expected at most 1, got 1.5"),
        (
            "world.capacity=60",
            "scenario.world.capacity: unknown field; allowed fields: kind, threshold",
        ),
        ("agents.personas=[{id: a}]", "scenario.agents.personas: El Farol takes no personas"),
        (
            "memory.mode=notes",
            'scenario.memory.mode: expected "stream" or "bounded", got \'notes\'',
        ),
        (
            "interviews={times: ['21:00'], question: Why}",
            "scenario.interviews: cannot be held: its agents keep no memory stream",
        ),
    ],
)
def test_a_faulty_scenario_is_refused_naming_the_field(
    tmp_path: Path, override: str, problem: str
) -> None:
    with pytest.raises(ScenarioError) as refused:
        load_scenario(ELFAROL, small(tmp_path, override))
    assert any(p.startswith(problem) for p in refused.value.problems), refused.value.problems
