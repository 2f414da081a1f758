"""A run's budget at work: the engine asks after every tick (the lab after every learning
iteration or benchmark task) whether a limit of `model.budget` is reached; a run that reaches
one stops there (the engine with a checkpoint), its status `stopped: budget` with the limit
and what was spent, and resumes with a raised budget.

Wall time is counted over every session of a run (run.json keeps what earlier ones spent),
and only at boundaries, so calls, tokens and dollars stop a run at the same tick on every
machine and only the hours budget depends on the machine's speed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from simulacra.errors import UserError
from simulacra.llm import Gateway
from simulacra.llm.accounting import Tally
from simulacra.llm.budget import Spent, reached, spent
from simulacra.llm.config import ModelConfig
from simulacra.runlog import Event, EventWriter, RunDir
from simulacra.runlog.events import ModelCall, RunEnded

STOPPED = "stopped: budget"
RESUMABLE = ("model.budget", "model.price")
WALL = "wall_s"  # run.json: wall-clock seconds the run's earlier sessions spent


class OverBudget(UserError):
    """A run or a sweep that stopped because of its budget (the command exits 3)."""


class BudgetStopped(OverBudget):
    """A run that stopped at the end of a tick because it reached a limit of its budget."""

    def __init__(self, message: str, run_dir: RunDir, limit: str, spend: Spent) -> None:
        super().__init__(message)
        self.run_dir = run_dir
        self.limit = limit
        self.spent = spend


class Meter:
    """What a run has spent, its calls and tokens from the model's ledger and its wall time
    from the start of this session plus what earlier sessions spent."""

    def __init__(self, run_dir: RunDir, config: ModelConfig, model: Gateway) -> None:
        self.config = config
        self.model = model
        self.earlier_s = float(run_dir.info().get(WALL) or 0.0)
        self.started = time.perf_counter()

    def wall_s(self) -> float:
        return self.earlier_s + time.perf_counter() - self.started

    def spent(self) -> Spent:
        return spent(self.model.ledger.total, self.config.price, self.wall_s())

    def watch(self) -> Callable[[], str | None] | None:
        """The engine's question after each tick: which limit is reached, if any."""
        budget = self.config.budget
        if budget is None:
            return None
        return lambda: reached(budget, self.spent())


def resume_overrides(overrides: Sequence[str]) -> list[str]:
    """`overrides` for a resumed run, which may change its budget and price and nothing else
    (anything else would make its log differ from the one it started)."""
    for override in overrides:
        key = override.partition("=")[0].strip()
        if not any(key == field or key.startswith(field + ".") for field in RESUMABLE):
            raise UserError(
                f'--set "{override}": settings other than model.budget and model.price do not '
                "apply to --resume: a run continues with the configuration it started with"
            )
    return list(overrides)


def logged_tally(events: Iterable[Event]) -> Tally:
    """What a log's model calls spent: a session that resumes from the log alone (the lab
    keeps no checkpoint of its ledger) starts its ledger here."""
    tally = Tally()
    for event in events:
        if event.kind == ModelCall.KIND:
            data = event.data
            tally.calls += 1
            tally.prompt_tokens += int(data.get("prompt_tokens", 0))
            tally.completion_tokens += int(data.get("completion_tokens", 0))
            tally.cached_prompt_tokens += int(data.get("cached_prompt_tokens", 0))
    return tally


def stop(
    run_dir: RunDir, writer: EventWriter, meter: Meter, limit: str, resume: str | None = None
) -> BudgetStopped:
    """Close the log and mark the run stopped by its budget; the error to raise. `resume`
    is the command that continues it (`simulacra run --resume RUN` by default)."""
    spend = meter.spent()
    command = resume or f"simulacra run --resume {run_dir.path}"
    where = " at a tick's end, with a checkpoint" if resume is None else ""
    writer.emit(RunEnded(status=STOPPED, error=limit))
    writer.close()
    run_dir.set_status(
        STOPPED,
        error=limit,
        spent=spend.as_dict(),
        budget=meter.config.budget.model_dump() if meter.config.budget else None,
        **{WALL: round(meter.wall_s(), 3)},
    )
    return BudgetStopped(
        f"run {run_dir.path} {STOPPED} ({limit}){where}; to go on, raise the limit: "
        f"{command} --set model.budget.{limit.split(':')[0]}=...",
        run_dir,
        limit,
        spend,
    )
