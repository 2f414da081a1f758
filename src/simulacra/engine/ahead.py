"""Out-of-order ticks (`clock.schedule: out_of_order`): while a tick's conversations are held,
the agents they cannot affect run ahead, and the engine takes what they did in lockstep's turn.

Conservative, as in parallel discrete-event simulation with lookahead: nothing runs ahead that
could depend on work not yet done. When the world pairs talkers, the others go on, on a copy
of the world, through the rest of the tick and into the next:
- through the tick: a phase whose actions reach the world keeps only the agents whose turn
  comes before the first agent still busy (a world resolves in that order, so their outcomes
  cannot depend on the busy ones); the others stop there;
- into the next tick (never past a checkpoint, an intervention or interview, the budget's
  check, a console or the run's end): only those farther than the world's `horizon` (what an
  agent covers in a tick plus its sight) from every agent that stopped, and from every agent
  within the horizon of one that stopped, and so on (the copy may have those wrong), so that
  what they perceive next cannot depend on them; they stop after the first phase whose
  actions reach the world (where the engine pairs, or resolves, with everyone's).

Before that, while a `local` phase (the town's `decide`: talkers pair only at one place)
waits for its last few agents, those clear of every cluster with one of them in it start the
same way, from that phase's resolution of their own actions on the copy.

The engine then runs every phase in lockstep's order on the real world and takes each agent's
decision made ahead instead of asking its mind again, with the events it logged, in its turn;
it checks that the world shows that agent what the copy showed it, from where the copy stood
it, and stops the run if not (a world whose horizon is wrong).
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from simulacra.core import Action, Begins, Mind, Observation, Phase, Resolution, Spatial, Tick
from simulacra.engine.sink import EventRouter, Pending

Key = tuple[int, str, str]  # step, phase, agent


class Diverged(RuntimeError):
    """Work done ahead saw another world than lockstep's: the world's horizon is wrong."""


@dataclass(frozen=True)
class Done:
    """One agent's decision in one phase, made ahead, with what it saw and the events it logged."""

    action: Action | None
    observation: Observation
    position: tuple[float, float]
    events: list[Pending]


@dataclass
class Ahead:
    """The work one run-ahead does: launched when a phase brings about conversations."""

    world: Spatial  # the copy it runs on
    minds: Mapping[str, Mind]
    router: EventRouter
    ids: Sequence[str]
    busy: set[str]  # held in conversations
    rng: random.Random  # a copy of the engine's, to know the orders it will draw
    tick: Tick
    rest: Sequence[Phase]  # the tick's phases after the one that paired talkers
    following: Tick | None  # the next tick, where it may run into it
    opening: tuple[Phase, dict[str, Action]] | None = None  # a local phase's actions so far
    work: dict[Key, asyncio.Future[Done]] = field(default_factory=dict)
    finished: bool = False
    _ready: dict[tuple[int, str], asyncio.Event] = field(default_factory=dict)

    # --- what the engine asks ---------------------------------------------------------

    async def ready(self, step: int, phase: str) -> None:
        """Wait until this run-ahead has said which agents it takes in `phase`, or stopped."""
        if not self.finished:
            await self._ready.setdefault((step, phase), asyncio.Event()).wait()

    def take(self, key: Key) -> asyncio.Future[Done] | None:
        return self.work.pop(key, None)

    # --- the run-ahead --------------------------------------------------------------

    async def run(self) -> None:
        failure: BaseException = RuntimeError("the run-ahead stopped")
        try:
            await self._run()
        except BaseException as exc:
            failure = exc
            raise
        finally:
            self.finished = True
            for event in self._ready.values():
                event.set()
            for future in self.work.values():
                if not future.done():
                    future.set_exception(failure)

    async def _run(self) -> None:
        world, tick = self.world, self.tick
        start = {i: world.position(i) for i in self.ids}
        free = [i for i in self.ids if i not in self.busy]
        if self.opening is not None:  # a local phase: those clear of the busy are resolved
            phase, decided = self.opening
            order = self._order(phase)
            ordered = {i: decided[i] for i in order if i in decided and i in free}
            resolution = self._resolve(phase.name, ordered, tick)
            talking = {a for e in resolution.encounters for a in (e.first, e.second)}
            talking |= {a.agent for a in resolution.addresses}
            free = [i for i in free if i not in talking]
        for phase in self.rest:
            order = self._order(phase)
            actions = await self._phase(tick, phase, free)
            if actions:  # they reach the world: only turns before the first busy agent's
                cut = next((k for k, i in enumerate(order) if i not in free), len(order))
                kept = set(order[:cut])
                free = [i for i in free if i in kept]
            ordered = {i: actions[i] for i in order if i in free and i in actions}
            resolution = self._resolve(phase.name, ordered, tick)
            if resolution.encounters or resolution.addresses or not free:
                return  # conversations are held in their turn, never ahead
        self._advance(tick)
        horizon = world.horizon(tick)
        if self.following is None or horizon is None:
            return
        free = clear_of(free, [i for i in self.ids if i not in free], world, start, horizon)
        if not free:
            return
        following = self.following
        if isinstance(world, Begins):
            world.begin(following)
        for phase in self._phases(following):
            actions = await self._phase(following, phase, free)
            if phase.local or actions or not _empty(self._resolve(phase.name, {}, following)):
                return  # the engine resolves this phase with everyone's, ahead or not

    def _order(self, phase: Phase) -> list[str]:
        """The order the engine will draw for `phase` (from the copy of its generator)."""
        ids = list(self.ids)
        return ids if phase.order == "roster" else self.rng.sample(ids, len(ids))

    async def _phase(self, tick: Tick, phase: Phase, agents: Sequence[str]) -> dict[str, Action]:
        """The minds of `agents` decide in `phase` on the copy; their decisions are kept for
        the engine, announced before they are made."""
        if not phase.minds:  # the world acts alone
            return {}
        futures = {i: asyncio.get_running_loop().create_future() for i in agents}
        for i, future in futures.items():
            self.work[(tick.step, phase.name, i)] = future
        self._ready.setdefault((tick.step, phase.name), asyncio.Event()).set()
        seen = {i: self._observe(i, phase.name, tick) for i in agents}

        async def decide(i: str) -> Action | None:
            job = partial(self.minds[i].decide, phase.name, seen[i], tick.now)
            try:
                action, events = await self.router.held(i, job, tick.now)
            except BaseException as exc:
                if not futures[i].done():  # the run-ahead may have stopped on another's
                    futures[i].set_exception(exc)
                raise
            if not futures[i].done():
                futures[i].set_result(Done(action, seen[i], self.world.position(i), events))
            return action

        chosen = await asyncio.gather(*(asyncio.create_task(decide(i)) for i in agents))
        return {i: a for i, a in zip(agents, chosen, strict=True) if a is not None}

    # The copy is a World as well as Spatial; these keep the casts in one place.
    def _observe(self, agent: str, phase: str, tick: Tick) -> Observation:
        return self.world.observe(agent, phase, tick)  # type: ignore[attr-defined, no-any-return]

    def _resolve(self, phase: str, actions: Mapping[str, Action], tick: Tick) -> Resolution:
        return self.world.resolve(phase, actions, tick)  # type: ignore[attr-defined, no-any-return]

    def _advance(self, tick: Tick) -> None:
        self.world.advance(tick)  # type: ignore[attr-defined]

    def _phases(self, tick: Tick) -> Sequence[Phase]:
        return self.world.phases(tick)  # type: ignore[attr-defined, no-any-return]


def launch(
    world: Spatial,
    minds: Mapping[str, Mind],
    router: EventRouter,
    ids: Sequence[str],
    busy: set[str],
    rng: random.Random,
    tick: Tick,
    rest: Sequence[Phase],
    following: Tick | None,
    opening: tuple[Phase, dict[str, Action]] | None = None,
) -> tuple[Ahead, asyncio.Task[None]]:
    """Copy the world and the engine's generator now (the engine goes on changing both) and
    start running ahead, in a context of its own (not the job's that may launch it)."""
    drawn = random.Random()
    drawn.setstate(rng.getstate())
    copied = copy.deepcopy(world)
    ahead = Ahead(copied, minds, router, ids, busy, drawn, tick, rest, following, opening)
    return ahead, asyncio.create_task(ahead.run(), context=contextvars.Context())


def clear_of(
    free: Sequence[str],
    stopped: Sequence[str],
    world: Spatial,
    start: Mapping[str, tuple[float, float]],
    horizon: float,
) -> list[str]:
    """The agents of `free` that nothing stopped can reach: not within the horizon of a stopped
    agent (where it stood) or of one so reached (where it stands now), and so on: the copy
    may have any of those wrong."""
    where = {i: world.position(i) for i in free}
    reached = [start[i] for i in stopped]
    clear = list(free)
    while True:
        near = [i for i in clear if any(not _apart(where[i], r, horizon) for r in reached)]
        if not near:
            return clear
        clear = [i for i in clear if i not in near]
        reached = [where[i] for i in near]


def _apart(a: tuple[float, float], b: tuple[float, float], horizon: float) -> bool:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) > horizon


def _empty(resolution: Resolution) -> bool:
    return not (
        resolution.outcomes or resolution.events or resolution.encounters or resolution.addresses
    )
