"""The one scenario format: every world, every run, every sweep starts from a `Scenario`.

The `world` section is a discriminated union on `world.kind`; every other section means the
same in every world. A tick is the clock's unit everywhere (the town's is 10 minutes, the
grid's a step, counted as an hour of memory time, the commute's a working day). Times may be
written "17:00" (on the clock's start date) or as a date and time; durations "10m", "14h",
"1d" or a number of minutes.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from simulacra.core import Duration, Moment, naive, on_day
from simulacra.embed import EmbedderConfig
from simulacra.engine import Calendar
from simulacra.experiments.questions import EvaluationConfig
from simulacra.llm import ModelConfig
from simulacra.llm.budget import Budget
from simulacra.worlds.commute.config import CommuteConfig
from simulacra.worlds.elfarol.config import ElFarolConfig
from simulacra.worlds.embodied.config import EmbodiedConfig
from simulacra.worlds.grid.config import GridConfig
from simulacra.worlds.town.config import TownConfig

WorldConfig = Annotated[
    TownConfig | GridConfig | CommuteConfig | ElFarolConfig | EmbodiedConfig,
    Field(discriminator="kind"),
]
# Each world's settings by its `kind`, read off the union above: a new world is one line there
# and one binding in simulacra.experiments.kinds.
WORLD_CONFIGS: dict[str, type[BaseModel]] = {
    config.model_fields["kind"].default: config for config in get_args(get_args(WorldConfig)[0])
}


MAX_TICKS = 1_000_000  # a guard against a typo, far beyond any run a language model can play


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ClockConfig(_Strict):
    """Ticks of length `tick` from `start`, for `duration` or for `ticks` ticks (one of the
    two). `wake`/`sleep` skip the night; `weekdays` skips Saturdays and Sundays; `schedule`
    says whether agents may run ahead of each other (docs/architecture.md, A tick)."""

    start: datetime = datetime(2000, 1, 1)
    tick: Duration = timedelta(minutes=10)
    duration: Duration | None = None
    ticks: int | None = Field(default=None, ge=1, le=MAX_TICKS)
    wake: Moment | None = None
    sleep: Moment | None = None
    weekdays: bool = False
    checkpoint_every: int = Field(default=6, ge=1, description="ticks between checkpoints")
    schedule: Literal["lockstep", "out_of_order"] = Field(
        default="lockstep",
        description="lockstep: every agent finishes a tick before any starts the next; "
        "out_of_order: agents that a tick's conversations cannot affect go on while they are "
        "held, with the same events (worlds without spatial separation keep lockstep)",
    )

    @field_validator("start", mode="before")
    @classmethod
    def _a_date(cls, value: Any) -> Any:
        # Pydantic would read a number as seconds since 1970, in UTC.
        if isinstance(value, int | float):
            raise ValueError(f"expected a date and time like 2024-02-14T07:00, got {value!r}")
        return value

    @field_validator("start")
    @classmethod
    def _no_zone(cls, value: datetime) -> datetime:
        result: datetime = naive(value)
        return result

    @model_validator(mode="after")
    def _one_length(self) -> ClockConfig:
        if (self.duration is None) == (self.ticks is None):
            raise ValueError("give the run's length as either duration or ticks (not both)")
        if self.tick <= timedelta(0):
            raise ValueError(f"tick must be positive, not {self.tick}")
        if self.duration is not None:
            if self.duration <= timedelta(0):
                raise ValueError(f"duration must be positive, not {self.duration}")
            if self.duration / self.tick > MAX_TICKS:
                raise ValueError(
                    f"duration {self.duration} is more than {MAX_TICKS:,} ticks of {self.tick}; "
                    "lengthen the tick or shorten the run"
                )
        if (self.wake is None) != (self.sleep is None):
            raise ValueError("give both wake and sleep (the waking hours), or neither")
        if self.wake is not None and self.wake == self.sleep:
            raise ValueError(f"wake and sleep are both {self.wake}: that leaves no waking hours")
        try:
            times = self.calendar().times()
        except OverflowError:
            raise ValueError("the clock runs past the year 9999; shorten the run") from None
        if not times:
            raise ValueError(
                "the clock has no tick: every moment from start to the end is skipped by "
                "wake/sleep or weekdays; move start or lengthen duration"
            )
        return self

    def calendar(self) -> Calendar:
        wake = None if self.wake is None else self.time_of(self.wake).time()
        sleep = None if self.sleep is None else self.time_of(self.sleep).time()
        if self.ticks is not None:
            return Calendar.counting(self.start, self.ticks, self.tick, wake, sleep, self.weekdays)
        assert self.duration is not None
        end = self.start + self.duration
        return Calendar(self.start, end, self.tick, wake, sleep, self.weekdays)

    def time_of(self, moment: datetime | time) -> datetime:
        """A time of day means that time on the clock's first day."""
        return on_day(moment, self.start.date())

    @property
    def first_day(self) -> date:
        return self.start.date()


class AgentsConfig(_Strict):
    """Who the agents are and what thinks for them.

    `personas`: the roster (a list, or a YAML file of one), entries as the world kind reads
    them. `count`: how many take part: the first `count` of the roster, or (grid) the roster
    and generated agents up to `count`; (commute) the total `mix` is scaled to, by its shares.
    `profiles` and `mix` (commute): the archetypes agents are drawn from and how many of
    each. `mind`: which mind drives them (each world lists its minds; the first is the
    default). `options`: each mind's own settings, under its name
    (`options: {commuter: {merge_every: 4}}`); only the running mind's are read, so a sweep
    can switch minds without touching them."""

    mind: str | None = None
    options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    count: int | None = Field(default=None, ge=1)
    personas: list[dict[str, Any]] = Field(default_factory=list)
    profiles: dict[str, dict[str, Any]] = Field(default_factory=dict)
    mix: dict[str, int] = Field(default_factory=dict)

    @field_validator("mix", mode="before")
    @classmethod
    def _mix_left_out(cls, value: Any) -> Any:
        return {} if value is None else value  # `mix: null` as no mix: the world says the form


class MemoryConfig(_Strict):
    """`mode`: stream (the memory stream with retrieval) or bounded (the grid source's last
    few notes); default the world's. `importance`: model (rated 1-10 as the source does),
    rule, or a fixed number. `rating_batch`: records the model rates in one call (1, as the
    source; more saves calls with a model that can rate a list). `reflect_at`: the importance
    of what an agent saw and heard that sets off a reflection (the source's 150). `recall`:
    memories a prompt shows, where a mind takes a number. `messages`: received messages an
    agent keeps (grid)."""

    mode: Literal["stream", "bounded"] | None = None
    importance: Literal["model", "rule"] | Annotated[float, Field(ge=0, le=10)] = "model"
    rating_batch: int = Field(
        default=1,
        ge=1,
        le=32,
        description="records rated in one call; the embedded model counts instead of rating a list",
    )
    reflect_at: float = Field(default=150.0, gt=0)
    embedder: EmbedderConfig = EmbedderConfig()
    recall: int | None = Field(default=None, ge=0)
    messages: int = Field(default=10, ge=0)

    @field_validator("embedder", mode="before")
    @classmethod
    def _kind_alone(cls, value: Any) -> Any:
        # `embedder: hashing` is short for `embedder: {kind: hashing}`.
        return {"kind": value} if isinstance(value, str) else value


class InterventionConfig(_Strict):
    """`thought`: an inner thought of one agent. `event`: a change to the world, its fields in
    `change` (town: place, object, state; grid: fire, position, intensity, radius; commute:
    none, `text` is announced to every commuter). `conversation`: two agents talk about `text`.
    `correction`: `text` corrects a fact; the agents named (every agent when none is) drop the
    memories that mention, for each group of words in `contradicts`, one of them, with all
    that rests on them, and remember `text` instead. `importance`: the memory's (1-10); none:
    rated under `memory.importance` like any memory (the rule gives a correction 9, a thought
    its keywords' value)."""

    at: Moment
    type: Literal["thought", "event", "conversation", "correction"]
    text: str = Field(min_length=1)
    agent: str | None = None
    agents: list[str] = Field(default_factory=list)
    change: dict[str, Any] = Field(default_factory=dict)
    contradicts: list[list[str]] = Field(default_factory=list)
    importance: float | None = Field(default=None, ge=1, le=10)

    @model_validator(mode="after")
    def _contradicts_for_corrections(self) -> InterventionConfig:
        if self.type == "correction" and not all(self.contradicts or [[]]):
            raise ValueError(
                "contradicts: a correction needs groups of words naming what it corrects, "
                "e.g. [[party], [hobbs, cafe]]; each group needs at least one word"
            )
        if self.type != "correction" and self.contradicts:
            raise ValueError("contradicts: only a correction intervention takes contradicts")
        return self

    @property
    def who(self) -> list[str]:
        return ([self.agent] if self.agent else []) + self.agents


class InterviewsConfig(_Strict):
    """`question` put to every agent at each of `times`; an answer counts as aware when, for
    every group of words in `aware_when`, it contains one of them (whole words, any case),
    unless it also holds every group of `off_when`: then it knows the fact is called off
    ("the party is cancelled"), counted apart as `off`, never as aware. `closed`: the question
    is asked closed instead (docs/town.md): the agent picks yes or no, and whom it heard it
    from among the run's other agents (or nobody); yes counts as aware when one of the
    memories it rests on, that it saw or heard, holds the fact's words."""

    times: list[Moment] = Field(min_length=1)
    question: str = Field(min_length=1)
    aware_when: list[list[str]] = Field(default_factory=list)
    off_when: list[list[str]] = Field(default_factory=list)
    closed: bool = Field(
        default=False, description="ask yes or no and from whom, judged against the memories"
    )

    @model_validator(mode="after")
    def _closed_needs_words(self) -> InterviewsConfig:
        if self.closed and not self.aware_when:
            raise ValueError(
                "interviews.closed: a closed question is judged by the fact's words; "
                "give interviews.aware_when"
            )
        return self


class OutputConfig(_Strict):
    root: str = Field(default="runs", min_length=1, description="the folder runs go in")
    report: bool = Field(default=True, description="report.html and viewer.html")
    frames: bool = Field(default=False, description="PNG frames under <run>/frames/")
    prompts: bool = Field(
        default=True,
        description="keep every prompt sent, each distinct prefix once, in <run>/prompts.jsonl",
    )


class BranchConfig(_Strict):
    """One branch of a study: settings that may change mid-run (model.*) and interventions
    from the fork point on, as a scenario writes them."""

    set: dict[str, Any] = Field(default_factory=dict)
    interventions: list[dict[str, Any]] = Field(default_factory=list)


class ForkStudyConfig(_Strict):
    """A branch study (docs/fork.md): `parent` (a run directory; none: this scenario is run
    first) forked at `at` (a step or a tick's time) once per branch and replicate, beside an
    unchanged branch that the others are compared with, replicate by replicate."""

    parent: str | None = None
    at: int | str
    branches: dict[str, BranchConfig] = Field(min_length=1)


class SweepConfig(_Strict):
    """Variants x replicates x models, one run each.

    `vary` maps a field path to its values; each combination is a variant named by them
    (`ablation=A1`). `variants` names variants outright, each a mapping of field paths to
    values. Replicate r runs with `seeds[r]`, or `seed + r` (default: the scenario's seed);
    every variant and model of a replicate shares its seed. `models` lists model specs (none:
    the scenario's). `reference`: a variant name or a model spec; each other group is compared
    with it, replicate by replicate (the same seed), as a paired difference with its interval.
    `executor`: local processes or Ray."""

    vary: dict[str, list[Any]] = Field(default_factory=dict)
    variants: dict[str, dict[str, Any]] = Field(default_factory=dict)
    replicates: int | None = Field(default=None, ge=1)
    seed: int | None = None
    seeds: list[int] | None = None
    models: list[str] = Field(default_factory=list)
    reference: str | None = None
    workers: int = Field(default=2, ge=1)
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    budget: Budget | None = Field(
        default=None, description="what the whole sweep may spend; it starts no run past it"
    )
    fork: ForkStudyConfig | None = Field(
        default=None, description="branches of one run instead of runs from the start"
    )

    @model_validator(mode="after")
    def _seeds_fit_replicates(self) -> SweepConfig:
        if self.seeds is not None and self.replicates not in (None, len(self.seeds)):
            raise ValueError(
                f"replicates is {self.replicates} but seeds lists {len(self.seeds)}; give one "
                "seed per replicate or drop one of the two"
            )
        empty = [path for path, values in self.vary.items() if not values]
        if empty:
            raise ValueError(f"vary.{empty[0]}: list at least one value")
        return self

    def replicate_seeds(self, base: int) -> list[int]:
        if self.seeds is not None:
            return list(self.seeds)
        start = base if self.seed is None else self.seed
        return [start + r for r in range(self.replicates or 1)]


class Scenario(_Strict):
    """A run's whole configuration: a world, its agents, their model and memory, the clock,
    what happens to them, and what is written; the sweep and the evaluation a scenario
    offers."""

    name: str = Field(
        min_length=1, pattern=r"^[A-Za-z0-9_.-]+$", description="names the run directories"
    )
    description: str = ""
    seed: int = Field(default=0, description="drives every random choice and model call")
    model: ModelConfig = Field(default=ModelConfig(), description="the language model")
    clock: ClockConfig = Field(description="when the run starts, its tick and its length")
    world: WorldConfig = Field(description="the world and its own settings, by `kind`")
    agents: AgentsConfig = AgentsConfig()
    memory: MemoryConfig = MemoryConfig()
    ablation: str | None = Field(
        default=None, description="which faculties are off; each world lists its ablations"
    )
    interventions: list[InterventionConfig] = Field(
        default_factory=list, description="thoughts, events, conversations and corrections"
    )
    interviews: InterviewsConfig | None = Field(
        default=None, description="a question put to every agent at set times"
    )
    output: OutputConfig = OutputConfig()
    sweep: SweepConfig = SweepConfig()
    evaluation: EvaluationConfig = Field(
        default=EvaluationConfig(), description="what `simulacra evaluate` asks and ranks"
    )

    @field_validator("model", mode="before")
    @classmethod
    def _spec_alone(cls, value: Any) -> Any:
        # `model: embedded` is short for `model: {spec: embedded}`.
        return {"spec": value} if isinstance(value, str) else value

    def when(self, moment: datetime | time) -> datetime:
        return self.clock.time_of(moment)

    def written(self, moment: datetime | time) -> str:
        """A time as a scenario would write it: "17:00" on the first day, else with its date."""
        at = self.when(moment)
        return f"{at:%H:%M}" if at.date() == self.clock.first_day else f"{at:%Y-%m-%d %H:%M}"

    def off_the_clock(self, moment: datetime | time) -> str | None:
        """Why something set for `moment` would not happen then, or None: the moment must
        not come before the first tick, and must fall in waking hours. (What comes after the
        last tick is left out of the run: experiments/trim.py.)"""
        when = self.when(moment)
        calendar = self.clock.calendar()
        times = calendar.times()
        if when < times[0]:
            return (
                f"{when:%Y-%m-%d %H:%M} is before the run's first tick "
                f"({times[0]:%Y-%m-%d %H:%M}); move it later or start the clock earlier"
            )
        if not calendar.awake(when):
            return (
                f"{when:%Y-%m-%d %H:%M} falls while the clock sleeps (clock.wake, clock.sleep "
                "and clock.weekdays skip it); move it into waking hours"
            )
        return None
