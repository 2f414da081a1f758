"""A fork with no change is its parent again, for every world: `simulacra diff` finds no
difference between the parent and the child, whose own log holds only the steps from the
fork point on (the prefix is read from the parent, never copied or rerun into the child)."""

import json
from pathlib import Path
from typing import Any

import pytest
from tests.engine.test_conformance import SCENARIOS, SHIPPED, _needs_3d, small
from tests.runs import same

from simulacra.engine import Engine
from simulacra.experiments import ForkError, fork, load_scenario, run
from simulacra.experiments.kinds import BINDINGS
from simulacra.runlog import RunDir, compare_runs, history, read_events

# Checkpoints every two ticks: step 3 is reached from the checkpoint at step 2 by replaying
# one tick; step 1 from the start, by replaying the first.
AT = (1, 3)


def _parent(kind: str, root: Path) -> RunDir:
    name = SHIPPED[kind]
    return run(load_scenario(SCENARIOS / f"{name}.yaml", small(name, root)), progress=False)


@pytest.mark.parametrize("kind", sorted(BINDINGS))
def test_a_fork_with_no_change_is_its_parent_again(kind: str, tmp_path: Path) -> None:
    _needs_3d(kind)
    parent = _parent(kind, tmp_path)
    whole = list(read_events(parent.events_path))
    for at in AT:
        (child,) = fork(parent.path, at=at, progress=False)
        assert child.info()["status"] == "completed"
        assert same(parent, child)  # what `simulacra diff PARENT CHILD` checks
        point = child.info()["parent"]
        assert (Path(point["path"]), point["step"]) == (parent.path.resolve(), at)
        # The child's own log starts at the fork point, numbered on from the parent's prefix,
        # and holds nothing from before it: the prefix was neither copied nor run again.
        own = list(read_events(child.events_path))
        states = [e.data["step"] for e in own if e.kind == "world"]
        assert own[0].seq == point["seq"] and states[0] == at + 1
        assert own[0].t >= point["at"] and not any(e.kind == "run" for e in own)
        assert len(own) < len(whole) == len(list(history(child.path)))
        assert [e.seq for e in history(child.path)] == list(range(len(whole)))


def test_a_fork_at_a_time_is_a_fork_at_the_step_that_starts_then(tmp_path: Path) -> None:
    parent = _parent("town", tmp_path)
    times = [e.t for e in read_events(parent.events_path, {"world"})]
    (child,) = fork(parent.path, at=times[3][11:16], progress=False)  # "07:30"
    assert child.info()["parent"]["step"] == 3
    assert same(parent, child)


def test_a_replay_that_does_not_match_the_parent_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check has teeth: a restore that loses the world's state (El Farol's attendance
    history, which the minds forecast from) makes the replay log other events, so the fork is
    refused rather than made from a prefix that is not the parent's."""
    parent = _parent("elfarol", tmp_path)
    restore = Engine.restore

    def forgetful(self: Engine, state: dict[str, Any]) -> None:
        restore(self, {**state, "world": self.world.snapshot()})

    monkeypatch.setattr(Engine, "restore", forgetful)
    with pytest.raises(ForkError, match="logged other events"):
        fork(parent.path, at=5, progress=False)
    assert [p.name for p in tmp_path.iterdir()] == [parent.path.name]  # nothing left behind


def test_a_child_that_draws_other_random_numbers_after_the_fork_differs(tmp_path: Path) -> None:
    """And the diff has teeth: a fork that draws other random numbers from the fork point
    on (a replicate: El Farol's agents pick their predictors by their calls' seeds) is told
    apart from its parent, after the fork point only."""
    parent = _parent("elfarol", tmp_path)
    _, replicate = fork(parent.path, at=2, replicates=1, progress=False)
    found = compare_runs(parent.path, replicate.path)
    assert not found.same and found.first_event is not None
    assert found.first_event.where.split(" at ")[1].rstrip(")") >= replicate.info()["parent"]["at"]
    assert json.loads((replicate.path / "run.json").read_text())["fork"]["replicate"] == 1


def test_a_fork_at_any_step_is_its_parent_again(tmp_path: Path) -> None:
    """Every step, checkpointed (2, 4) or not, the first (0) and the last (5), is a fork point."""
    parent = _parent("elfarol", tmp_path)
    steps = [e.data["step"] for e in read_events(parent.events_path, {"world"})][:-1]
    assert steps == [0, 1, 2, 3, 4, 5]
    for at in steps:
        (child,) = fork(parent.path, at=at, progress=False)
        assert same(parent, child)
    with pytest.raises(ForkError, match="steps 0 to 5"):
        fork(parent.path, at=6, progress=False)
