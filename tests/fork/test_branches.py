"""Forks with a change, forks that are refused, the served model's record, a fork of a
fork, a fork resumed, and the fork from the command line and from Python."""

from pathlib import Path

import pytest
import yaml
from tests.engine.test_conformance import SCENARIOS, SHIPPED, small
from tests.hardening.conftest import ELFAROL, small_elfarol
from tests.runs import same
from typer.testing import CliRunner

from simulacra import api
from simulacra.cli import app
from simulacra.engine import Progress
from simulacra.experiments import ForkError, fork, load_scenario, resume, run
from simulacra.llm.fault_server import FaultServer
from simulacra.runlog import Event, RunDir, compare_runs, history, read_events
from simulacra.runlog.compare import without_wall

CHOICE = '{"reason": "a hunch", "choice": "go"}'  # El Farol's answer, from the fault server


def _small(kind: str, root: Path) -> RunDir:
    name = SHIPPED[kind]
    return run(load_scenario(SCENARIOS / f"{name}.yaml", small(name, root)), progress=False)


def _seen(events: list[Event]) -> list[tuple[object, ...]]:
    return [(e.seq, e.t, e.kind, e.agent, without_wall(e.data)) for e in events]


def test_a_fork_with_a_change_is_its_parent_before_the_fork_point_and_differs_after(
    tmp_path: Path,
) -> None:
    parent = _small("town", tmp_path)
    (start,) = read_events(parent.events_path, {"run"})
    agent = next(iter(start.data["agents"]))
    at = [e.t for e in read_events(parent.events_path, {"world"})][3]
    thought = {"at": at, "type": "thought", "agent": agent, "text": "I should leave town now."}
    (child,) = fork(parent.path, at=3, interventions=[thought], progress=False)
    point = child.info()["parent"]
    ours, theirs = list(history(child.path)), list(read_events(parent.events_path))
    before = point["seq"]
    assert _seen(ours[:before]) == _seen(theirs[:before])
    found = compare_runs(parent.path, child.path)
    assert found.first_event is not None
    assert (found.first_event.field, found.first_event.b) == ("kind", "intervention")
    assert ours[before].kind == "intervention" and ours[before].t == point["at"]
    assert child.info()["fork"]["changes"] == [f"thought at {at}"]


def test_what_cannot_branch_is_refused_before_anything_runs(tmp_path: Path) -> None:
    parent = _small("town", tmp_path)
    (start,) = read_events(parent.events_path, {"run"})
    agent = next(iter(start.data["agents"]))
    early = {"at": "07:00", "type": "thought", "agent": agent, "text": "too early"}
    cases = [
        ({"sets": ["agents.count=2"]}, "cannot change mid-run"),
        ({"sets": ["clock.tick=5m"]}, "cannot change mid-run"),
        ({"interventions": [early]}, "before the fork point"),
    ]
    for options, message in cases:
        with pytest.raises(ForkError, match=message):
            fork(parent.path, at=3, progress=False, **options)  # type: ignore[arg-type]
    with pytest.raises(ForkError, match="no tick starts at"):
        fork(parent.path, at="07:31", progress=False)
    with pytest.raises(ForkError, match="steps 0 to"):
        fork(parent.path, at=99, progress=False)
    assert [p.name for p in tmp_path.iterdir()] == [parent.path.name]


def test_a_served_model_without_a_cache_cannot_be_forked(tmp_path: Path) -> None:
    with FaultServer("ok", content=CHOICE) as server:
        spec = f"openai:{server.url}?model=fake"
        parent = run(load_scenario(ELFAROL, small_elfarol(tmp_path, f"model.spec={spec}")))
    (parent.path / "llm_cache.sqlite").unlink()
    with pytest.raises(ForkError, match="without a response cache"):
        fork(parent.path, at=5, progress=False)


def test_a_fork_of_a_served_run_makes_no_model_call_before_the_fork_point(tmp_path: Path) -> None:
    """The parent's calls are answered from its cache: the prefix (and a no-change child,
    whose calls are the parent's) sends the server nothing; a changed child asks it only
    for the steps after the fork point."""
    with FaultServer("ok", content=CHOICE) as server:
        spec = f"openai:{server.url}?model=fake"
        parent = run(load_scenario(ELFAROL, small_elfarol(tmp_path, f"model.spec={spec}")))
        asked = server.requests
        (child,) = fork(parent.path, at=5, progress=False)
        assert server.requests == asked
        (changed,) = fork(parent.path, at=5, sets=["model.temperature=0.9"], progress=False)
        after = server.requests - asked
    calls = list(read_events(parent.events_path, {"llm.call"}))
    assert after == sum(1 for c in calls if c.t >= changed.info()["parent"]["at"]) > 0
    # The no-change child is the parent again but for its calls, answered from the cache.
    found = compare_runs(parent.path, child.path)
    assert found.first_event is not None and found.first_event.field == "data.cached"
    assert {d.field.rpartition(".")[2] for d in found.metrics} == {"cache_hits"}


def test_a_fork_of_a_fork(tmp_path: Path) -> None:
    """A fork of a child after its own fork point reads three runs' logs as one history; a
    fork of it before that point is a fork of the grandparent."""
    parent = run(load_scenario(ELFAROL, small_elfarol(tmp_path)), progress=False)
    (child,) = fork(parent.path, at=2, progress=False)
    (grandchild,) = fork(child.path, at=6, progress=False)
    assert grandchild.info()["parent"]["path"] == str(child.path.resolve())
    assert same(parent, grandchild)
    (sibling,) = fork(child.path, at=1, progress=False)
    assert sibling.info()["parent"]["path"] == str(parent.path.resolve())
    assert same(parent, sibling)


def test_a_stopped_fork_resumes_to_the_fork_that_was_not_stopped(tmp_path: Path) -> None:
    parent = run(load_scenario(ELFAROL, small_elfarol(tmp_path)), progress=False)

    def stop(progress: Progress) -> None:
        if progress.step == 7:
            raise RuntimeError("the machine went down")

    with pytest.raises(RuntimeError, match="went down"):
        fork(parent.path, at=3, progress=False, on_progress=stop)
    (stopped,) = [RunDir(p) for p in tmp_path.iterdir() if "fork" in p.name]
    assert stopped.info()["status"] == "failed"
    resumed = resume(stopped.path, progress=False)
    assert same(parent, resumed)


def test_the_command_and_the_api(tmp_path: Path) -> None:
    name = SHIPPED["town"]
    parent = api.run(SCENARIOS / f"{name}.yaml", set=small(name, tmp_path), progress=False)
    agent = parent.agents()["agent"].iloc[0]
    file = tmp_path / "leave.yaml"
    event = {"at": "07:30", "type": "thought", "agent": agent, "text": "I should leave now."}
    file.write_text(yaml.safe_dump([event]), encoding="utf-8")
    result = CliRunner().invoke(app, ["fork", str(parent.path), "--at", "3", "--replicates", "1"])
    assert result.exit_code == 0, result.output
    assert result.output.count("fork:") == 2 and "the same as the parent" in result.output
    child = parent.fork("07:30", interventions=file, progress=False)
    assert child.parent == parent and len(parent.children()) == 3
    assert child.info["parent"]["step"] == 3
    ours, theirs = child.events(), parent.events()  # the child's table: the whole history
    first = ours["kind"].tolist().index("intervention")
    columns = ["seq", "t", "kind", "agent"]
    assert ours[columns][:first].equals(theirs[columns][:first]) and first > 0
    assert ours["t"].iloc[first].isoformat() == child.info["parent"]["at"]
    diff = CliRunner().invoke(app, ["diff", str(parent.path), str(child.path)])
    assert diff.exit_code == 1 and "intervention" in diff.output


def test_a_world_setting_it_reads_as_it_runs_may_change_at_a_fork(tmp_path: Path) -> None:
    """The commute reads what agents are told day by day, and the grid's fires start at
    their steps: a strike announced the evening before, a fire moved before it starts. Each
    child is its parent up to the fork point; a setting that built the world is refused."""
    commute = _small("commute", tmp_path / "commute")
    told = 'world.environment={2: "Taxi drivers strike tomorrow and the day after."}'
    (announced,) = fork(commute.path, at=1, sets=[told], progress=False)
    found = compare_runs(commute.path, announced.path)
    assert found.first_event is not None, "the announcement changed nothing"
    assert found.first_event.where.split(" at ")[1].rstrip(")") >= announced.info()["parent"]["at"]
    with pytest.raises(ForkError, match="cannot change mid-run"):
        fork(commute.path, at=1, sets=["world.city.corridor_km=12"], progress=False)
    grid = _small("grid", tmp_path / "grid")
    (moved,) = fork(grid.path, at=4, sets=["world.fires.1.position=[12, 12]"], progress=False)
    assert compare_runs(grid.path, moved.path).first_event is not None
    point = moved.info()["parent"]["seq"]
    ours, theirs = list(history(moved.path)), list(read_events(grid.path / "events.jsonl"))
    assert _seen(ours[1:point]) == _seen(theirs[1:point])
    # The history opens with the child's own header, so measures and the viewer place the
    # fire where the child has it.
    fires = [(f["name"], f["position"]) for f in ours[0].data["world"]["fires"]]
    assert ("fire2", [12, 12]) in fires and ours[0].data["world"] != theirs[0].data["world"]
