"""A finished run's log read once for the checks of `simulacra diagnose` and the chain of
`simulacra trace`: its events, each memory record by id, when records fell, who is who, and
the scenario's facts (the question bank's and the in-run interviews'), each with the thought
that planted it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from simulacra.errors import UserError
from simulacra.experiments.facts import Planting, knows_by_words, planting
from simulacra.experiments.load import load_scenario
from simulacra.experiments.scenario import Scenario
from simulacra.runlog import Event, RunDir, history

IN_RUN = "interviews"  # the name of the fact the scenario's in-run interviews ask about
_SHOWN = 160  # characters of an event's text a finding shows


class DiagnoseError(UserError, ValueError):
    """A run these tools cannot read (not finished, no such fact)."""


@dataclass(frozen=True)
class Line:
    """One event as a finding shows it: where it is in the log and what it says."""

    seq: int
    t: str | None
    kind: str
    agent: str | None
    what: str


@dataclass(frozen=True)
class FactWords:
    """A fact the run's interviews ask about: its question, its words and its planting."""

    name: str
    question: str
    groups: tuple[tuple[str, ...], ...]
    planted: Planting | None
    attendance: bool = False

    @property
    def label(self) -> str:
        """How a finding names it."""
        return "fact the interviews ask about" if self.name == IN_RUN else self.name


@dataclass
class RunLog:
    run_dir: RunDir
    scenario: Scenario
    events: list[Event]
    names: dict[str, str]
    records: dict[str, Event] = field(default_factory=dict)
    fell: dict[str, datetime] = field(default_factory=dict)  # record id -> invalidated at
    facts: dict[str, FactWords] = field(default_factory=dict)
    by_kind: dict[str, list[Event]] = field(default_factory=dict)
    corrections: frozenset[str] = frozenset()  # the texts of the run's corrections

    @classmethod
    def read(cls, path: str | Any) -> RunLog:
        run_dir = RunDir.open(path)
        if run_dir.info().get("status") != "completed":
            raise DiagnoseError(
                f"{run_dir.path} has not completed (status {run_dir.info().get('status')!r}); "
                f"finish it first: simulacra run --resume {run_dir.path}"
            )
        scenario = load_scenario(run_dir.config())
        events = list(history(run_dir.path))
        start = next((e for e in events if e.kind == "run"), None)
        agents = start.data.get("agents", {}) if start is not None else {}
        names = {a: str(info.get("name") or a) for a, info in agents.items()}
        found = cls(run_dir, scenario, events, names)
        for event in events:
            found.by_kind.setdefault(event.kind, []).append(event)
            if event.kind == "memory.add":
                found.records[str(event.data["id"])] = event
            elif event.kind == "memory.invalidate" and event.t is not None:
                for record in (event.data["id"], *event.data.get("invalidated", [])):
                    found.fell.setdefault(str(record), datetime.fromisoformat(event.t))
        found.facts = found._facts()
        found.corrections = frozenset(
            str(e.data.get("text"))
            for e in found.of({"intervention"})
            if e.data.get("type") == "correction"
        )
        return found

    def _facts(self) -> dict[str, FactWords]:
        facts: dict[str, FactWords] = {}
        bank = self.scenario.evaluation.questions
        for name, fact in (bank.facts if bank is not None else {}).items():
            groups = tuple(tuple(g) for g in fact.aware_when)
            planted = planting(self.scenario, groups, self.names)
            facts[name] = FactWords(name, fact.question, groups, planted, fact.attendance)
        plan = self.scenario.interviews
        asked = {f.question for f in facts.values()}
        if plan is not None and plan.aware_when and plan.question not in asked:
            groups = tuple(tuple(g) for g in plan.aware_when)
            planted = planting(self.scenario, groups, self.names)
            facts[IN_RUN] = FactWords(IN_RUN, plan.question, groups, planted)
        return facts

    # --- reading ---------------------------------------------------------------------------

    def of(self, kinds: Iterable[str], agent: str | None = None) -> list[Event]:
        """The events of these kinds (of one agent), in log order."""
        found = [e for kind in kinds for e in self.by_kind.get(kind, [])]
        found.sort(key=lambda e: e.seq)
        return [e for e in found if agent is None or e.agent == agent]

    def name(self, agent: str | None) -> str:
        return self.names.get(agent or "", agent or "someone")

    def text(self, record: str) -> str:
        event = self.records.get(record)
        return str(event.data.get("text", "")) if event is not None else ""

    def valid_at(self, record: str, t: datetime) -> bool:
        fell = self.fell.get(record)
        return fell is None or fell > t

    def corrected(self, agent: str, fact: FactWords) -> datetime | None:
        """When a correction told `agent` the fact no longer holds (its text names the fact),
        if one did."""
        for event in self.of({"intervention"}):
            data = event.data
            hearers = data.get("agents") or list(self.names)
            said = str(data.get("text", ""))
            if (
                data.get("type") == "correction"
                and agent in hearers
                and knows_by_words(said, fact.groups, "")
            ):
                return at(event)
        return None

    def states(self, record: Event, fact: FactWords) -> bool:
        """Whether a memory record states the fact by its words (a correction's, which names
        the fact to call it off, does not)."""
        text = str(record.data.get("text", ""))
        name = self.name(record.agent)
        return text not in self.corrections and knows_by_words(text, fact.groups, name)

    def holding(self, agent: str, fact: FactWords, by: datetime) -> list[Event]:
        """The agent's valid records by `by` that state the fact, by its words; none once a
        correction has told it the fact is off."""
        corrected = self.corrected(agent, fact)
        if corrected is not None and corrected <= by:
            return []
        return [
            e
            for e in self.of({"memory.add"}, agent)
            if at(e) <= by and self.valid_at(str(e.data["id"]), by) and self.states(e, fact)
        ]

    def line(self, event: Event, what: str | None = None) -> Line:
        return Line(event.seq, event.t, event.kind, event.agent, _short(what or _what(event)))

    def fact(self, name: str) -> FactWords:
        if name not in self.facts:
            known = ", ".join(self.facts) or "none (give the scenario evaluation.questions)"
            raise DiagnoseError(
                f"{self.run_dir.path.name} has no fact {name!r}; its facts: {known}"
            )
        return self.facts[name]


def at(event: Event) -> datetime:
    """The event's simulated time (the earliest time for an event without one)."""
    return datetime.fromisoformat(event.t) if event.t else datetime.min


def _what(event: Event) -> str:
    data = event.data
    for key in ("text", "answer", "query", "description", "topic"):
        if isinstance(data.get(key), str):
            prefix = f"{data['kind']}: " if event.kind == "memory.add" else ""
            return prefix + str(data[key])
    if event.kind == "plan":
        items = data.get("items", [])
        return f"{data.get('level')} plan: " + "; ".join(
            f"{str(i.get('start', ''))[11:16]} {i.get('description')} at {i.get('place')}"
            for i in items
        )
    if event.kind == "reflection":
        return "reflection: " + "; ".join(str(i.get("text")) for i in data.get("insights", []))
    return ", ".join(f"{k}={v}" for k, v in list(data.items())[:3])


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _SHOWN else flat[: _SHOWN - 1] + "…"


def lines(log: RunLog, events: Sequence[Event]) -> tuple[Line, ...]:
    return tuple(log.line(e) for e in events)
