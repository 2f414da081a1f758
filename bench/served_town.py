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
stand-in charges for its tokens; no schedule can be faster with these calls.
`slot_utilisation` is the share of slot-seconds in use over the out-of-order run's wall time.
`same_events`: the two logs agree, wall-clock fields aside (`simulacra diff`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
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


def critical_path(events: list[Event], base_s: float, per_token_s: float) -> float:
    """The longest chain of dependent calls in a log (see the module's docstring)."""
    talks = [
        (i, set(e.data["participants"])) for i, e in enumerate(events) if e.kind == "conversation"
    ]
    ready: dict[str, float] = {}
    for i, event in enumerate(events):
        if event.kind != "llm.call" or event.agent is None:
            continue
        cost = base_s + per_token_s * event.data["completion_tokens"]
        me = event.agent
        held = [me]
        if event.data["purpose"].startswith("converse."):
            # The conversation this turn belongs to: the next one logged with this speaker.
            who = next((w for j, w in talks if j > i and me in w), {me})
            held = sorted(who)
        end = max(ready.get(a, 0.0) for a in held) + cost
        for agent in held:
            ready[agent] = end
    return max(ready.values(), default=0.0)


def play(
    schedule: str, root: str, args: argparse.Namespace
) -> tuple[Path, float, Batching, list[Event], int]:
    """The run's directory, wall time, stand-in, events and decisions taken from ahead."""
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
    return done.path, wall, server, list(read_events(done.events_path)), seen[-1].ahead


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
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-served-") as root:
        a, lockstep_s, first, events, _ = play("lockstep", root + "/a", args)
        b, ooo_s, server, _, ahead = play("out_of_order", root + "/b", args)
        found = compare_runs(a, b)
    calls = [e for e in events if e.kind == "llm.call"]
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
                "bound_s": round(
                    critical_path(events, args.base_ms / 1000, args.per_token_ms / 1000), 2
                ),
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
