"""The scripted policy's answers to each `lab.*` purpose.

To act it chains the skills and the pages' tool calls it loaded (`chains`) and the calls it
composes from the options a page or a skill lists (`compose`), one command a step of the action
loop; with nothing to compose from it runs the `--help` a task names. It reports the claim
lines the skills print; as critic it accepts an attempt whose commands all succeeded, whose
required outputs exist, whose claims agree with their artifacts and, where the task asks for
figures (a JSON or CSV output), whose report makes a checkable claim; it consolidates by rule
(`memory`, `tool_memory`) and proposes tasks by coverage (`curriculum`).
"""

from __future__ import annotations

import re

from simulacra.lab.claims import Claim, Measure, number
from simulacra.lab.episode import Report
from simulacra.lab.prompts import (
    CriticVerdict,
    Decision,
    JudgeVerdict,
    Selection,
    Step,
    StepKind,
)
from simulacra.lab.scripted.chains import (
    applies,
    bullets,
    fill,
    inputs_of,
    plan_steps,
    section,
    skills,
    tool_calls,
    user,
)
from simulacra.lab.scripted.compose import compose, tools
from simulacra.lab.scripted.curriculum import propose
from simulacra.lab.scripted.junctions import asks, listing, read_command
from simulacra.lab.scripted.memory import consolidate
from simulacra.llm import Request, ScriptedModel

_HELP = re.compile(r"`([^`]+ --help)`")
_CLAIM = re.compile(r"^claim (\w+)=(\S+) artifact=(\S+) measure=(\w+)(.*)$", re.M)


def _act(request: Request) -> Step:
    """One step: the first command of the chain that makes what is still missing (else the
    `--help` the task names); done when there is none, or when that command already ran and
    succeeded (it cannot do more). Where a loaded tool takes junction ids and the task speaks
    of junctions or lights, the given network is read first (`junctions`)."""
    text = user(request)
    seen = section(text, "Steps so far")
    required = bullets(section(text, "Required outputs"))
    present = bullets(section(text, "Files already in the attempt"))
    inputs = inputs_of(text)
    loaded, pages = section(text, "Skills loaded"), section(text, "Pages loaded")
    producers = skills(loaded) + tool_calls(pages)
    # What the loaded skills and recorded tool calls can make is there to bind, too.
    makeable = [o for p in producers if applies(p, inputs) for o in p.outputs]
    task = section(text, "Task")
    loaded_tools = tools(loaded, "skill") + tools(pages, "page")
    takes_ids = any(o.role == "junctions" for t in loaded_tools for o in t.options)
    given = [p for p in present if p.endswith(".net.xml") and p not in required]
    unread = [p for p in given if listing(seen, p) is None]
    if takes_ids and asks(task) and unread:
        return Step(action=StepKind.run, command=read_command(unread[0]), note="read the network")
    for tool in loaded_tools:
        composed = compose(tool, required, present, makeable, inputs, task, seen)
        if composed is not None:
            producers.append(composed)
    steps = plan_steps(producers, required, set(present), inputs)
    commands = [c for c in (fill(s.usage, inputs) for s in steps) if c is not None]
    commands = commands or _ask_for_help(text, required)
    succeeded = set(re.findall(r"^\$ (.+)\n-> exit 0$", seen, re.M))
    if not commands or commands[0] in succeeded:
        return Step(action=StepKind.done, note="the chain in memory has run")
    return Step(action=StepKind.run, command=commands[0], note=f"{len(commands)} to go")


def _ask_for_help(text: str, required: list[str]) -> list[str]:
    """With nothing in memory to compose from, what any newcomer to a tool does: run the
    `--help` the task names into the text output it asks for."""
    asked = _HELP.findall(section(text, "Task"))
    targets = [r for r in required if r.endswith(".txt")]
    return [f"{asked[0]} > {targets[0]}"] if asked and targets else []


def _report(request: Request) -> Report:
    text = user(request)
    claims = []
    for name, value, artifact, measure, rest in _CLAIM.findall(section(text, "Command results")):
        extra = dict(part.split("=", 1) for part in rest.split() if "=" in part)
        claims.append(
            Claim(
                name=name,
                value=value if number(value) is None else float(value),
                artifact=artifact,
                measure=Measure(measure),
                element=extra.get("element"),
                attribute=extra.get("attribute"),
                key=extra.get("key"),
            )
        )
    made = set(bullets(section(text, "Outputs")))
    required = bullets(section(text, "Required outputs"))
    done = bool(required) and all(r in made for r in required)  # free text: it cannot tell
    # Figures belong in claims, where the checker recomputes them: the prose states none.
    summary = (
        "Ran the skills' commands; every required output was produced."
        if done
        else "Ran the skills' commands; some required outputs are missing."
    )
    return Report(summary=summary, success=done, claims=claims[:20])


def _critic(request: Request) -> CriticVerdict:
    text = user(request)
    reasons = []
    failed = [
        line
        for line in section(text, "Commands").splitlines()
        if line.startswith("-> ") and not line.startswith("-> exit 0 ")
    ]
    if failed:
        reasons.append(f"{len(failed)} command(s) failed")
    sizes = dict(re.findall(r"^- (\S+) \((\d+) bytes\)", section(text, "Outputs"), re.M))
    for required in bullets(section(text, "Required outputs")):
        if int(sizes.get(required, "0")) == 0:
            reasons.append(f"{required} is missing or empty")
    figures = any(r.endswith((".json", ".csv")) for r in bullets(section(text, "Required outputs")))
    if figures and section(text, "Claims").strip() == "none":
        reasons.append("the task asks for figures and the report makes no checkable claim")
    beside = section(text, "Claims beside the artifacts").splitlines()
    wrong = [line[2:].split(";")[0] for line in beside if line.endswith(": disagrees")]
    if wrong:
        reasons.append(f"claims their artifacts do not give: {', '.join(wrong[:3])}")
    if reasons:
        return CriticVerdict(decision=Decision.revise, reasons=reasons, feedback="; ".join(reasons))
    return CriticVerdict(decision=Decision.accept, reasons=["commands, outputs and claims agree"])


def _judge(request: Request) -> JudgeVerdict:
    """The scripted judge (a stand-in, labelled so): the final try's commands succeeded, every
    path the task names exists, something was delivered, and every claim is what its artifact
    gives. It cannot tell a fabrication from work: reproduction is reported beside it."""
    text = user(request)
    reasons = []
    states = re.findall(r"^-> (.*)$", section(text, "Commands of the final try"), re.M)
    if not states or any(not s.startswith("exit 0 ") for s in states):
        reasons.append("no command ran, or one failed")
    missing = re.findall(r"^- (\S+): missing$", section(text, "Paths the task names"), re.M)
    if missing:
        reasons.append(f"missing: {', '.join(missing)}")
    if not re.search(r"^### outputs/", section(text, "Output contents"), re.M):
        reasons.append("nothing delivered")
    beside = section(text, "Claims beside the artifacts").splitlines()
    if any(line.endswith(": disagrees") or "cannot be computed" in line for line in beside):
        reasons.append("a claim its artifact does not give")
    return JudgeVerdict(passed=not reasons, reasons=reasons or ["done as the record shows"])


def _select(request: Request) -> Selection:
    """Every skill and page offered: the act rule uses what applies and ignores the rest."""
    names = re.findall(r"^- (?:skill|page) (\S+) \(score", user(request), re.M)
    return Selection(load=names)


def script_lab(model: ScriptedModel) -> ScriptedModel:
    """Register the scripted policy's answers for every `lab.*` purpose on `model`."""
    model.on("lab.curriculum", propose)
    model.on("lab.select", _select)
    model.on("lab.act", _act)
    model.on("lab.report", _report)
    model.on("lab.critic", _critic)
    model.on("lab.judge", _judge)
    model.on("lab.consolidate", consolidate)
    return model
