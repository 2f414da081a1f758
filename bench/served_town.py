"""A served run's wall time, lockstep against out-of-order: the 25-agent two-day town
(scenarios/town-2day.yaml, its conversations, interventions and interviews) on a stand-in
for a batching server. Prints one JSON line.

The stand-in: the scripted model (made sociable, as bench/town.py's, so that agents who meet
talk) behind a server model of `--slots` batch slots, where a call holds a slot for
`--base-ms` plus `--per-token-ms` for each token it generates, and waits for a free slot
when all are taken. It is in-process: the fault server (llm/fault_server.py) answers a
schema's name with fixed content, and the town's scripted answers depend on each prompt.

`bound_s` is the critical path read from the lockstep log: each agent's calls one after
another, a conversation's turns holding both its speakers, every call costing what the
stand-in charges for its tokens; no schedule can be faster with these calls;
`bound_apart_s`, the same with the two speakers of a conversation remembering it side by
side (the mind has them remember it one after the other); `lockstep_floor_s`, the same calls
with every phase waiting for every agent, what lockstep would take on an idle machine.
The other bounds read the same log under what each schedule must wait for (`chains`), so
that a gap between two schedules shows which barrier holds the agents:
`ticks_bound_s`, every tick waiting for every agent (lockstep, but for the waits between a
tick's phases); `clocks_bound_s`, per-agent clocks, an agent waiting only for those within
`horizon_tiles` (the tiles walked in a tick plus the sight radius) and everyone waiting at a
checkpoint, an intervention or an interview; `clocks_unheld_s`, the same without those
waits; `sight_bound_s`, waiting only for those within sight (what a scheme that guessed and
rolled back when it guessed wrong might reach; no such scheme is built).
`decided_bound_s`, `decided_unheld_s` and `decided_all_s`: the same as clocks, with and without
the barriers, then with everyone as a neighbour, but waiting for a neighbour's tick only until
its decisions are made: its conversation, the thoughts and plans after one, its reflection and
its day's summary change its own mind, never what another agent's next look shows;
`decided_sight_s`, that wait for those within sight only; `decisions_share`, the share of the
call time spent on decisions.
`--replay RUN` prints the bounds alone, read from a lockstep run's directory.
`slot_utilisation` is the share of slot-seconds in use over the out-of-order run's wall time.
`same_events`: the two logs agree, wall-clock fields aside (`simulacra diff`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import tempfile
import time
from pathlib import Path
from typing import Any

from simulacra.engine import Progress
from simulacra.experiments import load_scenario, run
from simulacra.llm import Request, load_model
from simulacra.llm.types import RawReply
from simulacra.mind.town.scripted import sociable
from simulacra.runlog import Event, compare_runs, read_events
from simulacra.worlds.town import TownConfig

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "town-2day.yaml"


class Batching:
    """A backend behind a server of `slots` batch slots; a call holds one for its cost."""

    def __init__(self, inner: Any, slots: int, base_s: float, per_token_s: float) -> None:
        self.inner = inner
        self.name = inner.name
        self.cost = (base_s, per_token_s)
        self.slots = slots
        self._free = asyncio.Semaphore(slots)
        self.held_s = 0.0  # slot-seconds in use
        self.cpu_s = 0.0  # the run's own CPU time (the engine, the scripted answers, memory)
        self.peak = 0
        self._running = 0

    async def generate(
        self, request: Request, schema: dict[str, Any] | None, seed: int
    ) -> RawReply:
        async with self._free:
            self._running += 1
            self.peak = max(self.peak, self._running)
            try:
                reply: RawReply = await self.inner.generate(request, schema, seed)
                cost = self.cost[0] + self.cost[1] * reply.usage.completion_tokens
                await asyncio.sleep(cost)
                self.held_s += cost
                return reply
            finally:
                self._running -= 1


# What a mind asks several of at once (memory/importance.py, memory/reflection.py gather them).
AT_ONCE = ("memory.importance", "reflect.insights")


def chains(
    events: list[Event],
    base_s: float,
    per_token_s: float,
    reach: float | None = None,
    barriers: bool = False,
    decided: bool = False,
    phases: bool = False,
    apart: bool = False,
) -> float:
    """The wall time of a schedule of a log's calls with per-agent clocks, each call costing
    what the stand-in charges for its tokens.

    Each agent's calls run one after another, but for those it asks at once (`AT_ONCE`, logged
    one after another: the ratings of a look's sights, a reflection's insights), a
    conversation holding both speakers from its first turn until both have remembered it
    (one after the other: the thought, and the plan it may change, of each). With `apart`
    each speaker remembers it on its own: what the calls' data allow, beyond the mind's order.
    With `reach` None nothing else holds an agent: the critical path, the longest chain of
    dependent calls, which no schedule of these calls beats. With a `reach` (tiles) an agent
    starts a tick only when every agent within that reach has finished the tick before: the
    dependency per-agent clocks bounded by their neighbours' keep (measured from where the
    agent stands at the tick's start to where the other stood at the last one's, as the log
    has them, so no conservative scheme knows more). With `barriers`, a checkpoint, an
    intervention or an interview waits for every agent, as they need the whole town at once.

    With `decided`, an agent waits for a neighbour's tick only as far as what of it can reach
    the agent's next look: the neighbour's decisions (the day's plan, its perception, reaction
    and step; its `act` makes no call), and those of everyone at its place, whose requests to
    talk pair it or not. Not for its conversation, the thoughts and plans after one, its
    reflection or its day's summary: they change only its own mind, never the world. A
    conversation starts once everyone at its place has decided (pairing reads them all).

    With `phases` (and an infinite `reach`), every agent waits for every other after the
    decisions and after the conversations as well: lockstep's own floor.
    """
    talks = [
        (i, frozenset(e.data["participants"]))
        for i, e in enumerate(events)
        if e.kind == "conversation"
    ]
    ready: dict[str, float] = {}
    before: dict[str, tuple[float, float]] = {}  # where each stood at the tick's start
    places: dict[str, str | None] = {}  # the place of each at the tick's start (None: walking)
    waited: set[str | None] = set()  # the times everyone was waited for (interviews come together)
    shown: dict[str, float] | None = None  # each agent's decisions done (None: still deciding)
    talked = False  # the tick's conversations are over
    opened: set[int] = set()  # the conversations whose first turn is placed
    # The last call: where, whose, why, when it started, whom it held.
    last: tuple[int, str, str, float, list[str]] | None = None
    job: frozenset[str] = frozenset()  # the speakers of a conversation still remembering it
    for i, event in enumerate(events):
        if barriers and event.kind in ("checkpoint", "intervention", "interview"):
            if event.t not in waited:
                ready = _everyone(ready)
            waited.add(event.t)
        if shown is None and _after_decisions(event):
            shown = dict(ready)
            ready = _everyone(ready) if phases else ready
        if not talked and shown is not None and _after_talks(event):
            talked = True
            ready = _everyone(ready) if phases else ready
        if event.kind == "conversation" and not apart:  # each remembers it, one then the other
            job = frozenset(event.data["participants"])
        if talked or event.kind == "world":
            job = frozenset()
        if event.kind == "world":  # a tick ends: where each stands as the next starts
            now = {a: (float(v["x"]), float(v["y"])) for a, v in event.data["agents"].items()}
            if reach is not None and before:
                seen = _seen(shown if shown is not None else ready, places) if decided else ready
                ready = {a: _after(a, ready, seen, now, before, reach) for a in ready}
            before = now
            places = {a: v.get("place") for a, v in event.data["agents"].items()}
            shown, talked = None, False
        if event.kind != "llm.call" or event.agent is None:
            continue
        cost = base_s + per_token_s * event.data["completion_tokens"]
        me, purpose = event.agent, event.data["purpose"]
        if last is not None and last[:3] == (i - 1, me, purpose) and purpose in AT_ONCE:
            # Asked with the one before, at once (the log writes them one after another).
            ready.update(dict.fromkeys(last[4], max(ready.get(me, 0.0), last[3] + cost)))
            last = (i, me, purpose, last[3], last[4])
            continue
        held = sorted(job) if me in job else [me]
        start = 0.0
        if purpose.startswith("converse."):
            # The conversation this turn belongs to: the next one logged with this speaker.
            j, talk = next(((j, w) for j, w in talks if j > i and me in w), (-1, frozenset({me})))
            held = sorted(talk)
            if decided and shown is not None and j not in opened:
                opened.add(j)
                there = {places.get(a) for a in held} - {None}
                start = max([shown.get(a, 0.0) for a, p in places.items() if p in there] or [0.0])
        begin = max([start, *(ready.get(a, 0.0) for a in held)])
        ready.update(dict.fromkeys(held, begin + cost))
        last = (i, me, purpose, begin, held)
    return max(ready.values(), default=0.0)


def _after_decisions(event: Event) -> bool:
    """The first event of a tick after its decisions: a conversation's, an action's, or a
    call of a reflection or a day's summary (the phases after `decide`)."""
    if event.kind in ("message", "conversation", "action", "world"):
        return True
    purpose = str(event.data.get("purpose", "")) if event.kind == "llm.call" else ""
    return purpose.startswith(("converse.", "reflect.", "summarize."))


def _after_talks(event: Event) -> bool:
    """The first event of a tick after its conversations: an action's, or a call of a
    reflection or a day's summary."""
    if event.kind in ("action", "world"):
        return True
    purpose = str(event.data.get("purpose", "")) if event.kind == "llm.call" else ""
    return purpose.startswith(("reflect.", "summarize."))


def _everyone(ready: dict[str, float]) -> dict[str, float]:
    """Every agent waiting for the last."""
    return dict.fromkeys(ready, max(ready.values(), default=0.0))


def _decisions_share(events: list[Event], base_s: float, per_token_s: float) -> float:
    """The share of the call time spent deciding (what neighbours wait for under `decided`)."""
    spent, deciding, after = 0.0, 0.0, False
    for event in events:
        after = after or _after_decisions(event)
        if event.kind == "world":
            after = False
        if event.kind == "llm.call" and event.agent is not None:
            cost = base_s + per_token_s * event.data["completion_tokens"]
            spent += cost
            deciding += 0.0 if after else cost
    return deciding / spent if spent else 0.0


def _seen(shown: dict[str, float], places: dict[str, str | None]) -> dict[str, float]:
    """When what each agent did in a tick is settled: its decisions and those of everyone at
    its place (who pairs with whom, and so who acts how, reads them all)."""
    last: dict[str, float] = {}
    for agent, place in places.items():
        if place is not None:
            last[place] = max(last.get(place, 0.0), shown.get(agent, 0.0))
    return {a: last[p] if (p := places.get(a)) is not None else t for a, t in shown.items()}


def _after(
    agent: str,
    ready: dict[str, float],
    seen: dict[str, float],
    now: dict[str, tuple[float, float]],
    before: dict[str, tuple[float, float]],
    reach: float,
) -> float:
    """When `agent` may start a tick: once it is done, and what each agent within `reach` of
    it did in the last tick is `seen`."""
    here = now.get(agent)
    if here is None:
        return max(ready.values())  # nowhere known: wait for all
    near = [
        b
        for b, there in before.items()
        if max(abs(here[0] - there[0]), abs(here[1] - there[1])) <= reach
    ]
    return max([ready[agent], *(seen.get(b, 0.0) for b in near)])


def play(
    schedule: str, root: str, args: argparse.Namespace
) -> tuple[Path, float, Batching, list[Event], int, tuple[float, float]]:
    """The run's directory, wall time, stand-in, events, decisions taken from ahead, and the
    tiles an agent walks in a tick and sees (the two make the town's horizon)."""
    scenario = load_scenario(
        SCENARIO,
        [
            f"agents.count={args.agents}",
            f"clock.duration={args.hours}h",
            f"clock.schedule={schedule}",
            f"world.seconds_per_tile={args.seconds_per_tile}",
            "memory.embedder=hashing",
            f"output.root={root}",
            "output.report=false",
        ],
    )
    model = sociable(load_model("scripted", concurrency=args.slots))
    server = Batching(model.backend, args.slots, args.base_ms / 1000, args.per_token_ms / 1000)
    model.backend = server
    seen: list[Progress] = []
    started, cpu = time.perf_counter(), time.process_time()
    done = run(scenario, model=model, progress=False, on_progress=seen.append)
    wall = time.perf_counter() - started
    server.cpu_s = time.process_time() - cpu
    world = scenario.world
    assert isinstance(world, TownConfig)
    walk = scenario.clock.tick.total_seconds() / world.seconds_per_tile
    events = list(read_events(done.events_path))
    return done.path, wall, server, events, seen[-1].ahead, (walk, float(world.sight.radius))


def bounds(
    events: list[Event], cost: tuple[float, float], walk: float, sight: float
) -> dict[str, Any]:
    """What schedules of a lockstep log's calls could do at best (`chains`)."""
    horizon = walk + sight
    return {
        "bound_s": round(chains(events, *cost), 2),
        "bound_apart_s": round(chains(events, *cost, apart=True), 2),
        "horizon_tiles": horizon,
        # What per-agent clocks could do at best, from the lockstep log: bounded by the
        # neighbours within the horizon, with the run's checkpoints, interventions and
        # interviews waiting for all, then without them; then bounded only by those within
        # sight (what a scheme that guessed and rolled back might reach).
        "clocks_bound_s": round(chains(events, *cost, horizon, barriers=True), 2),
        "clocks_unheld_s": round(chains(events, *cost, horizon), 2),
        "sight_bound_s": round(chains(events, *cost, sight), 2),
        # The same, waiting for a neighbour only until its decisions are made (its
        # conversation, reflection and summary reach nobody else's look); then with every
        # agent waiting for everyone's decisions (a barrier after `decide`, not after the tick).
        "decided_bound_s": round(chains(events, *cost, horizon, True, decided=True), 2),
        "decided_unheld_s": round(chains(events, *cost, horizon, decided=True), 2),
        "decided_all_s": round(chains(events, *cost, math.inf, True, decided=True), 2),
        "decided_sight_s": round(chains(events, *cost, sight, decided=True), 2),
        "decisions_share": round(_decisions_share(events, *cost), 3),
        # Lockstep with every call free of the others but each tick a barrier; then each
        # phase a barrier too (lockstep's own floor, what it would take on an idle machine).
        "ticks_bound_s": round(chains(events, *cost, math.inf), 2),
        "lockstep_floor_s": round(chains(events, *cost, math.inf, True, phases=True), 2),
    }


def replay(run: Path, args: argparse.Namespace) -> None:
    """The bounds alone, read from a lockstep run's log (no run: seconds, not minutes)."""
    scenario = load_scenario(run / "config.yaml", [])
    world = scenario.world
    assert isinstance(world, TownConfig)
    walk = scenario.clock.tick.total_seconds() / world.seconds_per_tile
    events = list(read_events(run / "events.jsonl"))
    cost = (args.base_ms / 1000, args.per_token_ms / 1000)
    calls = sum(1 for e in events if e.kind == "llm.call")
    print(
        json.dumps(
            {"run": str(run), "calls": calls, **bounds(events, cost, walk, world.sight.radius)}
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=25)
    parser.add_argument("--hours", type=int, default=38, help="38: the two days")
    parser.add_argument("--slots", type=int, default=64)
    parser.add_argument("--base-ms", type=float, default=150.0)
    parser.add_argument("--per-token-ms", type=float, default=5.0)
    parser.add_argument(
        "--seconds-per-tile",
        type=float,
        default=10.0,
        help="the scenario's 10: a 64-tile horizon; more: a shorter one",
    )
    parser.add_argument(
        "--replay", type=Path, help="a lockstep run's directory: print its bounds only"
    )
    args = parser.parse_args()
    if args.replay is not None:
        replay(args.replay, args)
        return
    with tempfile.TemporaryDirectory(prefix="bench-served-") as root:
        a, lockstep_s, first, events, _, (walk, sight) = play("lockstep", root + "/a", args)
        b, ooo_s, server, _, ahead, _ = play("out_of_order", root + "/b", args)
        found = compare_runs(a, b)
    calls = [e for e in events if e.kind == "llm.call"]
    cost = (args.base_ms / 1000, args.per_token_ms / 1000)
    print(
        json.dumps(
            {
                "agents": args.agents,
                "simulated_hours": args.hours,
                "calls": len(calls),
                "conversations": sum(1 for e in events if e.kind == "conversation"),
                "slots": args.slots,
                "call_ms": f"{args.base_ms} + {args.per_token_ms} per token",
                "seconds_per_tile": args.seconds_per_tile,
                "lockstep_s": round(lockstep_s, 2),
                "out_of_order_s": round(ooo_s, 2),
                **bounds(events, cost, walk, sight),
                "speedup": round(lockstep_s / ooo_s, 3),
                "slot_utilisation": round(server.held_s / (args.slots * ooo_s), 4),
                "slot_utilisation_lockstep": round(first.held_s / (args.slots * lockstep_s), 4),
                "peak_in_flight": [first.peak, server.peak],
                "cpu_s": [round(first.cpu_s, 1), round(server.cpu_s, 1)],
                "taken_ahead": ahead,
                "same_events": found.same,
            }
        )
    )


if __name__ == "__main__":
    main()
