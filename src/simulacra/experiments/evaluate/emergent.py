"""The two-day run read for emergent behaviour, the source's second evaluation: who knows whom
at set times (density as the source counts it), how far each planted fact spread, and the
coordination around each fact.

A fact's diffusion starts when it is planted (`facts.planting`): the first point is that
moment, then each probe time after it; the fact's owner counts as aware from the moment it
holds the fact, as the source's curve starts at its host. Each other agent's answer is judged
against the fact itself by the judge model (`mind.judge.judge_aware`), through the gateway;
the keyword test is its declared fallback, and the scripted model's stand-in (it answers
with the fallback). eval.json names the method. As in the run's interviews, an answer judged
aware counts only where one of the records it rests on that the agent saw or heard holds the
fact's words (`heard`): the source checked its interviews against the memory stream.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from simulacra.embed import Embedder
from simulacra.experiments.evaluate.items import Participants
from simulacra.experiments.evaluate.judge import judge_aware
from simulacra.experiments.evaluate.memory_at import copy_memory_at, interviewees
from simulacra.experiments.evaluate.progress import Steps
from simulacra.experiments.evaluate.social import (
    acquaintances,
    answers_to,
    coordination,
    coordination_summary,
    density,
    directed_density,
    mutual,
)
from simulacra.experiments.facts import Planting, awareness_method, knows_by_words, planting
from simulacra.experiments.kinds import binding_of
from simulacra.experiments.questions import Fact, QuestionBank
from simulacra.experiments.scenario import Scenario
from simulacra.llm import Gateway
from simulacra.runlog import Event, RunDir


async def judged(
    judge: Gateway,
    fact: Fact,
    planted: Planting | None,
    names: Mapping[str, str],
    said: Mapping[str, str],
    item: str,
) -> tuple[dict[str, dict[str, bool]], int]:
    """Each answer's verdict (`by_words`, `judged`) and how many judge calls fell back."""
    text = planted.text if planted else " / ".join(" or ".join(g) for g in fact.aware_when)
    owner = names.get(planted.owner, planted.owner) if planted else "someone"

    async def one(agent: str, answer: str) -> tuple[str, dict[str, bool], bool]:
        name = names.get(agent, agent)
        words = knows_by_words(answer, fact.aware_when, name)
        verdict, fell_back = await judge_aware(
            judge, text, owner, name, fact.question, answer, by_words=words, item=f"{item}|{agent}"
        )
        return agent, {"by_words": words, "judged": verdict}, fell_back

    found = await asyncio.gather(*(one(a, s) for a, s in said.items()))
    return {a: v for a, v, _ in found}, sum(f for _, _, f in found)


def fact_times(planted: Planting | None, times: Sequence[datetime]) -> list[datetime]:
    """When a fact is probed: the moment it is planted, then each time after it."""
    if planted is None:
        return list(times)
    return [planted.at, *(t for t in times if t > planted.at)]


def emergent(
    run_dir: RunDir,
    scenario: Scenario,
    model: Gateway,
    judge: Gateway,
    embedder: Embedder,
    bank: QuestionBank,
    cast: Participants,
    agents: Sequence[str],
    times: Sequence[datetime],
    events: Sequence[Event],
    steps: Steps,
) -> dict[str, Any]:
    """The emergent section of eval.json."""
    kind = binding_of(scenario)
    planted = {name: planting(scenario, f.aware_when, cast.names) for name, f in bank.facts.items()}
    probes = {name: fact_times(planted[name], times) for name in bank.facts}
    density_rows: list[dict[str, Any]] = []
    diffusion: dict[str, list[dict[str, Any]]] = {f: [] for f in bank.facts}
    fallbacks = 0
    for t in sorted({*times, *(t for ts in probes.values() for t in ts)}):
        asked = [name for name in bank.facts if t in probes[name]]
        with tempfile.TemporaryDirectory(prefix="simulacra-evaluate-") as scratch:
            memory = Path(scratch) / "memory-at.sqlite"
            copy_memory_at(run_dir, t, memory)
            condition = kind.ablations[0] if kind.ablations else None
            with interviewees(scenario, memory, model, embedder, condition) as minds:
                minds = {a: m for a, m in minds.items() if a in agents}
                n = len(minds)
                pairs = n * (n - 1) if t in times else 0
                steps.start(f"acquaintance and facts at {t:%a %H:%M}", pairs + n * len(asked))
                if t in times:
                    knows = asyncio.run(
                        acquaintances(minds, cast.names, bank.acquaintance, t, steps.advance)
                    )
                    density_rows.append(
                        {
                            "t": t.isoformat(),
                            "density": round(density(list(minds), knows), 4),
                            "directed_density": round(directed_density(list(minds), knows), 4),
                            "pairs": [list(e) for e in mutual(knows)],
                            "edges": [list(e) for e in knows],
                        }
                    )
                for name in asked:
                    fact = bank.facts[name]
                    replies = asyncio.run(answers_to(minds, fact.question, t, steps.advance))
                    said = {a: r.answer for a, r in replies.items()}
                    verdicts, fell = asyncio.run(
                        judged(judge, fact, planted[name], cast.names, said, f"{name}|{t}")
                    )
                    for agent, reply in replies.items():  # checked against the memory stream
                        who = cast.names.get(agent, agent)
                        verdicts[agent]["heard"] = any(
                            knows_by_words(e, fact.aware_when, who) for e in reply.evidence
                        )
                    fallbacks += fell
                    diffusion[name].append(_point(t, n, said, verdicts, planted[name]))
    metrics_path = run_dir.path / "metrics.json"
    metrics = json.loads(metrics_path.read_text(encoding="utf-8")) if metrics_path.exists() else {}
    came = (metrics.get("attendance") or {}).get("attended")
    coordinated = {}
    for name, fact in bank.facts.items():
        seed = planted.get(name)
        rows = coordination(events, fact, came, seed.owner if seed is not None else None)
        coordinated[name] = {"rows": rows, "summary": coordination_summary(rows)}
    return {
        "acquaintance": density_rows,
        "diffusion": diffusion,
        "diffusion_method": awareness_method(judge.name, fallbacks),
        "planted": {
            name: None if p is None else {"owner": p.owner, "at": p.at.isoformat(), "text": p.text}
            for name, p in planted.items()
        },
        "coordination": coordinated,
    }


def _point(
    t: datetime,
    n: int,
    said: Mapping[str, str],
    verdicts: Mapping[str, Mapping[str, bool]],
    planted: Planting | None,
) -> dict[str, Any]:
    owner = planted.owner if planted is not None and planted.at <= t else None
    aware = [a for a in said if a == owner or (verdicts[a]["judged"] and verdicts[a]["heard"])]
    return {
        "t": t.isoformat(),
        "aware": len(aware),
        "share": round(len(aware) / n, 4) if n else 0.0,
        "agents": aware,
        "owner": owner,
        "answers": dict(said),
        "verdicts": {a: dict(v) for a, v in verdicts.items()},
    }


def day_ends(ticks: Sequence[datetime]) -> list[datetime]:
    """The first tick, then each simulated day's last tick."""
    ends = [
        t
        for t, nxt in zip(ticks, [*ticks[1:], None], strict=True)
        if nxt is None or nxt.date() != t.date()
    ]
    return sorted({ticks[0], *ends})
