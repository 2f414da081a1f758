"""A pilot for the estimate: a real run of a scenario's first ticks in a scratch folder, and
its model calls summed per purpose family and per tick (interviews apart). A pilot answered
by the fallback rather than the model is refused: it would estimate the fallback."""

from __future__ import annotations

import bisect
import json
import logging
import shutil
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from simulacra.errors import UserError
from simulacra.experiments.kinds import binding_of
from simulacra.experiments.load import load_scenario
from simulacra.experiments.pipeline import RunFailed, TooManyFallbacks, run
from simulacra.experiments.scenario import Scenario
from simulacra.runlog import Event, read_events

INTERVIEW = "interview"  # the purpose family whose calls follow the interview times


class PilotRefused(UserError):
    """The model pilot's calls were mostly answered by the fallback: nothing to learn from."""


@dataclass
class Sums:
    calls: float = 0.0
    prompt: float = 0.0
    completion: float = 0.0
    cached: float = 0.0

    def add(self, event: Event) -> None:
        self.calls += 1
        self.prompt += number(event.data.get("prompt_tokens"))
        self.completion += number(event.data.get("completion_tokens"))
        self.cached += number(event.data.get("cached_prompt_tokens"))


@dataclass(frozen=True)
class Pilot:
    """A pilot's calls: per purpose family, per tick (interviews apart), and its wall time."""

    ticks: int
    per_tick: dict[str, list[Sums]]  # family -> one entry per tick (interviews excluded)
    interviews: dict[str, Sums]  # family -> totals of interview calls
    interview_times: int
    wall_s: float
    first_s: float  # from the start to the first tick's end: loading, then the first tick
    samples: dict[str, list[tuple[float, float]]]  # family -> each call's prompt, completion
    at_tick: dict[str, list[tuple[int, float]]]  # purpose -> each call's tick and prompt tokens
    # The events the world's binding reads (`pilot_reads`: the town's plans, the embodied
    # agents' progress).
    world: list[Event] = field(default_factory=list)

    def families(self) -> set[str]:
        return set(self.per_tick) | set(self.interviews)

    def total(self, family: str) -> Sums:
        found = Sums()
        for tick in [*self.per_tick.get(family, []), self.interviews.get(family, Sums())]:
            found.calls += tick.calls
            found.prompt += tick.prompt
            found.completion += tick.completion
            found.cached += tick.cached
        return found


def run_pilot(
    scenario: Scenario, spec: str, ticks: int, times: Sequence[datetime], folder: Path
) -> Pilot:
    """Run the scenario's first `ticks` ticks on `spec` in `folder`; sum its calls."""
    sets = [
        f"model.spec={json.dumps(spec)}",
        "model.budget=",
        f"clock.ticks={ticks}",
        "clock.duration=",
        f"output.root={folder}",
        "output.report=false",
        "output.frames=false",
    ]
    quiet = logging.getLogger("simulacra")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # the pilot's clock leaves later interventions out: say nothing
    try:
        short = load_scenario(scenario, sets)
        ends: list[float] = []
        warning = ""
        started = time.perf_counter()
        try:
            run_dir = run(
                short, progress=False, on_progress=lambda _: ends.append(time.perf_counter())
            )
        except TooManyFallbacks as exc:  # the calls were made all the same: count them
            warning, run_dir = str(exc), exc.run_dir
        except RunFailed as exc:  # its own advice (resume a scratch run) would mislead here
            raise PilotRefused(
                f"no estimate for {spec}: its pilot stopped: {exc.__cause__}"
            ) from exc
        wall = time.perf_counter() - started
    finally:
        quiet.setLevel(level)
    # One pass over the pilot's log: its calls, and what the world's binding reads.
    reads = binding_of(scenario).pilot_reads
    read = list(read_events(run_dir.events_path, {"llm.call", *reads}))
    calls = [e for e in read if e.kind == "llm.call"]
    if calls and all(c.data.get("fallback") for c in calls):
        warning = f"all {len(calls)} of its model calls failed"
    if warning:
        # Fallback answers are the rule's, not the model's: their counts would estimate a run
        # of the fallback (a dead endpoint gives a table of zero tokens).
        raise PilotRefused(
            f"no estimate for {spec}: its pilot was answered by the declared fallback, not the"
            f" model ({warning}). Fix the model first; `simulacra models check` tests it."
        )
    per_tick: dict[str, list[Sums]] = defaultdict(lambda: [Sums() for _ in range(ticks)])
    interviews: dict[str, Sums] = defaultdict(Sums)
    samples: dict[str, list[tuple[float, float]]] = defaultdict(list)
    at_tick: dict[str, list[tuple[int, float]]] = defaultdict(list)
    asked: set[str] = set()
    starts = list(times)
    for event in calls:
        family = family_of(str(event.data.get("purpose") or "-"))
        if family == INTERVIEW:
            interviews[family].add(event)
            asked.add(str(event.t))
            continue
        at = bisect.bisect_right(starts, datetime.fromisoformat(str(event.t))) - 1
        index = min(ticks - 1, max(0, at))
        per_tick[family][index].add(event)
        samples[family].append(
            (number(event.data.get("prompt_tokens")), number(event.data.get("completion_tokens")))
        )
        at_tick[str(event.data.get("purpose"))].append(
            (index, number(event.data.get("prompt_tokens")))
        )
    first = (ends[0] if ends else started + wall) - started
    found = (dict(per_tick), dict(interviews), len(asked), wall, first, dict(samples))
    world = [e for e in read if e.kind in reads]
    return Pilot(ticks, *found, dict(at_tick), world)


def family_of(purpose: str) -> str:
    """A purpose's family, what the estimate counts by: `converse.turn` -> `converse`."""
    return purpose.split(".")[0]


def at(pilot: Pilot, family: str, tick: int) -> Sums:
    series = pilot.per_tick.get(family, [])
    return series[tick] if tick < len(series) else Sums()


def merge(into: Sums, other: Sums) -> None:
    into.calls += other.calls
    into.prompt += other.prompt
    into.completion += other.completion
    into.cached += other.cached


def triple(s: Sums) -> tuple[float, float, float]:
    return (s.calls, s.prompt, s.completion)


def number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


@contextmanager
def scratch(work: Path | None) -> Iterator[Path]:
    if work is not None:
        work.mkdir(parents=True, exist_ok=True)
        yield work
        return
    folder = Path(tempfile.mkdtemp(prefix="simulacra-estimate-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
