"""The lab learns: a tool's help becomes a page the scripted policy composes that tool from, a
held-out task it could not do becomes one it does, a failure becomes corrected knowledge, a
verified call becomes a skill, and every retry sees every earlier verdict."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from simulacra.lab.agent import Episode, LearningAgent
from simulacra.lab.catalogue import Option
from simulacra.lab.config import LabConfig
from simulacra.lab.curriculum import history, proposal_problems, propose
from simulacra.lab.library import SEED, Library, Page
from simulacra.lab.loop import agent_for, solve_frozen, solve_normal
from simulacra.lab.prompts import Step, StepKind
from simulacra.lab.results import gains, report_html
from simulacra.lab.sandbox import bwrap_path
from simulacra.lab.scripted import script_lab
from simulacra.lab.scripted.chains import Producer, plan_steps
from simulacra.lab.scripted.compose import Tool, compose
from simulacra.lab.tasks import Category, Task, load_suite
from simulacra.llm import Request, ScriptedModel, load_model
from simulacra.runlog import RunDir

V2 = {t.task.id: t for t in load_suite("v2")}


def _model() -> ScriptedModel:
    model = load_model("scripted")
    assert isinstance(model, ScriptedModel)
    return script_lab(model)


def _agent(
    library: Library, out: Path, condition: str = "full", model: ScriptedModel | None = None
) -> tuple[LearningAgent, RunDir]:
    run = RunDir.create(out, "lab-test", seed=0, model="scripted", config={})
    return agent_for(library, model or _model(), LabConfig(), run.writer(), condition), run


def _normal(library: Library, task: Task, out: Path) -> tuple[Episode, list[str]]:
    agent, _ = _agent(library, out)
    return asyncio.run(solve_normal(agent, task))


def _held_out(library: Library, task_id: str, out: Path, condition: str) -> Episode:
    agent, run = _agent(library, out, condition)
    suite_task = V2[task_id]
    return asyncio.run(solve_frozen(agent, suite_task.task, run.path, suite_task=suite_task))


def _establish(library: Library, tool: str, out: Path) -> Page:
    """The curriculum's first step with a new tool: its help read and kept, as a page."""
    establish = _task(
        "learn-001-establish",
        f"Establish what {tool} offers: save the output of `{tool} --help` as "
        f"outputs/{tool}.help.txt.",
        [f"outputs/{tool}.help.txt"],
    )
    episode, changed = _normal(library, establish, out)
    assert episode.accepted and changed == [f"tool-{tool}"]
    page = library.page(f"tool-{tool}")
    assert page is not None
    return page


def _task(task_id: str, text: str, outputs: list[str], **inputs: str) -> Task:
    return Task(
        id=task_id,
        tier=1,
        category=Category.demand,
        text=text,
        inputs=inputs,
        required_outputs=outputs,
    )


def test_the_first_proposal_establishes_a_tool_of_the_installed_sumo(tmp_path: Path) -> None:
    library = Library.create(tmp_path / "lib", SEED)
    agent, _ = _agent(library, tmp_path / "runs")
    task = asyncio.run(propose(agent, library, 1))
    # Nothing is covered yet: a tool the seed never calls, its help read before it is used.
    assert task.tier in (1, 2) and "--help" in task.text
    assert task.required_outputs[0].endswith(".help.txt")
    tools = {c.name.split(" | ")[1]: c.status for c in history(library).tools}
    assert tools["netgenerate"] == "used" and tools["od2trips"] == "new"
    label = task.required_outputs[0].removeprefix("outputs/").removesuffix(".help.txt")
    assert any(label.startswith(name.split()[0].lower().removesuffix(".py")) for name in tools)


def test_a_proposal_outside_outputs_or_a_repeat_is_refused() -> None:
    task = _task("t", "Make trips.", ["outputs/a.xml", "/etc/passwd", "outputs/../x"])
    problems = proposal_problems(task, ["Make  trips."])
    assert problems == [
        "required output /etc/passwd is not a path under outputs/",
        "required output outputs/../x is not a path under outputs/",
        "a repeat of an earlier task",
    ]
    assert proposal_problems(_task("t", "Make trips.", ["outputs/a.xml"]), []) == []


def _sumo_tool(failed: tuple[str, ...] = ()) -> Tool:
    options = (
        Option("net-file", "in", "FILE", "n", "Load road network description from FILE"),
        Option("route-files", "in", "FILE", "r", "Load routes descriptions from FILE(s)"),
        Option("additional-files", "in", "FILE", "a", "Load further descriptions from FILE(s)"),
        Option("fcd-output", "out", "FILE", "", "Save the Floating Car Data"),
        Option("end", "value", "TIME", "e", "Defines the end time"),
    )
    return Tool("tool-sumo-fcd-output", "sumo", options, failed, skill=False)


def test_a_call_is_composed_from_the_options_a_page_lists() -> None:
    call = compose(
        _sumo_tool(),
        ["outputs/fcd.xml"],
        ["outputs/town.net.xml", "outputs/town.rou.xml"],
        [],
        {"end": "300"},
    )
    assert call is not None
    assert call.usage == (
        "sumo --net-file outputs/town.net.xml --route-files outputs/town.rou.xml --end {end} "
        "--fcd-output outputs/fcd.xml"
    )
    # An output the page names no option for is none of its business.
    assert (
        compose(_sumo_tool(), ["outputs/emissions.json"], ["outputs/town.net.xml"], [], {}) is None
    )


def test_a_recorded_failure_changes_the_next_call() -> None:
    failed = ("sumo --net-file outputs/a.net.xml --route-files outputs/a.rou.xml --fcd-output x",)
    call = compose(
        _sumo_tool(failed),
        ["outputs/fcd.xml"],
        ["outputs/town.net.xml", "outputs/town.rou.xml", "outputs/town.add.xml"],
        [],
        {},
    )
    # route files of that kind failed with --route-files: not bound so again.
    assert call is not None and "--route-files" not in call.usage
    assert "--additional-files outputs/town.add.xml" in call.usage


@pytest.mark.sumo
@pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap (make install-dev)")
def test_a_learned_help_page_makes_a_held_out_task_pass(tmp_path: Path) -> None:
    library = Library.create(tmp_path / "lib", SEED)
    before = _held_out(library, "od-trips", tmp_path / "before", "full")
    assert not before.verified  # the seed has nothing that makes od.trips.xml
    page = _establish(library, "od2trips", tmp_path / "learn")
    assert "- in --taz-files FILE" in page.body and "- out --output-file FILE" in page.body
    # The page, alone (semantic memory), lets the policy call a tool it never called.
    after = _held_out(library, "od-trips", tmp_path / "after", "semantic")
    assert after.verified, after.verification
    assert [c.command for c in after.commands] == [
        "od2trips --taz-files outputs/districts.taz.xml --od-matrix-files outputs/od.txt "
        "--seed 5 --output-file outputs/od.trips.xml"
    ]


@pytest.mark.sumo
@pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap (make install-dev)")
def test_a_verified_call_becomes_a_general_skill_and_a_failure_a_page(tmp_path: Path) -> None:
    library = Library.create(tmp_path / "lib", SEED)
    establish = _task(
        "learn-001-simulation",
        "Establish how sumo writes --fcd-output: save the output of `sumo --help` as "
        "outputs/sumo-fcd-output.help.txt.",
        ["outputs/sumo-fcd-output.help.txt"],
    )
    assert _normal(library, establish, tmp_path / "l1")[1] == ["tool-sumo-fcd-output"]
    use = _task(
        "learn-002-simulation",
        "On a new 3 x 3 grid of 150 m blocks with random trips every 4 s until 200 s (seed 21), "
        "use `sumo` with `--fcd-output` to write outputs/practice-sumo-fcd-output.xml.",
        ["outputs/practice-sumo-fcd-output.xml"],
        grid="3", length="150", lanes="1", lights="no", period="4", end="200", seed="21",
    )  # fmt: skip
    episode, changed = _normal(library, use, tmp_path / "l2")
    assert episode.accepted and changed == ["use-sumo-fcd-output", "tool-sumo-fcd-output"]
    skill = library.skill("use-sumo-fcd-output")
    assert skill is not None and [s.name for s in skill.scripts] == ["run.py"]
    usage = skill.body.split("## Usage")[1]
    # General: kinds and names as placeholders, nothing of the episode's files or numbers.
    # (The task's seed goes to sumo's --seed too: an input binds the option of its name.)
    assert (
        "--net-file {net_xml} --route-files {rou_xml} --end {end} --seed {seed} --fcd-output {xml}"
    ) in usage
    assert "grid.net.xml" not in usage and "200" not in usage
    # The skill alone (procedural memory) does the held-out floating-car-data task.
    held_out = _held_out(library, "fcd-trace", tmp_path / "h", "procedural")
    assert held_out.verified and held_out.accepted, held_out.verification
    assert held_out.commands[0].command.startswith("python skills/use-sumo-fcd-output/")
    # Without the task's values nothing in memory makes the grid and the routes: the episode
    # is rejected, and what failed and why becomes a page, never a skill.
    fail = _task(
        "learn-003-simulation",
        "Use `sumo` with `--fcd-output` to write outputs/practice-sumo-fcd-output.xml.",
        ["outputs/practice-sumo-fcd-output.xml"],
    )
    episode, changed = _normal(library, fail, tmp_path / "l3")
    assert not episode.accepted and changed == ["lesson-practice-sumo-fcd-output"]
    lesson = library.page("lesson-practice-sumo-fcd-output")
    assert lesson is not None
    assert "outputs/practice-sumo-fcd-output.xml is missing" in lesson.body


def test_every_retry_sees_the_verdicts_of_every_earlier_attempt(tmp_path: Path) -> None:
    model = _model()
    seen: list[str] = []

    def act(request: Request) -> Step:
        text = request.messages[-1].text
        seen.append(text[text.index("## Feedback") :].split("\n\n")[0])
        return Step(action=StepKind.done)

    model.on("lab.act", act)
    agent, run = _agent(Library.create(tmp_path / "lib", SEED), tmp_path, "framework", model)
    task = _task("t", "Make outputs/x.xml.", ["outputs/x.xml"])
    episode = asyncio.run(solve_frozen(agent, task, run.path))
    assert episode.attempts == 3 and not episode.accepted
    last = seen[-1]
    assert "attempt 1, required outputs exist" in last and "attempt 1, critic:" in last
    assert "attempt 2, required outputs exist" in last and "attempt 2, critic:" in last


def test_a_flag_is_passed_only_when_the_task_asks_for_it_in_words() -> None:
    options = (
        Option("node-files", "in", "FILE", "n", "Read XML-node defs from FILE"),
        Option("edge-files", "in", "FILE", "e", "Read XML-edge defs from FILE"),
        Option("output-file", "out", "FILE", "o", "The generated net will be written to FILE"),
        Option("no-turnarounds", "flag", "", "", "Disables building turnarounds"),
    )
    tool = Tool("tool-netconvert", "netconvert", options, (), skill=False)
    given = ["outputs/town.nod.xml", "outputs/town.edg.xml"]
    asked = "Build it with netconvert, without turnarounds, as outputs/built.net.xml."
    call = compose(tool, ["outputs/built.net.xml"], given, [], {}, asked)
    assert call is not None and call.usage == (
        "netconvert --node-files outputs/town.nod.xml --edge-files outputs/town.edg.xml "
        "--no-turnarounds --output-file outputs/built.net.xml"
    )
    plain = compose(tool, ["outputs/built.net.xml"], given, [], {}, "Build it with netconvert.")
    assert plain is not None and "--no-turnarounds" not in plain.usage
    # A plain --output-file binds only for a task that names the tool.
    assert compose(tool, ["outputs/built.net.xml"], given, [], {}, "Build the net.") is None


def test_a_pipeline_is_not_chosen_when_a_step_must_run_inside_it() -> None:
    grid = Producer("create-grid-network", ("grid",), ("outputs/grid.net.xml",), "grid {grid}")
    tls = Producer("set-signal-cycle", ("outputs/grid.net.xml",), ("outputs/tls.add.xml",), "tls")
    sim = Producer(
        "run-simulation", ("outputs/grid.net.xml",), ("outputs/tripinfo.xml",), "simulate"
    )
    pipeline = Producer(
        "pipeline-tripinfo", ("grid",), ("outputs/grid.net.xml", "outputs/tripinfo.xml"), "all"
    )
    wanted = ["outputs/tripinfo.xml"]
    # Alone, the pipeline makes the trips in one command ...
    assert plan_steps([grid, sim, pipeline], wanted, set(), {"grid": "3"}) == [pipeline]
    # ... but a signal program made from its network must be in place before its simulation.
    steps = plan_steps(
        [grid, tls, sim, pipeline], [*wanted, "outputs/tls.add.xml"], set(), {"grid": "3"}
    )
    assert pipeline not in steps and steps[0] == grid and set(steps) == {grid, tls, sim}


def test_the_report_traces_each_gain_over_the_seed_to_the_learned_items_used() -> None:
    def row(condition: str, task: str, verified: bool, learned: str = "") -> dict[str, object]:
        return {"suite": "v2", "condition": condition, "task": task, "verified": verified,
                "learned_used": learned}  # fmt: skip

    rows = [
        row("seed", "od-trips", False),
        row("full", "od-trips", True, "tool-od2trips"),
        row("semantic", "od-trips", True, "tool-od2trips"),
        row("procedural", "od-trips", False),
        row("seed", "fcd-trace", False),
        row("full", "fcd-trace", False),
        row("seed", "grid", True),  # the seed does it already: no gain
        row("full", "grid", True, "pipeline-x"),
    ]
    assert gains(rows) == [
        {"suite": "v2", "task": "od-trips", "conditions": ["full", "semantic"],
         "learned": ["tool-od2trips"]}
    ]  # fmt: skip
    full = {"tier": 1, "category": "demand", "self_reported": False, "attempts": 1, "calls": 1,
            "tokens": 1, "wall_s": 0.1, "agreement": None, "cost_usd": None}  # fmt: skip
    html = report_html([{**r, **full, "accepted": r["verified"]} for r in rows], "scripted", "lib")
    assert "Gains over the seed" in html and "tool-od2trips" in html


@pytest.mark.sumo
@pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap (make install-dev)")
def test_the_junctions_a_task_names_are_read_from_its_network_and_bound(tmp_path: Path) -> None:
    library = Library.create(tmp_path / "lib", SEED)
    page = _establish(library, "netconvert", tmp_path / "learn")
    assert "- junctions --tls.set STR[]" in page.body
    assert "- light-type --tls.default-type STR" in page.body
    # Held out: "junctions J1, J2 and J3 ... actuated traffic lights". The policy reads the
    # network first (its junctions: E, J1, J2, J3, N1, ...; no lights yet), then binds the ids
    # the task names and the network holds, and the light type SUMO's schema lists.
    episode = _held_out(library, "actuated-signals", tmp_path / "held", "semantic")
    read, convert = [c.command for c in episode.commands]
    assert read.startswith("python -c ") and read.endswith(" outputs/town.net.xml")
    assert convert == (
        "netconvert --sumo-net-file outputs/town.net.xml --tls.set J1,J2,J3 "
        "--tls.default-type actuated --output-file outputs/actuated.net.xml"
    )
    assert episode.verified and episode.accepted, episode.verification
    # A use of netconvert on a grid (no junctions asked) becomes a skill whose usage is
    # general, but which lists the options a task's network binds: under full memory the
    # call composed from the skill, which beats the page's, binds the lights too.
    use = _task(
        "learn-002-network",
        "On a new 3 x 3 grid of 150 m blocks, use `netconvert` to write "
        "outputs/practice-netconvert.net.xml from it.",
        ["outputs/practice-netconvert.net.xml"],
        grid="3", length="150", lanes="1", lights="no",
    )  # fmt: skip
    assert _normal(library, use, tmp_path / "use")[1] == ["use-netconvert", "tool-netconvert"]
    skill = library.skill("use-netconvert")
    assert skill is not None and "--tls.set" not in skill.body.split("## Usage")[1]
    full = _held_out(library, "actuated-signals", tmp_path / "full", "full")
    assert full.commands[-1].command == (
        "python skills/use-netconvert/scripts/run.py --sumo-net-file outputs/town.net.xml "
        "--tls.set J1,J2,J3 --tls.default-type actuated --output-file outputs/actuated.net.xml"
    )
    assert full.verified, full.verification
