"""A sweep's own budget (`sweep.budget`): runs start in waves of one per worker, and a wave
starts only as many runs as fit in what is left at the mean spend of the runs that finished
(the first wave, with nothing to go by, starts in full). A sweep that stops that way writes
its outputs for the runs it completed and is marked `stopped: budget`."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from simulacra.experiments.sweep_jobs import SweepJob
from simulacra.experiments.sweep_results import JobResult
from simulacra.llm.budget import Budget, Spent, reached
from simulacra.runlog import RunDir

Launch = Callable[[Sequence[SweepJob]], Iterator[JobResult]]


class Waves:
    """Runs `jobs` through `launch` within `budget`; `stopped` says why it stopped early."""

    def __init__(self, budget: Budget | None, jobs: Sequence[SweepJob], workers: int) -> None:
        self.budget = budget
        self.jobs = list(jobs)
        self.workers = workers
        self.spent: list[Spent] = []
        self.started = time.perf_counter()
        self.stopped: str | None = None

    def run(self, launch: Launch) -> Iterator[JobResult]:
        if self.budget is None:
            yield from launch(self.jobs)
            return
        left = self.jobs
        while left:
            room = self.room()
            if room == 0:
                total = self.total()
                self.stopped = reached(self.budget, total) or (
                    f"another run would pass the budget ({_said(self.budget)}; spent "
                    f"{total.calls:,} calls, {total.tokens:,} tokens)"
                )
                return
            wave, left = left[: min(room, self.workers)], left[min(room, self.workers) :]
            for result in launch(wave):
                self.spent.append(_spent_of(result))
                yield result

    def total(self) -> Spent:
        dollars = [s.dollars for s in self.spent if s.dollars is not None]
        return Spent(
            calls=sum(s.calls for s in self.spent),
            tokens=sum(s.tokens for s in self.spent),
            dollars=sum(dollars) if dollars else None,
            hours=(time.perf_counter() - self.started) / 3600,
        )

    def room(self) -> int:
        """How many more runs fit in the budget at the mean spend of those done so far."""
        assert self.budget is not None
        if not self.spent:
            return len(self.jobs)
        total, n = self.total(), len(self.spent)
        if reached(self.budget, total):
            return 0
        fits = []
        for limit, used in (
            (self.budget.calls, total.calls),
            (self.budget.tokens, total.tokens),
            (self.budget.dollars, total.dollars),
            (self.budget.hours, total.hours),
        ):
            if limit is None or used is None:
                continue
            per_run = used / n
            fits.append(math.floor((limit - used) / per_run) if per_run > 0 else len(self.jobs))
        return max(0, min(fits)) if fits else len(self.jobs)


def _spent_of(result: JobResult) -> Spent:
    """What a finished run spent, from its run.json (nothing for a run that never started)."""
    if not result.run:
        return Spent(0, 0, None, 0.0)
    found = RunDir(Path(result.run)).info().get("spent") or {}
    return Spent(
        int(found.get("calls") or 0),
        int(found.get("tokens") or 0),
        found.get("dollars"),
        float(found.get("hours") or 0.0),
    )


def _said(budget: Budget) -> str:
    limits = budget.model_dump(exclude_none=True)
    return ", ".join(f"{name} {value:,}" for name, value in limits.items())
