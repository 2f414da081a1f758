"""The benchmark: every task of each suite in test mode under each condition, verified by
reproduction and the task's verify.py; results.json, results.csv and report.html in a run
folder (`results`).

The `seed` condition runs the full system on a library made from the seed alone, in the run
folder, so that what learning added to the library given is visible beside `full`.

A bench obeys `model.budget` after every task: one that reaches a limit writes the results of
the tasks it finished, ends `stopped: budget` and raises BudgetStopped; it does not resume.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from simulacra.core.budget import BudgetStopped, Meter, stop
from simulacra.lab.agent import Episode, LearningAgent
from simulacra.lab.config import LabConfig, condition
from simulacra.lab.episode import Attempt
from simulacra.lab.library import SEED, Library
from simulacra.lab.loop import agent_for, solve_frozen, started_event
from simulacra.lab.results import write_results
from simulacra.lab.tasks import SuiteTask, load_suite, suite_path
from simulacra.llm import Gateway
from simulacra.llm.budget import Price
from simulacra.llm.config import ModelConfig
from simulacra.runlog import RunDir
from simulacra.runlog.events import RunEnded

Progress = Callable[[str], None]
SEED_NAMES = frozenset(
    [p.name for p in (SEED / "skills").iterdir()] + [p.stem for p in (SEED / "pages").glob("*.md")]
)
_CALL = re.compile(r"#+ (?:Call|Usage)\s*```[^\n]*\n(.+?)\n```", re.S)
_OUT = re.compile(r"^- out --([\w.-]+)", re.M)


def describe(library: Library) -> str:
    return (
        f"{library.root}: {len(library.skills())} skills, {len(library.pages())} pages, "
        f"digest {library.digest()[:12]}"
    )


def run_bench(
    suites: Sequence[str | Path],
    conditions: Sequence[str],
    library: Library,
    model: Gateway,
    config: LabConfig,
    runs: Path,
    progress: Progress | None = None,
    limits: ModelConfig | None = None,
) -> RunDir:
    """`limits.price` prices every task and `limits.budget` (its dollars at that price) stops
    the bench."""
    limits = limits or ModelConfig()  # no budget: nothing to watch, no price: no dollars
    price = limits.price
    chosen = [condition(name) for name in conditions]
    loaded = {str(s): load_suite(s) for s in suites}
    memory = describe(library)
    extra = {
        "suites": [str(suite_path(s)) for s in suites],
        "conditions": list(conditions),
        "memory": memory,
        "price": None if price is None else price.model_dump(),
    }
    run = RunDir.create(
        runs,
        "lab-bench",
        seed=config.seed,
        model=model.name,
        config=config.model_dump(mode="json"),
        extra=extra,
    )
    writer = run.writer()
    writer.emit(started_event(model, "lab-bench", config, extra))
    rows: list[dict[str, Any]] = []
    seed_library: Library | None = None
    meter = Meter(run, limits, model)
    over_budget = meter.watch()
    tasks = len(chosen) * sum(len(t) for t in loaded.values())
    stopped: BudgetStopped | None = None
    try:
        for chosen_condition in chosen:
            if stopped is not None:
                break
            memory_for = library
            if chosen_condition.seed_only:
                seed_library = seed_library or Library.create(run.path / "seed-library", SEED)
                memory_for = seed_library
            agent = agent_for(memory_for, model, config, writer, chosen_condition.name, run)
            for suite, suite_tasks in loaded.items():
                for suite_task in suite_tasks:
                    if stopped is not None:
                        break
                    if progress is not None:
                        progress(
                            f"{Path(suite).name} {chosen_condition.name}: {suite_task.task.id}"
                        )
                    row = _row(agent, suite, suite_task, chosen_condition.name, run.path, price)
                    rows.append(row)
                    writer.flush()
                    limit = over_budget() if over_budget and len(rows) < tasks else None
                    if limit is not None:
                        again = "simulacra lab bench again (a bench starts from its first task)"
                        stopped = stop(run, writer, meter, limit, again)
        if stopped is None:
            writer.emit(RunEnded(status="completed"))
            writer.close()
            run.set_status("completed")
    except BaseException as exc:
        run.record_failure(writer, exc)
        raise
    seed_memory = describe(seed_library) if seed_library is not None else None
    write_results(run.path, rows, model.name, memory, seed_memory)
    if stopped is not None:
        raise stopped
    return run


def _row(
    agent: LearningAgent,
    suite: str,
    suite_task: SuiteTask,
    condition_name: str,
    out: Path,
    price: Price | None,
) -> dict[str, Any]:
    task = suite_task.task
    folder = out / "episodes" / Path(suite).name / condition_name
    episode = asyncio.run(solve_frozen(agent, task, folder, suite_task=suite_task))
    used = used_memory(agent.library, episode) if agent.library is not None else []
    spent = episode.spent
    cost = (
        price.cost(spent.prompt_tokens, spent.cached_prompt_tokens, spent.completion_tokens)
        if price
        else None
    )
    agreements = episode.agreements
    return {
        "suite": Path(suite).name,
        "condition": condition_name,
        "task": task.id,
        "tier": task.tier,
        "category": task.category.value,
        "verified": bool(episode.verified),
        # A free-text task's judge verdict, apart from `verified` (its reproduction's); the
        # scripted judge is a stand-in and says so.
        "judged": episode.judged,
        "judge": None if episode.judged is None else _judge_label(agent.model.name),
        "self_reported": episode.self_reported,
        "accepted": episode.accepted,
        "attempts": episode.attempts,
        "calls": spent.calls,
        "prompt_tokens": spent.prompt_tokens,
        "completion_tokens": spent.completion_tokens,
        "tokens": spent.tokens,
        "cost_usd": None if cost is None else round(cost, 6),
        "wall_s": round(episode.wall_s, 3),
        "agreement": round(sum(agreements) / len(agreements), 3) if agreements else None,
        "memory_used": "; ".join(used),
        "learned_used": "; ".join(n for n in used if n not in SEED_NAMES),
    }


def used_memory(library: Library, episode: Episode) -> list[str]:
    """The loaded skills and pages the final commands ran: a skill whose folder a command
    runs, a page whose call a command makes (with an output option the page names, if any)."""
    loaded = Attempt(episode.folder).read_json("retrieval.json") or {}
    commands = [c.command for c in episode.commands]
    found = []
    for name in loaded.get("loaded", []):
        if library.skill(name) is not None:
            if any(f"skills/{name}/" in c for c in commands):
                found.append(name)
            continue
        page = library.page(name)
        call = _CALL.search(page.body) if page is not None else None
        if page is None or call is None:
            continue
        prefix = re.split(r" --|\{| -", call.group(1).strip(), maxsplit=1)[0].strip()
        outs = _OUT.findall(page.body)
        if any(
            c.startswith(prefix + " ") and (not outs or any(f"--{o}" in c for o in outs))
            for c in commands
        ):
            found.append(name)
    return found


def _judge_label(model: str) -> str:
    return "scripted judge (a stand-in)" if model == "scripted" else model
