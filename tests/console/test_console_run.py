"""A live console on a scripted town: what a person does there is logged, taken at tick
boundaries through the interventions' own path, survives a kill, and reproduces the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.console.driver import ConsoleRun
from tests.engine.test_conformance import SCENARIOS, small
from tests.runs import same

from simulacra.engine import Progress
from simulacra.experiments import load_scenario, resume, run
from simulacra.experiments.console_actions import scheduled
from simulacra.experiments.kinds.town import TOWN
from simulacra.experiments.scenario import Scenario
from simulacra.runlog import RunDir, compare_runs, read_events

HOSTILE = "<script>alert('x')</script> the cafe opens early today"


def _town(root: Path) -> Scenario:
    return load_scenario(SCENARIOS / "town.yaml", small("town", root))


def _play(console: ConsoleRun, scenario: Scenario) -> str:
    """Pause at step 1: a thought, a broken espresso machine, a visitor who joins the first
    agent at home and speaks to them; one step; then at step 2 resume. The first agent's id."""
    first = TOWN.roster(scenario)[0]
    home = TOWN.personas(scenario)[0].home
    console.paused_at(1)
    console.act(
        action="intervene",
        who="teacher",
        intervention={"type": "thought", "agents": [first], "text": HOSTILE},
    )
    console.act(
        action="intervene",
        who="teacher",
        intervention={
            "type": "event",
            "text": "the espresso machine is broken",
            "change": {"place": "Hobbs Cafe", "object": "espresso machine", "state": "broken"},
        },
    )
    console.act(
        action="visitor",
        do="join",
        name="Vera",
        place=home,
        description="a tall woman in a green coat",
    )
    console.act(
        action="visitor", do="say", name="Vera", to=first, text="Good morning! Is the cafe open?"
    )
    console.act(action="step", who="teacher")
    console.paused_at(2)
    console.act(action="step", who="teacher")
    # After the checkpoint at step 2: a killed run still takes it up when resumed.
    console.paused_at(3)
    console.act(
        action="intervene",
        who="teacher",
        intervention={
            "type": "conversation",
            "agents": TOWN.roster(scenario)[1:3],
            "text": "the broken machine",
        },
    )
    console.act(action="resume", who="teacher")
    return first


def test_console_actions_are_logged_answered_and_reproduced(tmp_path: Path) -> None:
    scenario = _town(tmp_path / "live")
    console = ConsoleRun(scenario)
    try:
        first = _play(console, scenario)
        done = console.finish()
        # What the visitor said is read back from the log (a reloaded page's chat).
        status, said = console.call("/console/said")
    finally:
        console.close()
    assert isinstance(done, RunDir), done
    assert status == 200 and said == [
        {"name": "Vera", "to": first, "text": "Good morning! Is the cafe open?", "step": 1}
    ]
    events = list(read_events(done.events_path))
    actions = [e for e in events if e.kind == "console"]
    assert [(a.data["who"], a.data["action"], a.data["step"]) for a in actions] == [
        ("teacher", "thought", 1),
        ("teacher", "event", 1),
        ("Vera", "event", 1),
        ("Vera", "event", 1),
        ("teacher", "step", 1),
        ("teacher", "step", 2),
        ("teacher", "conversation", 3),
        ("teacher", "resume", 3),
    ]
    fired = [e for e in events if e.kind == "intervention"]
    assert fired[0].agent == first and fired[0].data["text"] == HOSTILE
    # The visitor's line is heard and answered by the ordinary dialogue turn, logged as a
    # conversation and remembered by the agent.
    (talk,) = [
        e for e in events if e.kind == "conversation" and "visitor:vera" in e.data["participants"]
    ]
    assert talk.data["participants"] == ["visitor:vera", first]
    assert talk.data["turns"][0] == {
        "speaker": "visitor:vera",
        "text": "Good morning! Is the cafe open?",
        "raised": False,  # a visitor's line raises no topic the agent had chosen
    }
    (reply,) = [e for e in events if e.kind == "message" and e.data["to"] == ["visitor:vera"]]
    assert reply.agent == first and reply.data["text"] == talk.data["turns"][1]["text"]
    calls = [e for e in events if e.kind == "llm.call" and e.agent == first]
    assert any(c.data["purpose"] == "converse.turn" for c in calls)
    memories = [e.data["text"] for e in events if e.kind == "memory.add" and e.agent == first]
    assert any("Conversation with Vera" in m and "Is the cafe open?" in m for m in memories)
    # Agents see the visitor as they see each other: nothing says a person plays them.
    seen = [e.data for e in events if e.kind == "world" and "visitors" in e.data]
    assert seen and seen[0]["visitors"][0]["name"] == "Vera"
    assert not any("person" in str(m).lower() for m in memories if "Vera" in m)

    # Its config with the recorded actions scheduled is the same run: diff finds nothing.
    config = scheduled(done.config(), done.events_path)
    assert len(config["interventions"]) == len(scenario.interventions) + 5
    again = run(load_scenario(config, ["output.root=" + str(tmp_path / "again")]), progress=False)
    found = compare_runs(done.path, again.path)
    assert found.same, found.difference


def test_a_console_run_killed_after_its_actions_resumes_with_them(tmp_path: Path) -> None:
    scenario = _town(tmp_path / "whole")
    whole_console = ConsoleRun(scenario)
    try:
        _play(whole_console, scenario)
        whole = whole_console.finish()
    finally:
        whole_console.close()
    assert isinstance(whole, RunDir)

    def stop(progress: Progress) -> None:
        if progress.step == 3:
            raise RuntimeError("the machine went down")

    cut = _town(tmp_path / "cut")
    console = ConsoleRun(cut, on_progress=stop)
    try:
        _play(console, cut)
        stopped = console.finish()
    finally:
        console.close()
    assert isinstance(stopped, RuntimeError)
    (path,) = (tmp_path / "cut").iterdir()
    checkpoint = RunDir(path).info()
    assert checkpoint["status"] == "failed"
    kept = [e.data["step"] for e in read_events(path / "events.jsonl", {"console"})]
    assert kept[-2:] == [3, 3]  # the conversation sent before step 3, after the checkpoint
    resumed = resume(path, progress=False)  # no console now: the log's actions are taken up
    assert same(resumed, whole)


def test_a_change_the_run_cannot_take_is_refused_before_it_is_queued(tmp_path: Path) -> None:
    console = ConsoleRun(_town(tmp_path))
    try:
        console.paused_at(1)
        refusals: list[tuple[dict[str, Any], str]] = [
            (
                {
                    "action": "intervene",
                    "intervention": {"type": "thought", "agents": ["nobody"], "text": "hi"},
                },
                'unknown agent "nobody"',
            ),
            (
                {
                    "action": "intervene",
                    "intervention": {
                        "type": "event",
                        "text": "x",
                        "change": {"place": "Hobbs Cafe", "object": "piano", "state": "gone"},
                    },
                },
                "object",
            ),
            (
                {
                    "action": "intervene",
                    "intervention": {
                        "type": "thought",
                        "agents": ["marta_okafor"],
                        "text": "x",
                        "at": "09:00",
                    },
                },
                "next tick",
            ),
            (
                {
                    "action": "visitor",
                    "do": "say",
                    "name": "Nobody",
                    "to": "marta_okafor",
                    "text": "hi",
                },
                "has not joined",
            ),
            (
                {
                    "action": "intervene",
                    "intervention": {"type": "thought", "agents": ["marta_okafor"], "text": ""},
                },
                "intervention.text: expected at least 1 character",  # the console's words
            ),
            ({"action": "visitor", "do": "join", "name": "Vera", "place": "Atlantis"}, "place"),
            ({"action": "speed", "ticks_per_s": -1}, "above 0"),
            ({"action": "explode"}, "action"),
        ]
        for body, reason in refusals:
            status, answer = console.call("/console/act", body)
            assert status == 400 and reason in answer["error"], (body, answer)
        assert console.call("/console/status")[1]["queued"] == 0
    finally:
        console.close()


@pytest.mark.parametrize("kind", ["elfarol"])
def test_a_world_that_takes_no_interventions_says_so_and_still_steps(
    kind: str, tmp_path: Path
) -> None:
    scenario = load_scenario(SCENARIOS / f"{kind}.yaml", small(kind, tmp_path))
    console = ConsoleRun(scenario)
    try:
        console.paused_at(1)
        choices = console.call("/console/choices")[1]
        assert choices["types"] == [] and "takes no interventions" in choices["note"]
        status, answer = console.call(
            "/console/act",
            {
                "action": "intervene",
                "intervention": {
                    "type": "thought",
                    "agents": [choices["agents"][0]],
                    "text": "run",
                },
            },
        )
        assert status == 400 and "takes no interventions" in answer["error"]
        console.act(action="step")
        assert console.paused_at(2)["step"] == 2
    finally:
        console.close()
    assert isinstance(console.finish(), RunDir)


def test_an_action_received_mid_tick_survives_a_kill_before_the_tick_ends(
    tmp_path: Path,
) -> None:
    """The run goes down at the end of tick 3, before the boundary that would take what was
    sent during it: the action is on file already, and the resumed run fires it before tick
    4, as the run with it scheduled at 07:30 does."""
    scenario = _town(tmp_path / "cut")
    second = TOWN.roster(scenario)[1]
    thought = {"type": "thought", "agents": [second], "text": "I should visit the library"}
    holder: list[ConsoleRun] = []

    def stop(progress: Progress) -> None:
        if progress.step == 3:
            holder[0].act(action="intervene", who="teacher", intervention=thought)
            raise RuntimeError("the machine went down")

    console = ConsoleRun(scenario, on_progress=stop)
    holder.append(console)
    try:
        console.paused_at(1)
        console.act(action="resume", who="teacher")
        stopped = console.finish()
    finally:
        console.close()
    assert isinstance(stopped, RuntimeError)
    (path,) = (tmp_path / "cut").iterdir()
    logged = [e.data for e in read_events(path / "events.jsonl", {"console"})]
    assert logged[-1]["step"] == 4 and logged[-1]["intervention"]["text"] == thought["text"]
    resumed = resume(path, progress=False)
    fired = [e for e in read_events(resumed.events_path, {"intervention"}) if e.agent == second]
    assert [e.data["text"] for e in fired] == [thought["text"]]
    # The log keeps it past the checkpoint it was cut back to: a second kill loses nothing.
    again = [e.data for e in read_events(resumed.events_path, {"console"})]
    assert again[-1] == logged[-1]
    config = _town(tmp_path / "planned").model_dump(mode="json")
    config["interventions"] = [*config["interventions"], {**thought, "at": "07:30"}]
    assert same(resumed, run(load_scenario(config), progress=False))
