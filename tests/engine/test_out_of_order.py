"""Out-of-order ticks (`clock.schedule: out_of_order`) on a small scripted town where agents do
run ahead: the log is lockstep's, with interventions and interviews, after a resume from a
checkpoint, in a fork and with a live console; and every world's small run is its lockstep
run (test_run_ahead.py follows the mechanism on a world of four)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.console.driver import ConsoleRun
from tests.engine.test_conformance import SCENARIOS, SHIPPED, _needs_3d, small
from tests.runs import same

from simulacra.engine import Progress
from simulacra.experiments import fork, load_scenario, resume, run
from simulacra.experiments.console_actions import scheduled
from simulacra.experiments.kinds import BINDINGS
from simulacra.experiments.load import ScenarioError
from simulacra.llm import ScriptedModel, load_model
from simulacra.mind.town.scripted import sociable
from simulacra.runlog import RunDir

TOWN = Path(__file__).resolve().parents[2] / "scenarios" / "town-2day.yaml"
# Marta's party thought (07:30) and Sam's candidacy (08:00) come from the scenario; a forced
# conversation and a smoke alarm are added, and an interview at 08:40.
EXTRA = (
    "interventions=["
    '{at: "07:30", type: thought, agent: marta_okafor, text: "I will host a party tonight."},'
    '{at: "07:50", type: conversation, agents: [marta_okafor, sam_whitaker], text: the party},'
    '{at: "08:10", type: event, change: {place: Hobbs Cafe, object: oven, state: smoking},'
    " text: the smoke alarm goes off in the cafe}]"
)


def town(root: Path, schedule: str, *extra: str) -> list[str]:
    """Eight agents, 07:00-10:00. They walk a tile in 30 seconds (20 a tick, where the
    scenario's 10 seconds make 60), so that the horizon (20 tiles and the sight of 4) leaves
    more of them apart on the 180 x 120 map, and still meet."""
    return [
        "agents.count=8",
        "clock.duration=3h",
        "clock.checkpoint_every=5",
        f"clock.schedule={schedule}",
        "world.seconds_per_tile=30",
        "model.spec=scripted",
        "memory.embedder=hashing",
        'interviews.times=["08:40"]',
        f"output.root={root}",
        "output.report=false",
        EXTRA,
        *extra,
    ]


def model() -> ScriptedModel:
    return sociable(load_model("scripted"))


def play(root: Path, schedule: str, **options: Any) -> tuple[RunDir, int]:
    """The run, and how many decisions were taken from work run ahead."""
    seen: list[Progress] = []
    watch = options.pop("on_progress", None)

    def track(progress: Progress) -> None:
        seen.append(progress)
        if watch is not None:
            watch(progress)

    scenario = load_scenario(TOWN, town(root, schedule))
    done = run(scenario, model=model(), progress=False, on_progress=track, **options)
    return done, seen[-1].ahead


@pytest.fixture(scope="module")
def lockstep(tmp_path_factory: pytest.TempPathFactory) -> RunDir:
    done, ahead = play(tmp_path_factory.mktemp("lockstep"), "lockstep")
    assert ahead == 0
    return done


def test_out_of_order_runs_ahead_and_writes_the_lockstep_log(
    lockstep: RunDir, tmp_path: Path
) -> None:
    done, ahead = play(tmp_path, "out_of_order")
    assert ahead > 0  # some decisions were made while others' conversations were held
    assert same(done, lockstep)


def test_an_out_of_order_run_resumes_to_the_lockstep_log(lockstep: RunDir, tmp_path: Path) -> None:
    def fail(progress: Progress) -> None:
        if progress.step == 12:
            raise RuntimeError("power cut")

    with pytest.raises(RuntimeError, match="power cut"):
        play(tmp_path, "out_of_order", on_progress=fail)
    (failed,) = [RunDir(p) for p in tmp_path.iterdir() if p.is_dir()]
    resumed = resume(failed.path, model=model(), progress=False)
    assert same(resumed, lockstep)


def test_a_fork_of_an_out_of_order_run_is_the_fork_of_the_lockstep_run(
    lockstep: RunDir, tmp_path: Path
) -> None:
    parent, _ = play(tmp_path / "parent", "out_of_order")
    thought = {"at": "08:30", "type": "thought", "agent": "sam_whitaker", "text": "I am tired."}
    (ours,) = fork(parent.path, at=6, interventions=[thought], model=model(), progress=False)
    (theirs,) = fork(lockstep.path, at=6, interventions=[thought], model=model(), progress=False)
    assert same(ours, theirs)


def test_an_unknown_schedule_is_refused_naming_the_field(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"clock\.schedule"):
        load_scenario(TOWN, town(tmp_path, "sometimes"))


def test_a_console_run_out_of_order_is_the_lockstep_run_of_what_it_did(tmp_path: Path) -> None:
    # With a console, no agent runs past a tick boundary (where commands are taken); within
    # a tick they still run ahead. A thought sent at step 2, then the run resumed.
    scenario = load_scenario(TOWN, town(tmp_path / "live", "out_of_order"))
    console = ConsoleRun(scenario)
    try:
        console.paused_at(1)
        console.act(action="step", who="teacher")
        console.paused_at(2)
        thought = {"type": "thought", "agents": ["theo_brandt"], "text": "I miss the sea."}
        console.act(action="intervene", who="teacher", intervention=thought)
        console.act(action="resume", who="teacher")
        done = console.finish()
    finally:
        console.close()
    assert isinstance(done, RunDir), done
    config = scheduled(done.config(), done.events_path)
    again = load_scenario(config, [f"output.root={tmp_path / 'again'}", "clock.schedule=lockstep"])
    assert same(run(again, progress=False), done)


@pytest.mark.parametrize("kind", sorted(BINDINGS))
def test_every_world_writes_the_same_log_out_of_order(kind: str, tmp_path: Path) -> None:
    # The town's three agents may run ahead; the other worlds have no horizon and keep
    # lockstep under the setting. Either way `simulacra diff` finds nothing.
    name = SHIPPED[kind]
    _needs_3d(name)
    runs = [
        run(
            load_scenario(
                SCENARIOS / f"{name}.yaml",
                [*small(name, tmp_path / schedule), f"clock.schedule={schedule}"],
            ),
            progress=False,
        )
        for schedule in ("lockstep", "out_of_order")
    ]
    assert same(*runs)
