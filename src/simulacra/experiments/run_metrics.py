"""What a finished run measured, read back from its log in one pass: its budget, fallbacks
and memory, the diffusion of the fact it interviews about, and its world's own measures;
`summary` holds the headline figures."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from simulacra.engine import Clock
from simulacra.experiments.facts import aware_test, knows_by_words, knows_off, planting
from simulacra.experiments.kinds import binding_of
from simulacra.experiments.measures import MemoryTally, budget, diffusion, fallbacks
from simulacra.experiments.planted import planted_facts
from simulacra.experiments.scenario import Scenario
from simulacra.experiments.session import cast_names
from simulacra.memory import WITNESSED
from simulacra.runlog import Event, EventWriter, RunDir, history


def measure(
    run_dir: RunDir, scenario: Scenario, writer: EventWriter, clock: Clock
) -> dict[str, Any]:
    """Read the measures back from the log; `summary` holds the headline ones."""
    writer.flush()
    kind = binding_of(scenario)
    agents = len(kind.roster(scenario))
    # One pass over the log (a 1,000-agent day writes 170 MB): the calls are summed as they
    # are read (a 10,000-agent month logs 490,000 of them); what the measures read is kept
    # (the embodied world's read the calls too).
    wanted = {"run", "interview"} | kind.reads
    plan = scenario.interviews
    # An interview's answer is judged against what it rests on: the records of what its agent
    # saw or heard.
    # A planted fact's spread is read from the same records (experiments/planted.py).
    thoughts = any(item.type == "thought" for item in scenario.interventions)
    evidence = thoughts or (plan is not None and bool(plan.aware_when))
    events: list[Event] = []
    memory = MemoryTally(clock.calendar.start)
    models: set[str] = set()  # what answered, by the name each call logged

    def calls() -> Iterator[Event]:
        read = {"llm.call", "memory.add", "reflection", "retrieval"} | wanted
        for event in history(run_dir.path, read):  # a fork's: its parent's prefix too
            if event.kind in wanted:
                events.append(event)
            if event.kind == "llm.call":
                models.add(str(event.data.get("model", "")))
                yield event
            else:
                memory.add(event)
                if evidence and event.kind == "memory.add" and event.data["kind"] in WITNESSED:
                    events.append(event)

    spent = budget(calls(), agents, clock.ticks, clock.calendar.tick)
    days = len({t.date() for t in clock.calendar.times()})
    metrics: dict[str, Any] = {
        "budget": spent,
        "fallbacks": fallbacks(spent),
        "models": sorted(models - {""}),
        "memory": memory.result(agents * days),
    }
    if plan is not None and plan.aware_when:
        names = _names(events)
        test = aware_test(scenario, plan.aware_when, names, plan.off_when)
        groups, off = plan.aware_when, plan.off_when

        def told(text: str, speaker: str) -> bool:
            return knows_by_words(text, groups, names.get(speaker, speaker))

        def said_off(text: str) -> bool:
            return knows_off(text, off)

        planted = planting(scenario, groups, names)
        owner = planted.owner if planted is not None else None
        metrics["diffusion"] = diffusion(
            events, plan.question, test, told, owner, said_off if off else None
        )
    if thoughts:
        metrics["planted"] = planted_facts(scenario, events, _names(events))
    metrics |= kind.measures(events, scenario)
    summary = kind.headline(metrics)
    if metrics.get("diffusion"):
        last = metrics["diffusion"][-1]
        summary["aware_final"] = float(last["aware"])
        if "off" in last:  # who knows the fact is called off: apart from the aware
            summary["off_final"] = float(last["off"])
    summary["calls_per_agent_tick"] = spent["calls_per_agent_tick"]
    summary["fallback_rate"] = metrics["fallbacks"]["rate"]
    metrics["summary"] = summary
    return metrics


def _names(events: list[Event]) -> dict[str, str]:
    """Each agent's name, from the run's first event."""
    start = next((e for e in events if e.kind == "run"), None)
    return cast_names(start.data.get("agents", {}) if start is not None else {})
