"""`simulacra evaluate RUN`: the interview study, its ranking and the emergent measures of a
finished run, written to <run>/eval.json (and the report's evaluation section).

Every condition answers from one copy of the run's memories at the chosen time, with
retrieval that records no access, so the conditions differ only in what they may use.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import tempfile
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

from simulacra.embed import build_embedder
from simulacra.experiments.evaluate.answers import (
    Answer,
    answer_items,
    check_answers,
    embellishment,
    summary_of,
)
from simulacra.experiments.evaluate.emergent import day_ends, emergent
from simulacra.experiments.evaluate.items import Participants, interview_items
from simulacra.experiments.evaluate.judging import Ranking, blinded, judge_items
from simulacra.experiments.evaluate.memory_at import copy_memory_at, interviewees, memory_texts
from simulacra.experiments.evaluate.progress import Steps, quiet
from simulacra.experiments.evaluate.published import PUBLISHED
from simulacra.experiments.evaluate.ratings import agreement, people_rankings, rate
from simulacra.experiments.kinds import binding_of
from simulacra.experiments.load import load_scenario
from simulacra.experiments.models import load_run_model
from simulacra.experiments.questions import QuestionBank
from simulacra.experiments.scenario import Scenario
from simulacra.llm import Gateway
from simulacra.report import read_json_object, render_rating_page
from simulacra.report.rating_page import RATING_HTML
from simulacra.runlog import RunDir, history

EVAL_JSON = "eval.json"


def evaluate(
    path: str | Path,
    overrides: Sequence[str] = (),
    *,
    model: Gateway | None = None,
    judge: Gateway | None = None,
    steps: Steps = quiet,
) -> Path:
    """Evaluate a finished run; returns the path of eval.json. `model` and `judge` replace the
    run's model and the judge (tests pass scripted ones); `steps` shows progress."""
    run_dir = RunDir.open(path)
    scenario = load_scenario(run_dir.config(), list(overrides))
    plan = scenario.evaluation
    if plan.questions is None:
        raise ValueError(
            f"{run_dir.path.name} has no question bank: pass --set "
            "evaluation.questions=scenarios/town/questions.yaml (or add `evaluation: questions:` "
            "to the scenario)"
        )
    kind = binding_of(scenario)
    conditions = list(plan.conditions or kind.ablations)
    labels = conditions + list(plan.models)
    if not 2 <= len(labels) <= 6:
        raise ValueError(
            f"evaluation: {len(labels)} conditions ({', '.join(labels)}); a ranking takes 2 to 6"
        )
    events = list(history(run_dir.path, {"run", "world", "memory.add", "conversation"}))
    ticks = [datetime.fromisoformat(e.t) for e in events if e.kind == "world" and e.t]
    at = scenario.when(plan.at) if plan.at is not None else ticks[-1]
    start = next(e for e in events if e.kind == "run")
    cast = Participants.of(start.data.get("agents", {}))
    agents = plan.agents or kind.roster(scenario)

    gateway = model or load_run_model(scenario)
    judged_by = judge or (_load(scenario, plan.judge) if plan.judge else gateway)
    extra = {label: _load(scenario, spec) for label, spec in plan.models.items()}
    embedder = build_embedder(scenario.memory.embedder)
    bank: QuestionBank = plan.questions
    items = interview_items(bank, cast, agents, events, at, plan.seed, plan.per_category)
    calls: dict[str, int] = {}
    answers: list[Answer] = []
    summaries: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="simulacra-evaluate-") as scratch:
        memory = Path(scratch) / "memory-at.sqlite"
        copy_memory_at(run_dir, at, memory)
        for label in labels:
            gw = extra.get(label, gateway)
            ablation = label if label in conditions else kind.ablations[0]
            with (
                interviewees(scenario, memory, gw, embedder, ablation) as minds,
                _counting(gw, calls, f"answer:{label}"),
            ):
                minds = {a: m for a, m in minds.items() if a in agents}
                summaries = summaries or {a: summary_of(m) for a, m in minds.items()}
                steps.start(f"answers: {label}", len(items))
                answers += asyncio.run(answer_items(minds, items, at, label, steps.advance))
        # What each item's agent remembers that bears on the question: the memories its
        # answers drew on, under any condition (the judge weighs answers against them).
        cited = memory_texts(memory, {i for a in answers for i in a.memory_ids})
        recalled: dict[str, list[str]] = {item.id: [] for item in items}
        for a in answers:
            mine = recalled[a.item]
            mine += [cited[i] for i in a.memory_ids if i in cited and cited[i] not in mine]
        steps.start("fact checks", len(answers))
        with _counting(judged_by, calls, "judge.check"):
            answers = asyncio.run(
                check_answers(judged_by, answers, summaries, memory, steps.advance)
            )
    by_key = {(a.item, a.condition): a for a in answers}
    steps.start("rankings", len(items) * plan.judges)
    with _counting(judged_by, calls, "judge.rank"):
        rankings = asyncio.run(
            judge_items(
                judged_by,
                items,
                by_key,
                labels,
                summaries,
                judges=plan.judges,
                seed=plan.seed,
                step=steps.advance,
                memories=recalled,
            )
        )
    found: dict[str, Any] = {
        "run": run_dir.path.name,
        "model": gateway.name,
        "judge": judged_by.name,
        "scripted": gateway.name == "scripted" or judged_by.name == "scripted",
        "at": at.isoformat(),
        "conditions": labels,
        "seed": plan.seed,
        "bootstrap": plan.bootstrap,
        "items": [asdict(i) for i in items],
        "answers": [asdict(a) for a in answers],
        "rankings": [asdict(r) for r in rankings],
        "rating_key": rating_key(items, labels, plan.seed),
        "embellishment": embellishment(answers),
        "published": PUBLISHED,
    }
    if plan.social:
        times = [scenario.when(t) for t in plan.times] if plan.times else day_ends(ticks)
        with ExitStack() as counted:
            # Acquaintance and facts asked of the minds; the judge's verdicts, if it is apart.
            counted.enter_context(_counting(gateway, calls, "social"))
            if judged_by is not gateway:
                counted.enter_context(_counting(judged_by, calls, "judge.aware"))
            found |= emergent(
                run_dir,
                scenario,
                gateway,
                judged_by,
                embedder,
                bank,
                cast,
                agents,
                times,
                events,
                steps,
            )
    found["calls"] = calls
    steps.start("ratings (TrueSkill and its bootstrap)", 1)
    found |= ratings_of(found, [])
    steps.advance()
    out = run_dir.path / EVAL_JSON
    out.write_text(json.dumps(found, indent=1, ensure_ascii=False), encoding="utf-8")
    return out


def merge_ratings(path: str | Path, ratings_file: Path) -> Path:
    """Merge a person's rankings (saved from the rating page) into the run's eval.json."""
    out = RunDir.open(path).path / EVAL_JSON
    if not out.exists():
        raise FileNotFoundError(f"{out} does not exist: run `simulacra evaluate` on the run first")
    found = json.loads(out.read_text(encoding="utf-8"))
    saved = read_json_object(ratings_file, "save it again from the rating page")
    people = people_rankings(saved, found["rating_key"])
    kept = [p for p in found.get("people", []) if p["rater"] != people[0].rater] if people else []
    found["people"] = kept + [asdict(p) for p in people]
    found |= ratings_of(found, found["people"])
    out.write_text(json.dumps(found, indent=1, ensure_ascii=False), encoding="utf-8")
    return out


def ratings_of(
    found: Mapping[str, Any], people_rows: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """TrueSkill for the judge, for people and for both, and their agreement."""
    judge = [
        Ranking(r["item"], r["rater"], tuple(r["order"]), r["fallback"]) for r in found["rankings"]
    ]
    people = [Ranking(r["item"], r["rater"], tuple(r["order"])) for r in people_rows]
    labels, boot, seed = found["conditions"], found["bootstrap"], found["seed"]
    sources = (
        {"judge": judge, "people": people, "all": judge + people} if people else {"judge": judge}
    )
    return {
        "ratings": {
            name: [asdict(r) for r in rate(rows, labels, boot, seed)]
            for name, rows in sources.items()
            if rows
        },
        "agreement": agreement(people, judge) if people else None,
    }


def rating_key(items: Sequence[Any], labels: Sequence[str], seed: int) -> dict[str, str]:
    """A blinded id for each answer: what the rating page shows and a person's file names."""
    key = {}
    for item in items:
        for label in labels:
            digest = hashlib.blake2b(f"{seed}|{item.id}|{label}".encode(), digest_size=5)
            key[digest.hexdigest()] = f"{item.id}\t{label}"
    return key


def write_rating_page(path: str | Path) -> Path:
    """rating.html beside eval.json: every item's answers, blinded, in a seeded order."""
    run = RunDir.open(path).path
    found = json.loads((run / EVAL_JSON).read_text(encoding="utf-8"))
    keys = {v: k for k, v in found["rating_key"].items()}
    texts = {(a["item"], a["condition"]): a["text"] for a in found["answers"]}
    items = [
        {
            **{k: item[k] for k in ("agent", "category", "question")},
            "item": item["id"],
            "answers": [
                {"key": keys[f"{item['id']}\t{c}"], "text": texts[(item["id"], c)]}
                for c in blinded(item["id"], found["conditions"], found["seed"], "page")
            ],
        }
        for item in found["items"]
    ]
    return render_rating_page(run / RATING_HTML, found["run"], items)


# --- inside ---------------------------------------------------------------------------------


def _load(scenario: Scenario, spec: str) -> Gateway:
    return load_run_model(scenario, spec=spec)


class _counting:
    """Counts the model calls made inside the block into calls[label]."""

    def __init__(self, model: Gateway, calls: dict[str, int], label: str) -> None:
        self.model, self.calls, self.label = model, calls, label

    def __enter__(self) -> None:
        self.before = self.model.ledger.total.calls

    def __exit__(self, *_: object) -> None:
        spent = self.model.ledger.total.calls - self.before
        self.calls[self.label] = self.calls.get(self.label, 0) + spent
