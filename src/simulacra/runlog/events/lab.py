"""The SUMO lab's events: sandboxed commands, attempts, episodes, memory changes, lints and
learning iterations."""

from __future__ import annotations

from dataclasses import dataclass, field

from simulacra.runlog.events.payload import Payload


@dataclass(frozen=True, kw_only=True)
class LabCommand(Payload):
    """A command the lab ran in its sandbox: the task, attempt and inner try, the exit code,
    the duration and the limit that stopped it, if one did."""

    KIND = "lab.command"
    task: str
    attempt: int
    inner: int
    command: str
    exit_code: int
    duration_s: float
    stopped: str | None = None


@dataclass(frozen=True, kw_only=True)
class LabAttempt(Payload):
    """One outer attempt: the checker's verdict and findings, the critic's decision (null
    without a critic), whether they agree, and whether the attempt was accepted."""

    KIND = "lab.attempt"
    task: str
    attempt: int
    inner_tries: int
    checker_passed: bool
    findings: list[str]
    critic: str | None
    agree: bool | None
    accepted: bool


@dataclass(frozen=True, kw_only=True)
class LabEpisode(Payload):
    """A task's episode: mode (learn or test), condition, attempts, acceptance, the agent's
    own claim of success, verify.py's verdict on a benchmark (else null), its cost, folder."""

    KIND = "lab.episode"
    task: str
    tier: int
    category: str
    mode: str
    condition: str
    attempts: int
    accepted: bool
    self_reported: bool
    verified: bool | None
    calls: int
    tokens: int
    wall_s: float
    folder: str
    skills: list[str] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class LabMemory(Payload):
    """A change of procedural or semantic memory: `new_skill`, `revised_skill`, `new_page`,
    `revised_page`, with the artifact's name and the library's commit."""

    KIND = "lab.memory"
    change: str
    name: str
    commit: str | None
    reason: str


@dataclass(frozen=True, kw_only=True)
class LabLint(Payload):
    """A memory lint: `full` or incremental, artifacts checked, repairs made, open findings."""

    KIND = "lab.lint"
    full: bool
    checked: int
    repairs: list[str]
    open: list[str]


@dataclass(frozen=True, kw_only=True)
class LabIteration(Payload):
    """The end of a learning iteration: its number, the task, whether memory changed, the
    iterations in a row without a change, and the library's commit (resume starts after it)."""

    KIND = "lab.iteration"
    iteration: int
    task: str
    changed: bool
    idle: int
    commit: str | None
