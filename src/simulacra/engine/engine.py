"""The one engine: it walks the clock, runs each tick's phases, and owns what every world
shares (interventions and interviews, checkpoints, the ordered event log, the budget ledger
and progress).

A tick: interventions and interviews that are due; then each phase the world declares: every
agent observes, the minds decide concurrently, and the world resolves the actions in the
roster's order or in a seeded shuffle; conversations the world brings about are held; then
the world's state is logged and the world and the clock advance.

Determinism: the events of concurrent work are written per agent in roster order, never in
the order calls finish, and every shuffle comes from the run's seeded generator. With
`schedule="out_of_order"` agents that conversations cannot affect run ahead while they are
held (ahead.py), and the log is still lockstep's.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from simulacra.core import (
    Action,
    Address,
    Answerer,
    Begins,
    Encounter,
    Mind,
    Phase,
    Resolution,
    Spatial,
    Talker,
    Tick,
    World,
)
from simulacra.engine.ahead import Ahead, Diverged, Done, clear_of, launch
from simulacra.engine.checkpoint import (
    Checkpoints,
    ledger_state,
    restore_ledger,
    rng_from,
    rng_state,
)
from simulacra.engine.clock import Clock
from simulacra.engine.control import Control
from simulacra.engine.interventions import Interventions
from simulacra.engine.sink import EventRouter
from simulacra.llm import Completion, Gateway, Request
from simulacra.llm.budget import BudgetReached
from simulacra.llm.prompt_log import PromptLog
from simulacra.runlog.events import Acted, CheckpointSaved, ModelCall, WorldState


@dataclass(frozen=True)
class Progress:
    """Where a run is, for progress displays."""

    step: int
    ticks: int
    now: datetime
    calls: int
    tokens: int
    fallbacks: int
    prompt_tokens: int = 0  # of tokens; the rest are completion tokens
    cached_prompt_tokens: int = 0  # of prompt_tokens, served by a prompt cache
    ahead: int = 0  # decisions made ahead of their turn (out_of_order) and taken in it


ProgressHook = Callable[[Progress], None]


class Engine:
    def __init__(
        self,
        world: World,
        minds: Mapping[str, Mind],
        *,
        model: Gateway,
        router: EventRouter,
        clock: Clock,
        seed: int,
        interventions: Interventions | None = None,
        checkpoints: Checkpoints | None = None,
        checkpoint_every: int = 6,
        on_progress: ProgressHook | None = None,
        control: Control | None = None,
        prompts: PromptLog | None = None,
        schedule: str = "lockstep",
    ) -> None:
        self.world = world
        self.minds = dict(minds)
        self.ids = list(minds)
        self.model = model
        self.router = router
        self.writer = router.writer
        self.clock = clock
        self.rng = random.Random(seed)
        self.interventions = interventions or Interventions()
        self.checkpoints = checkpoints
        self.checkpoint_every = checkpoint_every
        self.on_progress = on_progress
        self.control = control  # a live console's, where the run has one
        self.prompts = prompts  # where each call's prompt is kept, unless the scenario says not
        self.over_budget: Callable[[], str | None] | None = None  # the limit reached, if one
        self.schedule = schedule  # lockstep, or out_of_order (ahead.py)
        self.ahead: Ahead | None = None  # the latest run-ahead, where one was launched
        self._ahead_tasks: list[asyncio.Task[None]] = []
        self.taken_ahead = 0  # decisions made ahead and taken in their turn
        model.on_call = self.record_call

    @property
    def tick(self) -> Tick:
        return self.clock.tick

    # --- the loop -----------------------------------------------------------------------

    def start(self) -> None:
        """Log the world as it stands before the first tick (step 0)."""
        self.writer.emit(_state(0, self.world.frame()), t=self.clock.now)

    async def run(self) -> None:
        if self.control is not None:
            self.control.attach(self)
        try:
            await self._run()
            for task in self._ahead_tasks:
                await task  # done by now; raises what it raised
        finally:
            for task in self._ahead_tasks:
                if not task.done():
                    task.cancel()
                with contextlib.suppress(BaseException):
                    await task  # what it raised reached the engine through its decisions
            if self.control is not None:
                self.control.finish()  # what a console sends now would never be taken

    async def _run(self) -> None:
        while not self.clock.done:
            if self.control is not None:
                await self.control.boundary(self)
            await self.step()
            due = self.clock.index % self.checkpoint_every == 0
            # A budget stops the run only here, between ticks, with a checkpoint to resume from.
            limit = None if self.clock.done or self.over_budget is None else self.over_budget()
            if (due or limit) and not self.clock.done and self.checkpoints is not None:
                self.checkpoint()
            if limit is not None:
                raise BudgetReached(limit)

    async def step(self) -> None:
        tick = self.tick
        await self.interventions.fire_due(self, tick.now)
        await self.interventions.interview_due(self, tick.now)
        if isinstance(self.world, Begins):
            self.world.begin(tick)
        for phase in self.world.phases(tick):
            await self.run_phase(phase, tick)
        # The world as the tick leaves it, at the tick's end: step 0 is the start, step N the
        # state N ticks later, so no two steps share a time.
        self.writer.emit(_state(tick.step, self.world.frame()), t=tick.now + tick.length)
        self.writer.write()  # each tick reaches the file, so a live viewer can follow the run
        self.world.advance(tick)
        self.clock.advance()
        self._report()

    async def run_phase(self, phase: Phase, tick: Tick) -> None:
        actions: dict[str, Action] = {}
        if phase.minds:
            if self.ahead is not None:
                await self.ahead.ready(tick.step, phase.name)
            jobs = [((i,), self._decision(i, phase.name, tick)) for i in self.ids]
            if self._may_run_ahead(tick) and phase.local:
                jobs = self._watched(jobs, phase, tick)
            chosen = await self.router.gather(jobs)
            actions = {i: a for i, a in zip(self.ids, chosen, strict=True) if a is not None}
        order = self.ids if phase.order == "roster" else self.rng.sample(self.ids, len(self.ids))
        ordered = {i: actions[i] for i in order if i in actions}
        resolution = self.world.resolve(phase.name, ordered, tick)
        if self._may_run_ahead(tick) and resolution.encounters and not resolution.addresses:
            await self._run_ahead(phase, tick, resolution)
        await self.settle(resolution, phase.name, ordered)

    def _decision(self, agent: str, phase: str, tick: Tick) -> Callable[[], Any]:
        """The agent's decision: its mind's, or the one it made ahead (taken in its turn)."""
        seen = self.world.observe(agent, phase, tick)
        future = None if self.ahead is None else self.ahead.take((tick.step, phase, agent))
        if future is None:
            return partial(self.minds[agent].decide, phase, seen, tick.now)

        async def taken() -> Action | None:
            done: Done = await future
            assert isinstance(self.world, Spatial)  # nothing runs ahead elsewhere
            there = self.world.position(agent)
            if done.observation != seen or done.position != there:
                raise Diverged(
                    f"{agent} ran ahead into step {tick.step} ({phase}) from another world "
                    f"than lockstep's: it saw {done.observation} at {done.position}; lockstep "
                    f"shows it {seen} at {there}"
                )
            self.router.replay(agent, done.events)
            self.taken_ahead += 1
            return done.action

        return taken

    def _may_run_ahead(self, tick: Tick) -> bool:
        """Out of order, in a world with a horizon now, and nothing run ahead in this tick."""
        if self.schedule != "out_of_order" or not isinstance(self.world, Spatial):
            return False  # no spatial separation: lockstep
        if self.ahead is not None and self.ahead.tick.step == tick.step:
            return False
        return self.world.horizon(tick) is not None

    def _watched(
        self, jobs: list[tuple[tuple[str], Callable[[], Any]]], phase: Phase, tick: Tick
    ) -> list[tuple[tuple[str], Callable[[], Any]]]:
        """`jobs` of a local phase, noting each decision as it comes: once only a few agents
        are left deciding, those clear of them go on (ahead.py)."""
        decided: dict[str, Action | None] = {}

        def watch(agent: str, job: Callable[[], Any]) -> Callable[[], Any]:
            async def watched() -> Action | None:
                action: Action | None = await job()
                decided[agent] = action
                self._run_ahead_of(phase, tick, decided)
                return action

            return watched

        return [((i,), watch(i, job)) for (i,), job in jobs]

    def _run_ahead_of(self, phase: Phase, tick: Tick, decided: Mapping[str, Action | None]) -> None:
        pending = [i for i in self.ids if i not in decided]
        if not pending or len(pending) > max(1, len(self.ids) // 4):
            return
        if not self._may_run_ahead(tick):
            return
        world = self.world
        assert isinstance(world, Spatial)
        horizon = world.horizon(tick)
        assert horizon is not None
        start = {i: world.position(i) for i in self.ids}
        done = [i for i in self.ids if i in decided]
        clear = clear_of(done, pending, world, start, horizon)
        if clear:
            actions = {i: a for i in clear if (a := decided[i]) is not None}
            self._launch(phase, tick, set(self.ids) - set(clear), (phase, actions))

    async def _run_ahead(self, phase: Phase, tick: Tick, resolution: Resolution) -> None:
        """While the conversations `resolution` brought about are held, let the agents they
        cannot affect go on (ahead.py)."""
        for task in self._ahead_tasks:
            await task  # an earlier tick's: its work is all taken by now
        busy = {a for e in resolution.encounters for a in (e.first, e.second)}
        self._launch(phase, tick, busy)

    def _launch(
        self,
        phase: Phase,
        tick: Tick,
        busy: set[str],
        opening: tuple[Phase, dict[str, Action]] | None = None,
    ) -> None:
        world = self.world
        assert isinstance(world, Spatial)
        phases = list(self.world.phases(tick))
        self.ahead, task = launch(
            world,
            self.minds,
            self.router,
            self.ids,
            busy,
            self.rng,
            tick,
            phases[phases.index(phase) + 1 :],
            self._following(tick),
            opening,
        )
        self._ahead_tasks.append(task)  # each awaited at the end: what it raised is raised

    def _following(self, tick: Tick) -> Tick | None:
        """The next tick, where nothing between it and this one needs every agent at this
        one: a checkpoint, a budget's check, a console, an intervention or interview."""
        if tick.last or self.control is not None or self.over_budget is not None:
            return None
        index = self.clock.index + 1
        if self.checkpoints is not None and index % self.checkpoint_every == 0:
            return None
        following = self.clock.tick_at(index)
        return None if self.interventions.due(following.now) else following

    async def settle(
        self, resolution: Resolution, phase: str, actions: Mapping[str, Action] | None = None
    ) -> None:
        """Log what a resolution did, then hold the conversations it brought about."""
        now, actions = self.clock.now, actions or {}
        for agent, outcome in resolution.outcomes.items():
            if not outcome.logged:
                continue
            facts = dict(outcome.facts)
            description = actions[agent].description if agent in actions else None
            acted = Acted(
                step=self.clock.index + 1,
                phase=phase,
                ok=outcome.ok,
                description=facts.pop("description", description),
                reason=outcome.reason or None,
                extra=facts,
            )
            self.writer.emit(acted, t=now, agent=agent)
        for event in resolution.events:
            self.writer.emit(event.payload, t=now, agent=event.agent)
        await self.hold(resolution.encounters, now)
        await self.answer(resolution.addresses, now)

    async def answer(self, addresses: Sequence[Address], now: datetime) -> None:
        """Each addressed agent answers the one who spoke to it (a visitor), or speaks to them
        first, one at a time in the order said: a second line to the same agent follows its
        first answer."""
        for address in addresses:
            mind = self.minds[address.agent]
            if not isinstance(mind, Answerer):
                raise TypeError(f"the mind of {address.agent} cannot answer a visitor")
            await self.router.gather([((address.agent,), partial(mind.answer, address, now))])

    async def hold(self, encounters: Sequence[Encounter], now: datetime) -> None:
        jobs = []
        for e in encounters:
            first = self.minds[e.first]
            if not isinstance(first, Talker):
                raise TypeError(f"the mind of {e.first} cannot hold a conversation")
            talk = partial(first.converse, self.minds[e.second], now, e.topic)
            jobs.append(((e.first, e.second), talk))
        await self.router.gather(jobs)

    # --- accounting and progress ----------------------------------------------------------

    def record_call(self, request: Request, completion: Completion) -> None:
        prompt = self.prompts.keep(request.messages) if self.prompts is not None else None
        now = self.router.now() or self.clock.now  # work run ahead happens at its own tick
        self.router.sink(request.agent).emit(
            _call(request, completion, prompt), t=now, agent=request.agent
        )

    def _report(self) -> None:
        if self.on_progress is None:
            return
        total = self.model.ledger.total
        self.on_progress(
            Progress(
                self.clock.index,
                self.clock.ticks,
                self.clock.now,
                total.calls,
                total.prompt_tokens + total.completion_tokens,
                total.fallbacks,
                total.prompt_tokens,
                total.cached_prompt_tokens,
                self.taken_ahead,
            )
        )

    # --- checkpoints ------------------------------------------------------------------------

    def checkpoint(self) -> None:
        assert self.checkpoints is not None
        offset = self.writer.flush()
        saved = CheckpointSaved(
            step=self.clock.index, offset=offset, path=self.checkpoints.folder.name
        )
        self.writer.emit(saved, t=self.clock.now)
        end, digest = self.writer.mark()  # a console's thread may write between two calls
        self.checkpoints.save(
            {
                "step": self.clock.index,
                "offset": end,
                "digest": digest,
                "rng": rng_state(self.rng.getstate()),
                "world": self.world.snapshot(),
                "minds": {i: m.state() for i, m in self.minds.items()},
                "ledger": ledger_state(self.model.ledger),
                "interventions": self.interventions.state(),
            }
        )

    def restore(self, state: Mapping[str, Any]) -> None:
        self.clock.index = int(state["step"])
        self.rng.setstate(rng_from(state["rng"]))
        self.world.restore(state["world"])
        for i, mind in self.minds.items():
            mind.restore(state["minds"][i])
        restore_ledger(self.model.ledger, state["ledger"])
        self.interventions.restore(state["interventions"])


def _state(step: int, frame: dict[str, Any]) -> WorldState:
    agents = frame.pop("agents")
    return WorldState(step=step, agents=agents, extra=frame)


def _call(request: Request, completion: Completion, prompt: str | None) -> ModelCall:
    return ModelCall(
        purpose=request.purpose,
        model=completion.model,
        prompt_tokens=completion.usage.prompt_tokens,
        completion_tokens=completion.usage.completion_tokens,
        cached_prompt_tokens=completion.usage.cached_prompt_tokens,
        latency_s=round(completion.latency_s, 4),
        cached=completion.cached,
        attempts=completion.attempts,
        fallback=completion.fallback,
        error=completion.error,
        prompt=prompt,
    )
