"""A thousand agents: the run pipeline against a stand-in for a served model, at scale.

The stand-in is the fault server (`simulacra.llm.fault_server`) in its own process, answering
every call after a fixed LATENCY_S with a valid answer for the schema the request names; the
run goes through the real OpenAI-compatible client and the real pipeline (events, memory
streams in SQLite, the run's response cache, checkpoints, metrics; no HTML report).

Prints one JSON line per figure set, each measured in a child process of its own so that its
peak resident memory is its own:

- `town`: TOWN_AGENTS generated residents (`town_personas`) for TOWN_HOURS simulated hours
  from 07:00, the shipped town's day, on a tile map: `town_map` sketches Willow Bend's
  public places above rows of lots (homes of HOUSEHOLD people, a workplace for every
  WORKERS), drawn in tiles as the shipped town is (scripts/willow_bend_map.py), so that
  residents walk tile by tile and perceive by sight (radius, their own area, bandwidth,
  retention). `--town-agents 10000` is the ten-thousand-resident town.
- `commute`: COMMUTE_AGENTS commuters of the four profiles for COMMUTE_DAYS working days
  (a month of ticks), with the builtin executor and the 80% taxi strike of days 11-15.
- `endpoints`: the client alone against 1, 2 and 4 servers of ENDPOINT_CAPACITY batch slots
  each, round-robin, with the same concurrency per endpoint: throughput and its ratio to one.

Figures: `calls`; `wall_s` against `ideal_s` = calls / concurrency x latency (goal: within
1.5x); `overhead_ms_per_agent_tick`, the wall time during which no model call was in flight,
per agent-tick (the engine's own serial time: world, perception, memory writes, the log);
`cpu_ms_per_agent_tick`, all of this process's CPU (engine and client); `peak_rss_mb` (goal
under 4,096 for the thousand-resident town, 8,192 for ten thousand); the event log's size;
the machine's load when the set ended.

Why CONCURRENCY = 256: it is vLLM's default number of sequences a server batches
(`max_num_seqs`), so one stand-in server plays one served model as deployed by default;
and the client and the engine share one interpreter, where 256 calls a second cost the
client about a quarter of a core, leaving the rest to the engine on a busy 2-core machine.

The stand-in gives every agent the same answer for a schema, so the bench scenario is shaped
so that one answer is valid for all: every commute profile's destination is the city centre
(the plan's schema lists the one destination an identity may name), and everyone walks. The
town's day plan is the one answer read off its prompt (`town_reply`): home, from the
character card, until 08:00 and from 17:00, and between them the first workplace the list of
places names after that home, a few doors down (a plan's places are an enum of the map's).
Importance is by rule and embeddings are hashed: the model-facing path is what is measured.
It takes about an hour on a 2-core machine, most of it the commute month (490,000 calls,
about 40 minutes).

    python bench/scale.py                       # all three figure sets
    python bench/scale.py --only town --town-agents 200 --town-hours 2
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simulacra.experiments import load_scenario, run
from simulacra.experiments.load import read_raw
from simulacra.experiments.models import load_run_model
from simulacra.experiments.scenario import Scenario
from simulacra.llm import RawReply, Request, chat, load_model
from simulacra.llm.fault_server import FaultServer
from simulacra.memory.prompts import Insight, Insights, ReflectionQuestions
from simulacra.mind.commuter.prompts import Patterns, Reflection
from simulacra.mind.interview import InterviewOutput
from simulacra.mind.town.converse_prompts import TurnOutput
from simulacra.mind.town.plan_prompts import (
    ActionsOutput,
    DailyPlanOutput,
    DaySummaryOutput,
    HourlyOutput,
    NextStepOutput,
    PlannedBlock,
    ReplanOutput,
)
from simulacra.mind.town.react_prompts import ReactionOutput
from simulacra.runlog import read_events

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from willow_bend_map import drawn  # the shipped town's drawing, for the big towns

LATENCY_S = 1.0
CONCURRENCY = 256
TOWN_AGENTS = 1000
TOWN_HOURS = 14
HOUSEHOLD = 8
WORKERS = 40  # residents a workplace
COMMUTE_AGENTS = 10_000
COMMUTE_DAYS = 20
ENDPOINTS = (1, 2, 4)
ENDPOINT_CAPACITY = 64
SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"

_FIRST = (
    "Ada Ben Cora Dev Elif Finn Gita Hugo Ines Jon Kira Leo Mina Nils Oona Pavel Quinn "
    "Rosa Sami Tara Umar Vera Wes Xena Yusuf Zoe Alma Bruno Chloe Dario Esme Felix Greta "
    "Hana Ivo Juno Karl Lila Milo Noor"
)
_LAST = (
    "Abbott Baker Castro Dunn Ellis Fischer Garcia Hale Ito Jensen Kaur Lopez Moreau "
    "Novak Olsen Patel Quint Reyes Silva Tanaka Ueda Varga Walsh Xu Young Zielinski Arden "
    "Brook Carver Doyle"
)
FIRST, LAST = _FIRST.split(), _LAST.split()
TRAITS = ("calm", "curious", "friendly", "careful", "cheerful", "quiet", "busy", "patient")
JOBS = ("a nurse", "a carpenter", "a teacher", "a clerk", "a baker", "a student", "retired")


class InFlight:
    """Wraps a backend and sums the wall time during which at least one call is running."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.busy_s = 0.0
        self._running = 0
        self._since = 0.0

    async def generate(
        self, request: Request, schema: dict[str, Any] | None, seed: int
    ) -> RawReply:
        if self._running == 0:
            self._since = time.perf_counter()
        self._running += 1
        try:
            reply: RawReply = await self.inner.generate(request, schema, seed)
            return reply
        finally:
            self._running -= 1
            if self._running == 0:
                self.busy_s += time.perf_counter() - self._since


def town_personas(count: int, homes: list[str], work: dict[str, str]) -> list[dict[str, Any]]:
    """`count` residents, the same every time: unique ids and names, HOUSEHOLD to a home,
    each working at its home's workplace in `work` (named in the background, so that the
    resident knows it from the start: a plan may send it only to places it knows)."""
    names = itertools.product(LAST, FIRST)
    people = []
    for i in range(count):
        last, first = next(names, ("Resident", str(i)))
        job, home = JOBS[i % len(JOBS)], homes[i // HOUSEHOLD]
        people.append(
            {
                "id": f"{first}_{last}_{i}".lower(),
                "name": f"{first} {last}",
                "age": 18 + (i * 7) % 62,
                "traits": [TRAITS[i % len(TRAITS)], TRAITS[(i // len(TRAITS)) % len(TRAITS)]],
                "background": f"{first} is {job} at {work[home]} who has lived here for years.",
                "lifestyle": "Wakes at 7:00, works until 17:00, sleeps around 22:00.",
                "home": home,
            }
        )
    return people


def town_map(households: int, workplaces: int) -> dict[str, Any]:
    """Willow Bend's public places above rows of lots, every lot reached by road: homes of
    HOUSEHOLD people with a workplace every few (a sketch, drawn as a tile map below)."""
    willow = read_raw(SCENARIOS / "town" / "map.yaml")
    public = [p for p in willow["places"] if p["kind"] != "home"]
    names = {p["name"] for p in public}
    roads = [r for r in willow["roads"] if set(r["between"]) <= names]
    lots = [_home(i) for i in range(households)]
    for i in range(workplaces):  # spread among the homes
        lots.insert(round((i + 0.5) * len(lots) / workplaces), _workplace(i))
    columns = max(1, math.ceil(math.sqrt(len(lots))))
    for i, lot in enumerate(lots):
        row, column = divmod(i, columns)
        lot.update(x=4 + 12 * column, y=willow["height"] + 4 + 10 * row, w=10, h=8)
        # Along the row, and the first of each row to the row above (the first to the square).
        left = lots[i - 1] if column else (lots[i - columns] if row else {"name": "Town Square"})
        roads.append({"between": [left["name"], lot["name"]], "minutes": 3})
    return {
        "name": "Willow Bend, enlarged",
        "width": max(willow["width"], 8 + 12 * columns),
        "height": willow["height"] + 8 + 10 * math.ceil(len(lots) / columns),
        "places": public + lots,
        "roads": roads,
    }


def _home(i: int) -> dict[str, Any]:
    areas = [
        {"name": "bedroom", "objects": [{"name": "bed"}]},
        {"name": "kitchen", "objects": [{"name": "stove"}]},
    ]
    return {"name": f"Home {i + 1}", "kind": "home", "areas": areas}


def _workplace(i: int) -> dict[str, Any]:
    areas = [{"name": "workroom", "objects": [{"name": "desk"}, {"name": "printer"}]}]
    return {"name": f"Workplace {i + 1}", "kind": "work", "areas": areas}


def town_scenario(
    agents: int, hours: int, root: Path, spec: str, schedule: str = "lockstep"
) -> Scenario:
    households = math.ceil(agents / HOUSEHOLD)
    sketch = town_map(households, _workplaces(agents))
    homes = [p["name"] for p in sketch["places"] if p["kind"] == "home"]
    work = _work(sketch["places"])
    raw = {
        "name": "scale-town",
        "seed": 7,
        "model": _model(spec, root),
        "clock": {
            "start": "2024-02-14T07:00",
            "tick": "10m",
            "duration": f"{hours}h",
            "schedule": schedule,
        },
        "world": {"kind": "town", "map": drawn(sketch)},
        "agents": {"mind": "generative", "personas": town_personas(agents, homes, work)},
        "memory": {"importance": "rule", "embedder": "hashing"},
        "output": {"root": str(root), "report": False},
    }
    return load_scenario(raw)


def _work(places: list[dict[str, Any]]) -> dict[str, str]:
    """Each home's workplace: the first the map lists after it (a few doors down)."""
    names = [(p["name"], p["kind"]) for p in places]
    work: dict[str, str] = {}
    following = None
    for name, kind in reversed(names + names):  # the last homes work at the first workplace
        if kind == "work":
            following = name
        elif kind == "home" and following is not None:
            work.setdefault(name, following)
    return work


def _workplaces(agents: int) -> int:
    return max(1, math.ceil(agents / WORKERS))


def commute_scenario(agents: int, days: int, root: Path, spec: str) -> Scenario:
    raw = read_raw(SCENARIOS / "commute.yaml")
    profiles = read_raw(SCENARIOS / "commute" / "profiles.yaml")["profiles"]
    zones = raw["world"]["city"]["zones"]
    share, rest = divmod(agents, len(profiles))
    overrides = [f"agents.mix.{p}={share + (i < rest)}" for i, p in enumerate(profiles)]
    for name, profile in profiles.items():
        km = round(abs(zones[profile["home"]] - zones["city_centre"]), 1)
        overrides += [
            f"agents.profiles.{name}.destination=city_centre",
            f"agents.profiles.{name}.distance_km={km}",
        ]
    raw["world"]["city"]["taxi_strikes"] = [
        {"days": [d for d in (11, 12, 13, 14, 15) if d <= days] or [days], "out_of_service": 0.8}
    ]
    raw.update(model=_model(spec, root), output={"root": str(root), "report": False})
    raw.pop("sweep")
    raw["clock"]["ticks"] = days
    return load_scenario(raw, overrides, base=SCENARIOS)


def _model(spec: str, root: Path) -> dict[str, Any]:
    # The run's response cache, as a run on a served model has one (a write per call).
    cache = str(root / "llm_cache.sqlite")
    return {"spec": spec, "concurrency": CONCURRENCY, "timeout_s": 60, "cache": cache}


def town_answers() -> dict[str, str]:
    """A valid answer for every output model the generative agent asks for but the day's plan
    (`town_reply`)."""
    home = [PlannedBlock(start="18:00", place="home", activity="having dinner")]
    said = "Good to see you; I am busy today, talk soon."
    answers = [
        ReplanOutput(blocks=home),
        HourlyOutput(activities=["reading emails", "writing a report", "making tea"]),
        ActionsOutput(
            actions=["open the laptop", "read emails", "make a cup of tea"],
            # No object: the hour's object is one of those known where it is spent, and one
            # answer serves the homes (a stove) and the workplaces (a desk) alike.
            object="none",
            state="",
        ),
        NextStepOutput(place="home", activity="tidying up", minutes=30),
        DaySummaryOutput(summary="A day at work, then a quiet evening at home."),
        ReactionOutput(),
        TurnOutput(text=said, end=True),
        InterviewOutput(answer="Nothing special; a day at work."),
        ReflectionQuestions(questions=["What does my working day look like?"]),
        Insights(insights=[Insight(text="My working days are regular.", evidence=[1])]),
    ]
    return {type(a).__name__: a.model_dump_json() for a in answers}


def town_reply(request: dict[str, Any]) -> str | None:
    """The day's plan, read off its prompt: at home (the character card's) until 08:00 and
    from 17:00, the working day at the first workplace the list of places names after the
    home (the map lists lots in the order they stand in, so it is a few doors down)."""
    if request.get("response_format", {}).get("json_schema", {}).get("name") != "DailyPlanOutput":
        return None
    prompt = request["messages"][-1]["content"]

    def line(lead: str) -> str:
        return str(prompt.split(f"\n{lead}: ", 1)[1].split("\n", 1)[0])

    home, listed = line("Home"), line("Places").split(", ")
    after = listed[listed.index(home) :] + listed
    work = next(p for p in after if p.startswith("Workplace "))
    day = [
        ("07:00", "waking up and getting ready", home),
        ("08:00", "working", work),
        ("12:00", "having lunch", work),
        ("13:00", "working", work),
        ("17:00", "cooking dinner", home),
        ("22:00", "sleeping", home),
    ]
    blocks = [PlannedBlock(start=at, place=where, activity=what) for at, what, where in day]
    return DailyPlanOutput(blocks=blocks).model_dump_json()


def commute_answers() -> dict[str, str]:
    """Valid for every profile once each profile's destination is the city centre."""
    day = {"departure": "07:30", "mode": "walk", "destination": "city_centre"}
    said = "Walking got me there on time. I will leave at 07:30 again."
    return {
        "IdentityWeeklyPlan": json.dumps({"days": [day] * 5}),
        "IdentityDayPlan": json.dumps(day),
        Reflection.__name__: Reflection(summary=said).model_dump_json(),
        Patterns.__name__: Patterns(pattern=said).model_dump_json(),
    }


def measure_run(figures: str, scenario: Scenario, server: FaultServer) -> dict[str, Any]:
    """Run the scenario on the server's model; the figures of one JSON line."""
    model = load_run_model(scenario)
    timer = InFlight(model.backend)
    model.backend = timer
    cpu_started, started = time.process_time(), time.perf_counter()
    done = run(scenario, model=model, progress=sys.stderr.isatty())
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    calls = fallbacks = ticks = events = 0
    for event in read_events(done.events_path):
        events += 1
        if event.kind == "llm.call":
            calls += 1
            fallbacks += bool(event.data["fallback"])
        elif event.kind == "world" and event.data["step"] > 0:
            ticks += 1
    agents = len(scenario.agents.personas) or sum(scenario.agents.mix.values())
    agent_ticks = agents * ticks
    ideal = calls / CONCURRENCY * LATENCY_S
    return {
        "figures": figures,
        "agents": agents,
        "ticks": ticks,
        "tick": str(scenario.clock.tick),
        "calls": calls,
        "fallbacks": fallbacks,
        "concurrency": CONCURRENCY,
        "latency_s": LATENCY_S,
        "wall_s": round(wall, 1),
        "ideal_s": round(ideal, 1),
        "wall_over_ideal": round(wall / ideal, 3) if ideal else None,
        "overhead_ms_per_agent_tick": round(1000 * (wall - timer.busy_s) / agent_ticks, 3),
        "cpu_ms_per_agent_tick": round(1000 * cpu / agent_ticks, 3),
        "cpu_ms_per_call": round(1000 * cpu / calls, 3) if calls else None,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "events": events,
        "event_log_mb": round(done.events_path.stat().st_size / 2**20, 1),
        "server_peak_in_flight": server.peak_in_flight,
        "load_avg_1min": round(os.getloadavg()[0], 2),
    }


def on_stand_in(
    figures: str,
    answers: dict[str, str],
    build: Callable[[Path, str], Scenario],
    respond: Callable[[dict[str, Any]], str | None] | None = None,
) -> dict[str, Any]:
    """Build a scenario (in a scratch folder, on the stand-in's model spec) and measure it."""
    with (
        tempfile.TemporaryDirectory(prefix="bench-scale-") as root,
        FaultServer(
            latency_s=LATENCY_S,
            own_process=True,
            answers=answers,
            capacity=CONCURRENCY,
            respond=respond,
        ) as server,
    ):
        return measure_run(figures, build(Path(root), f"openai:{server.url}?model=x"), server)


def town(agents: int, hours: int, schedule: str = "lockstep") -> dict[str, Any]:
    def build(root: Path, spec: str) -> Scenario:
        return town_scenario(agents, hours, root, spec, schedule)

    figures = on_stand_in("town", town_answers(), build, town_reply)
    return {**figures, "simulated_hours": hours, "schedule": schedule}


def commute(agents: int, days: int) -> dict[str, Any]:
    def build(root: Path, spec: str) -> Scenario:
        return commute_scenario(agents, days, root, spec)

    return on_stand_in("commute", commute_answers(), build)


async def _rate(urls: list[str], concurrency: int) -> float:
    """Calls per second through one client spread round-robin over `urls`."""
    spec = f"openai:{urls[0]}?model=x" + (f"&endpoints={','.join(urls[1:])}" if urls[1:] else "")
    model = load_model(spec, concurrency=concurrency, timeout_s=60.0, attempts=1)

    def ask(i: int) -> Request:
        return Request(chat("Answer briefly.", f"Question {i}?"), purpose="bench.scale")

    await asyncio.gather(*(model.complete(ask(i)) for i in range(concurrency)))  # connect
    calls = 8 * concurrency
    started = time.perf_counter()
    done = await asyncio.gather(*(model.complete(ask(i)) for i in range(calls)))
    elapsed = time.perf_counter() - started
    await model.aclose()
    if any(c.fallback for c in done):
        raise RuntimeError("a benchmark call failed; the figures would be meaningless")
    return calls / elapsed


def endpoints() -> dict[str, Any]:
    rates: dict[str, float] = {}
    for count in ENDPOINTS:
        servers = [
            FaultServer(latency_s=LATENCY_S, own_process=True, capacity=ENDPOINT_CAPACITY)
            for _ in range(count)
        ]
        try:
            urls = [s.start().url for s in servers]
            rate = asyncio.run(_rate(urls, ENDPOINT_CAPACITY * count))
        finally:
            for s in servers:
                s.stop()
        rates[str(count)] = round(rate, 1)
    one = rates[str(ENDPOINTS[0])]
    return {
        "figures": "endpoints",
        "capacity_per_endpoint": ENDPOINT_CAPACITY,
        "concurrency_per_endpoint": ENDPOINT_CAPACITY,
        "latency_s": LATENCY_S,
        "calls_per_s": rates,
        "ideal_calls_per_s": {c: ENDPOINT_CAPACITY * int(c) / LATENCY_S for c in rates},
        "ratio_to_one": {c: round(r / one, 3) for c, r in rates.items()},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("town", "commute", "endpoints"))
    parser.add_argument("--town-agents", type=int, default=TOWN_AGENTS)
    parser.add_argument("--town-hours", type=int, default=TOWN_HOURS)
    parser.add_argument("--town-schedule", choices=("lockstep", "out_of_order"), default="lockstep")
    parser.add_argument("--commute-agents", type=int, default=COMMUTE_AGENTS)
    parser.add_argument("--commute-days", type=int, default=COMMUTE_DAYS)
    args = parser.parse_args()
    if args.only == "town":
        print(json.dumps(town(args.town_agents, args.town_hours, args.town_schedule)), flush=True)
    elif args.only == "commute":
        print(json.dumps(commute(args.commute_agents, args.commute_days)), flush=True)
    elif args.only == "endpoints":
        print(json.dumps(endpoints()), flush=True)
    else:  # each figure set in a child process: its peak memory is its own
        for figures in ("endpoints", "town", "commute"):
            subprocess.run([sys.executable, __file__, *sys.argv[1:], "--only", figures], check=True)


if __name__ == "__main__":
    main()
