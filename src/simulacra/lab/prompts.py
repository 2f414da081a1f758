"""The lab's prompts, each with its output model and declared fallback.

The purposes: `lab.curriculum` (the next task), `lab.select` (which retrieved candidates to
load in full), `lab.act` (the next step of the action loop), `lab.report` (what was done,
with claims), `lab.critic` (a verdict in a fresh context), `lab.judge` (a free-text task's
verdict from its record alone) and `lab.consolidate` (what memory to write).
Categorical answers are enums in the models, so constrained decoding enforces them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from simulacra.lab.episode import Report
from simulacra.lab.front import Name
from simulacra.lab.tasks import Category
from simulacra.llm import MaxChars

Line = Annotated[str, MaxChars(400)]
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Prompt(Generic[M]):
    """One purpose's prompt as data: the system text, the output model, its fallback and the
    answer's token cap. The user message is rendered by `views`."""

    purpose: str
    system: str
    output: type[M]
    fallback: M
    max_tokens: int


class Premise(StrEnum):
    extends = "extends"  # builds on skills the library has
    fills_gap = "fills_gap"  # covers a workflow area the library lacks
    characterizes = "characterizes"  # tests or validates a capability


class InputValue(BaseModel):
    name: Annotated[str, MaxChars(40)]
    value: Annotated[str, MaxChars(80)]


class ProposedTask(BaseModel):
    """The curriculum's next task. Claiming that SUMO lacks a capability needs evidence."""

    model_config = ConfigDict(extra="forbid")

    category: Category
    tier: int = Field(ge=1, le=4)
    text: Annotated[str, MaxChars(600)] = Field(min_length=10)
    inputs: list[InputValue] = Field(default_factory=list, max_length=12)
    required_outputs: list[Annotated[str, MaxChars(120)]] = Field(min_length=1, max_length=8)
    premise: Premise = Premise.extends
    sumo_lacks_capability: bool = False
    evidence: Annotated[str, MaxChars(400)] = ""

    @model_validator(mode="after")
    def _evidence_for_absence(self) -> ProposedTask:
        if self.sumo_lacks_capability and not self.evidence.strip():
            raise ValueError(
                "sumo_lacks_capability needs evidence: a command run or a documented limit; "
                "missing memory does not show that SUMO lacks a capability"
            )
        return self


CURRICULUM_FALLBACK = ProposedTask(
    category=Category.network,
    tier=1,
    text="Build a 3 x 3 grid road network with 200 m blocks as outputs/grid.net.xml.",
    inputs=[
        InputValue(name="grid", value="3"),
        InputValue(name="length", value="200"),
        InputValue(name="lanes", value="1"),
        InputValue(name="lights", value="no"),
    ],
    required_outputs=["outputs/grid.net.xml"],
)


class Selection(BaseModel):
    """Which candidates to load in full, by name."""

    load: list[Annotated[str, MaxChars(64)]] = Field(default_factory=list, max_length=10)


SELECT_FALLBACK = Selection(load=[])


class Language(StrEnum):
    python = "python"
    bash = "bash"


class ScriptFile(BaseModel):
    path: Annotated[str, MaxChars(120)] = Field(description="under scripts/, e.g. scripts/a.py")
    language: Language
    content: Annotated[str, MaxChars(8000)]


class StepKind(StrEnum):
    run = "run"  # run one shell command in the attempt folder and see its output
    write = "write"  # write one file (a script under scripts/, or an input under outputs/)
    done = "done"  # every required output is made: end the loop


class Step(BaseModel):
    """One step of the action loop: run a command, write a file, or say it is done. The
    harness runs it and shows its output before the next step is asked for."""

    model_config = ConfigDict(extra="forbid")

    action: StepKind
    command: Line = Field(default="", description="for run: one bash command line")
    path: Annotated[str, MaxChars(120)] = Field(
        default="", description="for write: a path under scripts/ or outputs/"
    )
    content: Annotated[str, MaxChars(8000)] = Field(default="", description="for write")
    note: Annotated[str, MaxChars(300)] = Field(default="", description="why this step")

    @model_validator(mode="after")
    def _complete(self) -> Step:
        if self.action is StepKind.run and not self.command.strip():
            raise ValueError("a run step needs its command")
        if self.action is StepKind.write and not self.path.strip():
            raise ValueError("a write step needs its path")
        return self


ACT_FALLBACK = Step(action=StepKind.done, note="(fallback: no valid step)")
REPORT_FALLBACK = Report(summary="(fallback: no valid report)", success=False)


class Decision(StrEnum):
    accept = "accept"
    revise = "revise"


class CriticVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    decision: Decision
    reasons: list[Annotated[str, MaxChars(200)]] = Field(default_factory=list, max_length=6)
    feedback: Annotated[str, MaxChars(600)] = Field(
        default="", description="what the next attempt must do differently"
    )
    rerun: bool = Field(
        default=False,
        description="ask the harness to replay the recorded commands before deciding",
    )


CRITIC_FALLBACK = CriticVerdict(decision=Decision.revise, reasons=["(fallback: no verdict)"])


class JudgeVerdict(BaseModel):
    """A context-free judge's verdict on an episode, from its record alone."""

    model_config = ConfigDict(extra="forbid")

    passed: bool
    reasons: list[Annotated[str, MaxChars(200)]] = Field(default_factory=list, max_length=6)


JUDGE_FALLBACK = JudgeVerdict(passed=False, reasons=["(fallback: no verdict)"])


class MemoryAction(StrEnum):
    none = "none"
    new_skill = "new_skill"
    new_page = "new_page"
    both = "both"


class SkillDraft(BaseModel):
    name: Name
    description: Annotated[str, MaxChars(1024)] = Field(min_length=1)
    tags: list[Annotated[str, MaxChars(40)]] = Field(default_factory=list, max_length=8)
    inputs: list[Annotated[str, MaxChars(120)]] = Field(default_factory=list, max_length=16)
    outputs: list[Annotated[str, MaxChars(120)]] = Field(default_factory=list, max_length=16)
    links: list[Annotated[str, MaxChars(64)]] = Field(default_factory=list, max_length=12)
    usage: Line = Field(description="the command line, with {parameter} placeholders")
    body: Annotated[str, MaxChars(3000)] = ""
    scripts: list[ScriptFile] = Field(default_factory=list, max_length=6)
    supersedes: list[Annotated[str, MaxChars(64)]] = Field(
        default_factory=list, max_length=6, description="skills this one makes redundant"
    )


class PageDraft(BaseModel):
    name: Name
    title: Annotated[str, MaxChars(200)] = Field(min_length=1)
    summary: Annotated[str, MaxChars(1024)] = Field(min_length=1)
    keywords: list[Annotated[str, MaxChars(40)]] = Field(default_factory=list, max_length=12)
    body: Annotated[str, MaxChars(4000)] = ""
    supersedes: list[Annotated[str, MaxChars(64)]] = Field(
        default_factory=list, max_length=6, description="pages this one makes redundant"
    )


class Consolidation(BaseModel):
    """What the episode adds to memory; `none` when it gives no reusable evidence."""

    model_config = ConfigDict(extra="forbid")

    action: MemoryAction
    skill: SkillDraft | None = None
    page: PageDraft | None = None
    reason: Annotated[str, MaxChars(300)] = ""


CONSOLIDATE_FALLBACK = Consolidation(action=MemoryAction.none, reason="(fallback)")

CURRICULUM_SYSTEM = """\
You propose the next task for an agent that is learning to use the SUMO traffic simulator.
Prefer novel tasks, stages of the workflow and tools of the installed SUMO with little \
coverage, and a difficulty (tier 1-4) one step above what the agent already does reliably. \
Establish a capability (run the tool, read its --help) before a task assumes it; learn from \
why episodes failed. Missing memory does not show that SUMO lacks a capability: set \
sumo_lacks_capability only with evidence. Required outputs are paths under outputs/; never \
repeat a task. Answer with one JSON object."""

SELECT_SYSTEM = """\
You choose which skills and pages to load in full for a SUMO task, from their metadata. \
Load only what the task needs (at most 10). Answer with one JSON object: {"load": [names]}."""

ACT_SYSTEM = """\
You solve a SUMO traffic-simulation task one step at a time. Each step either runs one bash \
command in the attempt folder (offline, with SUMO's tools on the PATH: sumo, netgenerate, \
netconvert, duarouter, od2trips; $SUMO_HOME/tools has randomTrips.py and routeSampler.py; \
python with sumolib and traci), or writes one file under scripts/ or outputs/, or says done. \
You see each step's exit code and output before the next: read a given file or a tool's \
--help first when you need to, and fix what fails. Loaded skills are copied into \
skills/<name>/; their usage lines show how to call them. Write every artifact under outputs/. \
Say done only when every required output exists. Answer with one JSON object: \
{"action": "run"|"write"|"done", "command", "path", "content", "note"}."""

REPORT_SYSTEM = """\
You report on a SUMO task you ran. State whether every required output was produced, and \
give each figure you found as a claim: name, value, artifact (a path under outputs/), and \
measure (how the value is computed from the artifact). Counts and ids must be exact. Every \
number in your summary and limitations must be one of your claims or a number of the task. \
Answer with one JSON object."""

CRITIC_SYSTEM = """\
You are an independent critic of a SUMO task attempt. Judge only from the evidence shown: \
did every command succeed, does every required output exist, do the report's claims follow \
from the artifacts, are there silent failures (no vehicles, teleports, unrouted trips)? \
Answer with one JSON object: {"decision": "accept" or "revise", "reasons", "feedback"}."""

JUDGE_SYSTEM = """\
You are an independent judge of a finished SUMO traffic-simulation task. You see only its \
record: the task as given, the commands that ran, the outputs' contents and the report. \
Decide whether the task as written was done: every part it asks for delivered, the numbers \
reported backed by the outputs, no silent failure. Do not trust the report's own success. \
Answer with one JSON object: {"passed": true or false, "reasons": [...]}."""

CONSOLIDATE_SYSTEM = """\
You maintain the memory of an agent that learns SUMO. Write a new skill (instructions plus \
scripts that run, its parameters general, not this episode's values) or a page of knowledge \
only when the episode gives reusable evidence that memory lacks; otherwise answer "none". A \
rejected episode proves no procedure: write no skill, but a page of what failed and why, from \
the findings, the critic's feedback and the logs. Name in `supersedes` what the new one makes \
redundant. Answer with one JSON object."""

CURRICULUM = Prompt("lab.curriculum", CURRICULUM_SYSTEM, ProposedTask, CURRICULUM_FALLBACK, 1500)
SELECT = Prompt("lab.select", SELECT_SYSTEM, Selection, SELECT_FALLBACK, 200)
ACT = Prompt("lab.act", ACT_SYSTEM, Step, ACT_FALLBACK, 3000)
REPORT = Prompt("lab.report", REPORT_SYSTEM, Report, REPORT_FALLBACK, 1500)
CRITIC = Prompt("lab.critic", CRITIC_SYSTEM, CriticVerdict, CRITIC_FALLBACK, 600)
JUDGE = Prompt("lab.judge", JUDGE_SYSTEM, JudgeVerdict, JUDGE_FALLBACK, 600)
CONSOLIDATE = Prompt(
    "lab.consolidate", CONSOLIDATE_SYSTEM, Consolidation, CONSOLIDATE_FALLBACK, 1500
)
