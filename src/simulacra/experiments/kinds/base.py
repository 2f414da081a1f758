"""What the run pipeline needs of a world kind: the binding of one world to the minds that
live in it.

A world knows its space and rules; a mind knows how to think. A `Binding` is the one place
that knows both: it checks a scenario's sections against each other, builds the world and a
mind per agent, arms the scripted model with the world's responders, and reads the world's
measures back from the log.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from simulacra.core import Mind, World, derived_seed
from simulacra.embed import Embedder, build_embedder
from simulacra.engine import EventRouter
from simulacra.experiments.kinds.measuring import Measures
from simulacra.experiments.kinds.settings import MindSettings
from simulacra.experiments.scenario import Scenario
from simulacra.llm import Gateway, ScriptedModel
from simulacra.memory import MemoryStream, ReflectionConfig
from simulacra.memory.store import Store
from simulacra.report.per_world import WorldReport
from simulacra.runlog import Event

# What a mind may be asked beyond deciding: take a thought, hold a conversation, answer an
# interview, take a correction. A scenario that needs one its minds lack is refused.
Ability = str
THINK, TALK, INTERVIEW, CORRECT = "think", "talk", "interview", "correct"


def agent_seed(run_seed: int, agent_id: str) -> int:
    """Each agent's own seed, fixed by the run's seed and its id."""
    return derived_seed(run_seed, agent_id)


@dataclass
class Services:
    """What minds are built with: the run's model, its event router (None when a mind is
    built only to be interviewed), the memory database and one shared embedder."""

    model: Gateway
    router: EventRouter | None
    memory_db: Path | None
    scenario: Scenario
    workdir: Path | None = None  # the run's directory, for worlds that write files
    record_access: bool = True  # False: retrieval leaves the saved memories as they are
    _embedder: Embedder | None = None
    _store: Store | None = None
    streams: list[MemoryStream] = field(default_factory=list)

    def embedder(self) -> Embedder:
        # One embedder (and one text cache) for every agent: they observe the same sentences.
        if self._embedder is None:
            self._embedder = build_embedder(self.scenario.memory.embedder)
        return self._embedder

    def close(self) -> None:
        for stream in self.streams:
            stream.close()
        self.streams = []
        if self._store is not None:
            self._store.close()
            self._store = None

    def sink(self, agent: str) -> Any:
        return None if self.router is None else self.router.sink(agent)

    def stream(self, agent: str, scenario: Scenario, importance: Any = None) -> MemoryStream:
        """An agent's memory stream in the run's database, under the scenario's settings."""
        assert self.memory_db is not None, "a memory stream needs the run's memory database"
        if self._store is None:
            self._store = Store(self.memory_db, shared=True)
        stream = MemoryStream(
            agent,
            self.embedder(),
            self._store,
            model=self.model,
            importance=scenario.memory.importance if importance is None else importance,
            sink=self.sink(agent),
            seed=agent_seed(scenario.seed, agent),
            record_access=self.record_access,
            rating_batch=scenario.memory.rating_batch,
            reflection=ReflectionConfig(threshold=scenario.memory.reflect_at),
        )
        self.streams.append(stream)
        return stream

    def flush(self) -> None:
        """Commit every record written so far (a checkpoint then copies the database)."""
        for stream in self.streams:
            stream.flush(commit=False)
        if self._store is not None:
            self._store.commit()


@dataclass
class Cast:
    """A world and the minds of its agents, in roster order, and the services they were
    built with (whose memory streams are flushed before a checkpoint and closed at the end)."""

    world: World
    minds: dict[str, Mind]
    services: Services
    closers: list[Callable[[], None]] = field(default_factory=list)

    def on_close(self, close: Callable[[], None]) -> None:
        """Release something the world holds (a renderer) when the run ends."""
        self.closers.append(close)

    def flush(self) -> None:
        self.services.flush()

    def close(self) -> None:
        for close in self.closers:
            close()
        self.closers = []
        self.services.close()


class Binding(MindSettings, Measures):
    """One world kind's binding, in three parts: its minds' settings (MindSettings, in
    settings.py), its measures and sweep signature (Measures, in measuring.py), and here
    what needs world and minds together: validating a scenario across its sections,
    building the cast, arming the scripted model, and the world's report. Subclasses fill in
    the class attributes and methods."""

    changes: ClassVar[str] = ""  # what an `event` intervention's `change` holds; "" if none
    # Whether an agent's episode may end before the clock does (it then decides no more), so
    # that a pilot of the first ticks can only bound what the run spends.
    finishes: ClassVar[bool] = False
    # Settings the world reads as it runs, not built into its state at the start, so that a
    # fork may change them from its fork point on (experiments/fork_plan.py).
    forkable: ClassVar[tuple[str, ...]] = ()
    # The events of an estimate's pilot that `occasions` and `decisions` read, beside its
    # model calls (experiments/estimate.py).
    pilot_reads: ClassVar[frozenset[str]] = frozenset()

    def occasions(self, events: Sequence[Event], times: Sequence[datetime]) -> list[bool]:
        """Whether each tick falls where the pilot's log says calls come once per occasion,
        not once per tick (the town: the hour after two agents meet by their plans); the
        estimate counts those ticks as a stratum apart. None by default."""
        return [False] * len(times)

    def decisions(self, events: Sequence[Event], ticks: int) -> tuple[int, float] | None:
        """For a world that `finishes`: the decisions its agents made in the pilot and those
        its log's progress says the run will take (at most one per agent and tick of the
        `ticks`), for the estimate's point value; None: unknown, the run's length stands."""
        return None

    def report(self) -> WorldReport:
        """What this world adds to its runs' report, viewer, frames and sweep page: `REPORT` in
        the `report` module beside the binding (kinds/<world>/report.py), imported on first
        use so that running a world loads none of its plotting; none there, nothing added."""
        name = f"{type(self).__module__}.report"
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as missing:
            if missing.name != name:
                raise
            return WorldReport(self.name)
        found = module.REPORT
        assert isinstance(found, WorldReport), f"{name}.REPORT is not a WorldReport"
        return found

    def roster(self, scenario: Scenario) -> list[str]:
        """The ids of the agents taking part, in order."""
        raise NotImplementedError

    def console_choices(self, scenario: Scenario) -> dict[str, Any]:
        """What a live console offers beside the agents, in the world's words (the town: its
        places and each place's objects); none by default."""
        return {}

    def takes_visitors(self, scenario: Scenario) -> bool:
        """Whether a person may join the run as a visitor (experiments/console.py)."""
        return False

    def check(self, scenario: Scenario) -> list[str]:
        """Faults between sections, each "scenario.<path>: <what is wrong>"."""
        return []

    def abilities(self, scenario: Scenario) -> set[Ability]:
        raise NotImplementedError

    def resolve(self, scenario: Scenario) -> Scenario:
        """The scenario with what its world derives from other fields filled in (the commute
        scales agents.mix to agents.count); unchanged by default."""
        return scenario

    def trim(self, scenario: Scenario, last: datetime) -> tuple[Scenario, list[str]]:
        """The scenario without what its world section sets after the last tick (`last`),
        and each item left out, in words (experiments/trim.py does the other sections)."""
        return scenario, []

    def build(self, scenario: Scenario, services: Services) -> Cast:
        raise NotImplementedError

    def agents_info(self, cast: Cast) -> dict[str, dict[str, Any]]:
        """Each agent as the run's first event and the viewer present it."""
        found: dict[str, dict[str, Any]] = {}
        for agent, mind in cast.minds.items():
            persona = getattr(mind, "persona", None)
            found[agent] = (
                persona.model_dump(mode="json") if persona is not None else {"name": agent}
            )
        return found

    def script(self, model: ScriptedModel) -> None:
        """Register this world's responders on a scripted model."""
