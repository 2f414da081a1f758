"""The scripted policy's answers to each `lab.*` purpose, and its practice tasks.

To act it chains the skills and the pages' tool calls it loaded (`chains`), one command a step
of the action loop; it reports the claim lines the skills print; as critic it accepts an
attempt whose commands all succeeded, whose required outputs exist and whose report makes a
checkable claim that its artifact gives; it consolidates by rule
(`memory`). It proposes practice tasks by coverage and tier.
"""

from __future__ import annotations

import re

from simulacra.lab.claims import Claim, Measure, number
from simulacra.lab.episode import Report
from simulacra.lab.prompts import (
    CriticVerdict,
    Decision,
    InputValue,
    JudgeVerdict,
    ProposedTask,
    Selection,
    Step,
    StepKind,
)
from simulacra.lab.scripted.chains import (
    bullets,
    fill,
    inputs_of,
    plan_steps,
    section,
    skills,
    tool_calls,
    user,
)
from simulacra.lab.scripted.memory import consolidate
from simulacra.lab.tasks import Category
from simulacra.llm import Request, ScriptedModel

_CLAIM = re.compile(r"^claim (\w+)=(\S+) artifact=(\S+) measure=(\w+)(.*)$", re.M)

# Practice tasks the scripted curriculum proposes: (category, tier, text, inputs, outputs).
# None is a suite task or a variant of one: no practice task's required outputs equal, hold
# or are held by a suite task's, and no text matches one (tests/lab/test_suites.py checks).
PRACTICE: tuple[tuple[Category, int, str, dict[str, str], list[str]], ...] = (
    (Category.simulation, 1,
     "Build a {grid} x {grid} grid with {length} m blocks, make random trips every {period} s "
     "until {end} s (seed {seed}), simulate them and deliver the run's statistics and summary.",
     {"grid": "5", "length": "120", "lanes": "1", "lights": "no", "period": "4", "end": "800",
      "seed": "11"}, ["outputs/statistics.xml", "outputs/summary.xml"]),
    (Category.signals, 2,
     "On a signalised {grid} x {grid} grid with {length} m blocks, run every light on a {cycle} s "
     "cycle and simulate random trips every {period} s until {end} s (seed {seed}); deliver the "
     "program and the run's statistics.",
     {"grid": "3", "length": "180", "lanes": "1", "lights": "yes", "cycle": "75", "period": "3",
      "end": "900", "seed": "12"}, ["outputs/tls.add.xml", "outputs/statistics.xml"]),
    (Category.demand, 2,
     "Make random trips every {period} s until {end} s (seed {seed}) on a new {grid} x {grid} "
     "grid of {length} m blocks, drive them in SUMO, and keep the trip information and the "
     "summary of the run.",
     {"grid": "4", "length": "160", "lanes": "1", "lights": "no", "period": "2", "end": "700",
      "seed": "13"}, ["outputs/tripinfo.xml", "outputs/summary.xml"]),
    (Category.analysis, 3,
     "Drive random trips (every {period} s until {end} s, seed {seed}) through a {grid} x {grid} "
     "grid of {length} m blocks; summarise the trips and plot the vehicles running.",
     {"grid": "3", "length": "220", "lanes": "1", "lights": "no", "period": "3", "end": "1000",
      "seed": "14"}, ["outputs/metrics.json", "outputs/running.png"]),
    (Category.analysis, 3,
     "Summarise the trips of a run on a {grid} x {grid} grid ({length} m, trips every {period} s "
     "until {end} s, seed {seed}) and keep the run's step summary.",
     {"grid": "4", "length": "140", "lanes": "1", "lights": "no", "period": "2.5", "end": "1100",
      "seed": "15"}, ["outputs/metrics.json", "outputs/summary.xml"]),
    (Category.signals, 3,
     "On a signalised {grid} x {grid} grid of {length} m blocks with trips every {period} s until "
     "{end} s (seed {seed}), compare cycles of {cycles} s and plot the vehicles running.",
     {"grid": "3", "length": "200", "lanes": "1", "lights": "yes", "cycles": "45,75",
      "period": "3", "end": "1200", "seed": "16"},
     ["outputs/comparison.json", "outputs/running.png"]),
)  # fmt: skip


def _act(request: Request) -> Step:
    """One step: the first command of the chain that makes what is still missing; done when
    nothing is missing, or when that command already ran and succeeded (it cannot do more)."""
    text = user(request)
    required = bullets(section(text, "Required outputs"))
    present = set(bullets(section(text, "Files already in the attempt")))
    inputs = inputs_of(text)
    producers = skills(section(text, "Skills loaded")) + tool_calls(section(text, "Pages loaded"))
    steps = plan_steps(producers, required, present, inputs)
    commands = [c for c in (fill(s.usage, inputs) for s in steps) if c is not None]
    succeeded = set(re.findall(r"^\$ (.+)\n-> exit 0$", section(text, "Steps so far"), re.M))
    if not commands or commands[0] in succeeded:
        return Step(action=StepKind.done, note="the chain in memory has run")
    return Step(action=StepKind.run, command=commands[0], note=f"{len(commands)} to go")


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
    if section(text, "Claims").strip() == "none":
        reasons.append("the report makes no checkable claim")
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


def _curriculum(request: Request) -> ProposedTask:
    text = user(request)
    coverage = re.findall(r"^- (\w+): (\d+) attempted, (\d+) accepted", text, re.M)
    accepted = sum(int(a) for _, _, a in coverage)
    tier = min(4, 1 + accepted // 2)
    counts = {c: int(a) for c, _, a in coverage}
    options = [p for p in PRACTICE if p[1] <= tier] or list(PRACTICE[:1])
    top = max(p[1] for p in options)
    options = [p for p in options if p[1] == top]
    category, level, template, inputs, outputs = min(
        options,
        key=lambda p: (
            counts.get(p[0].value, 0),
            (PRACTICE.index(p) + request.seed) % len(PRACTICE),
        ),
    )
    return ProposedTask(
        category=category,
        tier=level,
        text=template.format(**inputs),
        inputs=[InputValue(name=k, value=v) for k, v in inputs.items()],
        required_outputs=outputs,
    )


def _select(request: Request) -> Selection:
    """Every skill and page offered: the act rule uses what applies and ignores the rest."""
    names = re.findall(r"^- (?:skill|page) (\S+) \(score", user(request), re.M)
    return Selection(load=names)


def script_lab(model: ScriptedModel) -> ScriptedModel:
    """Register the scripted policy's answers for every `lab.*` purpose on `model`."""
    model.on("lab.curriculum", _curriculum)
    model.on("lab.select", _select)
    model.on("lab.act", _act)
    model.on("lab.report", _report)
    model.on("lab.critic", _critic)
    model.on("lab.judge", _judge)
    model.on("lab.consolidate", consolidate)
    return model
