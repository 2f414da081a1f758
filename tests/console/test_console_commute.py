"""A commute's console announces the strike: every commuter is told it on the day it fires,
holds it in its short-term memory, and re-plans with it; the run reproduces from its
scheduled.yaml and resumes after a kill with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.console.driver import ConsoleRun, killed_and_resumed
from tests.engine.test_conformance import SCENARIOS, small
from tests.runs import same

from simulacra.cli_console import write_scheduled
from simulacra.experiments import load_scenario, run
from simulacra.experiments.scenario import Scenario
from simulacra.runlog import RunDir, compare_runs, read_events

STRIKE = "Taxi drivers strike <today> and tomorrow; few taxis will run."


def _commute(root: Path, *more: str) -> Scenario:
    return load_scenario(SCENARIOS / "commute.yaml", [*small("commute", root), *more])


def _announce(console: ConsoleRun) -> dict[str, Any]:
    body = {"action": "intervene", "intervention": {"type": "event", "text": STRIKE}}
    return console.call("/console/act", body)[1]


def _play(console: ConsoleRun) -> None:
    """Pause before day 3 (the strike's first), announce it, resume."""
    console.paused_at(1)
    console.act(who="teacher", action="step")
    console.paused_at(2)
    console.act(who="teacher", action="step")
    console.paused_at(3)
    assert _announce(console)["ok"]
    console.act(who="teacher", action="resume")


def test_a_strike_announced_from_the_console_is_heard_remembered_and_reproduces(
    tmp_path: Path,
) -> None:
    console = ConsoleRun(_commute(tmp_path / "live"))
    try:
        choices = console.wait(lambda s: s["paused"]) and console.call("/console/choices")[1]
        assert "event" in choices["types"]
        _play(console)
        done = console.finish()
    finally:
        console.close()
    assert isinstance(done, RunDir), done
    events = list(read_events(done.events_path))
    (fired,) = [e for e in events if e.kind == "intervention"]
    assert fired.data["text"] == STRIKE and fired.data["change"] == {}
    agents = {e.agent for e in events if e.kind == "decision"}
    # Every commuter remembers it, as the day's news, and re-plans day 3 with it in view.
    heard = {e.agent for e in events if e.kind == "memory.add" and e.data["text"].endswith(STRIKE)}
    assert heard == agents and len(agents) == 4
    # Its re-plans of day 3 and 4 read it (a longer prompt than the same run's without it).
    plain = list(read_events(run(_commute(tmp_path / "plain"), progress=False).events_path))
    for day in (3, 4):
        ours, theirs = _daily_tokens(events, day), _daily_tokens(plain, day)
        assert set(ours) == agents and all(ours[a] > theirs[a] for a in agents), day
    assert _daily_tokens(events, 2) == _daily_tokens(plain, 2)

    again_from = write_scheduled(done.path)
    root = "output.root=" + str(tmp_path / "again")
    again = run(load_scenario(again_from, [root]), progress=False)
    found = compare_runs(done.path, again.path)
    assert found.same, found.difference


def _daily_tokens(events: list[Any], day: int) -> dict[str, int]:
    """Each agent's prompt tokens in its re-plan of `day` (the days' calls in order)."""
    calls = [e for e in events if e.kind == "llm.call" and e.data["purpose"] == "commute.daily"]
    times = sorted({e.t for e in calls})
    return {e.agent: e.data["prompt_tokens"] for e in calls if e.t == times[day - 1]}


def test_a_commute_killed_after_an_announcement_resumes_with_it(tmp_path: Path) -> None:
    whole, resumed = killed_and_resumed(_commute, _play, tmp_path, 5)
    assert same(resumed, whole)


def test_an_announcement_with_a_change_or_to_the_logit_mind_is_refused(tmp_path: Path) -> None:
    for more, body, reason in [
        ([], {"change": {"zone": "riverside"}}, "unknown field 'zone'"),
        (["agents.mind=logit"], {}, "the logit mind hears no announcement"),
    ]:
        console = ConsoleRun(_commute(tmp_path / str(len(more)), *more))
        try:
            console.paused_at(1)
            item = {"type": "event", "text": STRIKE, **body}
            status, answer = console.call(
                "/console/act", {"action": "intervene", "intervention": item}
            )
            assert status == 400 and reason in answer["error"], answer
        finally:
            console.close()
