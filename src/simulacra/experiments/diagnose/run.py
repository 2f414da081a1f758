"""`simulacra diagnose RUN`: the source's seven failure modes checked on a finished run, each
finding with the events that show it, written to <run>/diagnose.json (and the report).

Whether an interview answer denies a fact is the one question the log cannot answer: the
judge model answers it through the gateway (the run's model unless another is named), the
keyword test standing in where a call fails, as in `simulacra evaluate`.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from simulacra.experiments.diagnose.checks import Checked, check_all, interview_facts
from simulacra.experiments.diagnose.log import FactWords, RunLog, at
from simulacra.experiments.evaluate.judge import judge_aware
from simulacra.experiments.facts import awareness_method, knows_by_words
from simulacra.experiments.kinds import binding_of
from simulacra.experiments.models import load_run_model
from simulacra.llm import Gateway
from simulacra.runlog import Event

DIAGNOSE_JSON = "diagnose.json"


def diagnose(path: str | Path, *, model: Gateway | None = None, spec: str | None = None) -> Path:
    """Check a finished run; returns the path of diagnose.json. `model` (or a model `spec`)
    judges interview answers; default: the run's model."""
    log = RunLog.read(path)
    judge = model or load_run_model(log.scenario, **({"spec": spec} if spec else {}))
    aware, fallbacks = asyncio.run(_judge(log, judge))
    agents = len(binding_of(log.scenario).roster(log.scenario))
    checked = check_all(log, aware, agents)
    found = {
        "run": log.run_dir.path.name,
        "judge": judge.name,
        "aware_method": awareness_method(judge.name, fallbacks),
        "modes": [_mode(c) for c in checked],
    }
    out = log.run_dir.path / DIAGNOSE_JSON
    out.write_text(json.dumps(found, indent=1, ensure_ascii=False), encoding="utf-8")
    return out


async def _judge(log: RunLog, judge: Gateway) -> tuple[dict[int, bool], int]:
    """Each interview about a fact its agent held, judged aware or not; and the fallbacks."""
    asked = [
        (event, fact)
        for event, fact in interview_facts(log)
        if event.agent and log.holding(event.agent, fact, at(event))
    ]

    async def one(event: Event, fact: FactWords) -> tuple[int, bool, bool]:
        name = log.name(event.agent)
        answer = str(event.data.get("answer", ""))
        planted = fact.planted
        verdict, fell = await judge_aware(
            judge,
            planted.text if planted else " / ".join(" or ".join(g) for g in fact.groups),
            log.name(planted.owner) if planted else "someone",
            name,
            fact.question,
            answer,
            by_words=knows_by_words(answer, fact.groups, name),
            item=f"diagnose|{event.seq}",
        )
        return event.seq, verdict, fell

    found = await asyncio.gather(*(one(e, f) for e, f in asked))
    return {seq: verdict for seq, verdict, _ in found}, sum(f for _, _, f in found)


def _mode(checked: Checked) -> dict[str, Any]:
    return {
        **asdict(checked.mode),
        "status": checked.status,
        "looked": checked.looked,
        "findings": [asdict(f) for f in checked.findings],
    }
