"""The town: agents walk between places along roads, see who and what is around them, use objects.

A tick's phases: `plan` (at the day's first tick), `decide` (its observation is what the agent
perceives), `act`, `reflect`, and `summarize` (at the day's last tick but the run's). In
`decide`, agents may ask to talk (`Action("talk", target=other)`): the world pairs them in the
seeded order, each agent in at most one conversation a tick, and only agents at the same
place. In `act`, in the seeded order, each agent:
- `do`: goes to `target` (a place; None means stay) and does `description`, optionally using
  `args["object"]` and setting it to `args["state"]`; `args["area"]` picks an area;
- `talk`: stays and talks with `args["with"]` (an agent's or a visitor's id).
Who talks with whom, and what visitors do: talk.py.
On a tile map (map.py) an agent stands on a tile and walks to another along the shortest way
around walls, a tile a movement step, the steps taken between decisions (walking.py); it
perceives by sight (sight.py) instead of everyone at its place, and each frame lists the tiles
each agent walked since the last one (`walks`), for the replay to animate.
A fault (an unknown place, area or object, an object in use) is rejected with a reason, and
the agent carries on with the activity where it is, without it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from simulacra.core import (
    Action,
    Encounter,
    Observation,
    Outcome,
    Phase,
    Resolution,
    Tick,
)
from simulacra.errors import unknown
from simulacra.worlds.town.known import Known
from simulacra.worlds.town.layout import Rect, along, area_rects, static_layout
from simulacra.worlds.town.map import TownMap
from simulacra.worlds.town.presence import Roster
from simulacra.worlds.town.roads import RoadGraph
from simulacra.worlds.town.rules import area_for, problem, text_of
from simulacra.worlds.town.sight import Attention, SightConfig, Track
from simulacra.worlds.town.talk import approached, here, paired, visited
from simulacra.worlds.town.things import Things
from simulacra.worlds.town.tiles import Tile
from simulacra.worlds.town.visitors import Visitors
from simulacra.worlds.town.walking import (
    area_of,
    arrival,
    spot,
    step_within,
    taken,
    walk_minutes,
    walked,
)
from simulacra.worlds.town.whereabouts import (
    Trip,
    Whereabouts,
    whereabouts_from,
    whereabouts_json,
)

PLAN, DECIDE, ACT = (
    Phase("plan"),
    Phase("decide", order="seeded", local=True),  # talkers pair only at the same place
    Phase("act", order="seeded"),
)
REFLECT, SUMMARIZE = Phase("reflect"), Phase("summarize")


def seen_as(w: Whereabouts) -> str:
    """How someone at a place is perceived."""
    return f"{w.name} is at {w.place} ({w.area}): {w.action}"


def _middle(tile: Tile) -> tuple[float, float]:
    return (tile[0] + 0.5, tile[1] + 0.5)


def _told(what: Whereabouts | str) -> str:
    """A sighting put into words: someone as seen, or an object's sentence as it is."""
    return what if isinstance(what, str) else seen_as(what)


class TownWorld:
    """The World protocol over a TownMap, on a simulated clock it is told to advance."""

    def __init__(
        self,
        town: TownMap,
        now: datetime,
        sight: SightConfig | None = None,
        seconds_per_tile: float = 10,
    ) -> None:
        self.town = town
        self.roads = RoadGraph(town)
        self.grid = town.tiles
        self.attention = Attention(sight or SightConfig())
        self.seconds_per_tile = seconds_per_tile
        self._steps: dict[str, list[Tile]] = {}  # tiles walked since the last frame
        self._walks: dict[str, list[Tile]] = {}  # tiles walked since the last look (sight.py)
        self._end: datetime | None = None  # when the tick under way ends (its frame's time)
        self.known = Known()
        self.now = now
        self.agents: Roster[Whereabouts] = Roster()
        self.things = Things(town)
        self._rects = {p.name: area_rects(p) for p in town.places}
        self._news: dict[str, list[str]] = {}
        self._talking: dict[str, str] = {}  # who talks with whom this tick
        self._logged: dict[str, list[Any]] = {}  # each agent's last logged action
        self.visitors = Visitors()

    def __deepcopy__(self, memo: dict[int, Any]) -> TownWorld:
        """A copy to run ahead on (engine/ahead.py): the map, its roads and tiles, and what
        is read off them never change, so the copy shares them."""
        static = (self.town, self.roads, self.grid, self._rects)
        for shared in (*static, *self.things.fixed()):
            memo[id(shared)] = shared
        copied = object.__new__(type(self))
        memo[id(self)] = copied
        for name, value in vars(self).items():
            setattr(copied, name, copy.deepcopy(value, memo))
        return copied

    # --- set-up -------------------------------------------------------------------------

    def add_agent(self, agent_id: str, name: str, place: str, knows: Sequence[str] = ()) -> None:
        """`place` is its home; it knows that and the places `knows` names from the start."""
        spec = self.town.place(place)
        if spec is None:
            raise ValueError(unknown("place", place, self.town.place_names))
        others = [p for k in knows if k != place and (p := self.town.place(k)) is not None]
        self.known.start(agent_id, [spec, *others])
        area = spec.areas[0]
        held = taken(self.agents, place)
        tile = None if self.grid is None else spot(self.grid, area, None, held)
        self.agents[agent_id] = Whereabouts(name, place, area.name, "starting the day", tile=tile)

    def layout(self) -> dict[str, Any]:
        return static_layout(self.town)

    # --- the World protocol -------------------------------------------------------------

    def begin(self, tick: Tick) -> None:
        """What agents come to know is listed from the tick's start (the start frame lists
        what they knew to begin with)."""
        self.known.learned.clear()
        self._end = tick.next

    def phases(self, tick: Tick) -> Sequence[Phase]:
        first = [PLAN] if tick.starts_day else []
        last = [SUMMARIZE] if tick.ends_day and not tick.last else []
        return [*first, DECIDE, ACT, REFLECT, *last]

    def observe(self, agent: str, phase: str, tick: Tick) -> Observation:
        if phase == ACT.name:
            partner = self._talking.get(agent)
            me = self.agents[agent]
            name = None if partner is None else here(partner, me.place, self.agents, self.visitors)
            if partner is None or name is None or me.trip:
                return Observation(agent, me.place)
            return Observation(
                agent, me.place, facts={"talking_with": partner, "partner_name": name}
            )
        if phase == DECIDE.name:
            return self.look(agent)
        if phase == PLAN.name:  # a plan chooses among the places the agent knows
            return Observation(
                agent, self.agents[agent].place, facts={"known": self.known.tree(agent)}
            )
        return Observation(agent, self.agents[agent].place)

    def resolve(self, phase: str, actions: Mapping[str, Action], tick: Tick) -> Resolution:
        if phase == DECIDE.name:
            pairs = paired(actions, self.agents, self._talking)
            spoken = approached(actions, self.agents, self.visitors, self._talking)
            return Resolution(encounters=pairs, addresses=spoken)
        if phase == ACT.name:
            return Resolution(outcomes={a: self._act(a, action) for a, action in actions.items()})
        return Resolution()

    def intervene(self, change: Mapping[str, Any], tick: Tick) -> Resolution:
        """`{"conversation": [a, b], "topic": ...}` makes two agents talk; `{"place", "object",
        "state", "text"}` changes an object's state, and everyone there notices `text`; a
        change naming a `visitor` is theirs (visitors.py)."""
        if "visitor" in change:
            heard, resolution = visited(change, self.agents, self.visitors)
            if heard is not None:
                self.announce(*heard)
            return resolution
        if "conversation" in change:
            a, b = change["conversation"]
            if a in self._talking or b in self._talking:
                return Resolution()
            self._talking[a], self._talking[b] = b, a
            return Resolution(encounters=[Encounter(a, b, str(change.get("topic", "")))])
        place, thing = str(change.get("place")), str(change.get("object"))
        outcome = self.set_object(place, thing, str(change.get("state")))
        if not outcome.ok:
            raise ValueError(outcome.reason)
        self.announce(place, str(change.get("text", "")))
        return Resolution()

    def _act(self, agent: str, action: Action) -> Outcome:
        """Apply; a rejected action is carried on where the agent is, without its place or
        object. A repeat of the agent's last logged action is not logged again, unless the
        world rejected it."""
        key = [
            action.description,
            action.target,
            action.args.get("object"),
            action.args.get("state"),
        ]
        outcome = self.apply(agent, action)
        if not outcome.ok:
            self.apply(agent, Action("do", action.description))
        where = self.agents[agent]
        facts: dict[str, Any] = {
            "place": action.target or where.place,
            "area": where.trip.area if where.trip else where.area,
            "object": action.args.get("object"),
            "object_state": action.args.get("state"),
            **outcome.facts,
        }
        if action.kind == "talk":
            facts = {"place": where.place, "area": where.area, "object": None, "object_state": None}
            key = ["talk", action.args.get("with")]
        logged = key != self._logged.get(agent) or not outcome.ok
        self._logged[agent] = key
        return replace(outcome, facts=facts, logged=logged)

    def look(self, agent_id: str) -> Observation:
        """People at the same place, changed objects in the same area, and what just happened.

        `facts`: `area`, `objects` (the object names at this place, for planning), `using`
        (the object this agent holds, if any), `doing` (the agent's own action, as others
        see it: the source's agent perceives its own event), `names` (id -> name of the
        people here) and `events` (world events announced at this place); `travelling`
        while on the way somewhere.
        """
        me = self.agents[agent_id]
        if me.trip is not None:
            return Observation(
                agent_id, f"on the way to {me.trip.stops[-1]}", facts={"travelling": True}
            )
        self._notice(agent_id, me)
        others = [(i, w) for i, w in self.agents.present(me.place) if i != agent_id]
        changed = self.things.changed_in(me.place, me.area)
        if self.grid is not None and me.tile is not None:
            others, texts = self._in_sight(agent_id, me, others, changed)
        else:
            texts = [seen_as(w) for _, w in others] + [text for _, text in changed]
        visiting = self.visitors.at(me.place)
        texts += [v.seen() for v in visiting]
        spec = self.town.place(me.place)
        assert spec is not None
        return Observation(
            agent_id,
            me.place,
            tuple(texts),
            tuple(i for i, _ in others),
            {
                "area": me.area,
                "objects": [t.name for a in spec.areas for t in a.objects],
                "using": me.object,
                "doing": seen_as(me),
                "names": {i: w.name for i, w in others} | {v.id: v.name for v in visiting},
                "visitors": [v.id for v in visiting],
                "events": list(self._news.get(me.place, [])),
                "known": self.known.tree(agent_id),
            },
        )

    def _notice(self, agent_id: str, me: Whereabouts) -> None:
        """The agent learns its area and the objects of it in sight (on a sketch map, all)."""
        spec = area_of(self.town, me.place, me.area)
        things = [
            t.name
            for t in spec.objects
            if me.tile is None or t.at is None or self.attention.within(me.tile, t.at)
        ]
        self.known.learn(agent_id, me.place, me.area, things)

    def _in_sight(
        self,
        agent_id: str,
        me: Whereabouts,
        others: list[tuple[str, Whereabouts]],
        changed: list[tuple[str, str]],
    ) -> tuple[list[tuple[str, Whereabouts]], list[str]]:
        """Who and what of its area the agent attends to, and the sentences it has not just
        perceived (sight.py)."""
        assert me.tile is not None
        seen: list[tuple[Track, str | None, Whereabouts | str]] = [
            (self._walks.get(i) or (tile,), i, w)
            for i, w in others
            if w.area == me.area and (tile := w.tile) is not None
        ]
        spec = area_of(self.town, me.place, me.area)
        at = {t.name: t.at for t in spec.objects if t.at is not None}
        seen += [((at[n],), None, text) for n, text in changed if n in at]
        mine = self._walks.get(agent_id) or (me.tile,)
        kept = self.attention.nearest(mine, seen, _told)
        who = {s.about for s in kept}
        texts = self.attention.fresh(agent_id, [s.text for s in kept])
        return [(i, w) for i, w in others if i in who], texts

    def announce(self, place: str, text: str) -> None:
        """Something everyone at `place` notices on their next look (until the clock moves)."""
        self._news.setdefault(place, []).append(text)

    def apply(self, agent_id: str, action: Action) -> Outcome:
        me = self.agents[agent_id]
        if action.kind == "talk":
            other = str(action.args.get("with", ""))
            if here(other, me.place, self.agents, self.visitors) is None:
                return Outcome(False, f"{other or 'nobody'} is not at {me.place} to talk with")
            self.agents[agent_id] = replace(me, action=action.description)
            return Outcome(True)
        if action.kind != "do":
            return Outcome(False, f'unknown action kind "{action.kind}"; the town knows do, talk')
        place = action.target or (me.trip.stops[-1] if me.trip else me.place)
        fault = problem(self.town, self.things.states, place, action.args)
        if fault:
            return Outcome(False, fault)
        if me.trip is not None:
            # Someone on the way finishes the walk; a changed destination is taken up on arrival.
            return Outcome(True, facts={"on_the_way_to": me.trip.stops[-1]})
        thing = text_of(action.args.get("object"))
        area = area_for(self.town, self.things.area_of, place, action.args, thing, me)
        if place != me.place:
            return self._depart(agent_id, place, area, action, thing)
        return self._settle(
            agent_id, area, action.description, thing, text_of(action.args.get("state"))
        )

    def advance(self, tick: Tick) -> None:
        self.now = tick.next
        self._news.clear()
        self._talking.clear()
        # Walks within a place are taken as the tick's actions settle, trips' steps here (the
        # tick's frame, written before, has shown them already: `_as_it_ends`).
        settled, self._steps = self._steps, {}
        trips: dict[str, list[Tile]] = {}
        for agent_id, me in sorted(self.agents.items()):
            trip = me.trip
            if trip is None:
                continue
            moved, steps = self._moved(me, trip, tick.now, self.now)
            if steps:  # the movement steps of this tick, one tile each
                trips[agent_id] = steps
            if moved.trip is not None:  # still on the way
                if moved.tile != me.tile:
                    self.agents[agent_id] = moved
                continue
            self.agents[agent_id] = moved
            outcome = self._settle(agent_id, trip.area, trip.description, trip.object, trip.state)
            if not outcome.ok:
                # The object was taken while on the way: do the activity without it.
                self._settle(agent_id, trip.area, trip.description, None, None)
        walkers = sorted(settled.keys() | trips.keys() | self._steps.keys())
        self._walks = {
            a: settled.get(a, []) + trips.get(a, []) + self._steps.get(a, []) for a in walkers
        }

    def snapshot(self) -> dict[str, Any]:
        return {
            "time": self.now.isoformat(),
            "agents": {i: whereabouts_json(w) for i, w in sorted(self.agents.items())},
            **self.things.snapshot(),
            "logged": dict(sorted(self._logged.items())),
            "visitors": self.visitors.snapshot(),
            "steps": {a: [list(t) for t in s] for a, s in sorted(self._steps.items())},
            "walks": {a: [list(t) for t in s] for a, s in self._walks.items()},
            "recent": dict(sorted(self.attention.recent.items())),
            "known": self.known.snapshot(),
        }

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        self.now = datetime.fromisoformat(snapshot["time"])
        self.agents = Roster({i: whereabouts_from(w) for i, w in snapshot["agents"].items()})
        self.things.restore(snapshot)
        self._logged = {a: list(key) for a, key in snapshot.get("logged", {}).items()}
        self.visitors = Visitors.restored(snapshot.get("visitors", []))
        self._steps = {a: [(x, y) for x, y in s] for a, s in snapshot.get("steps", {}).items()}
        self._walks = {a: [(x, y) for x, y in s] for a, s in snapshot.get("walks", {}).items()}
        self.attention.recent = {a: list(r) for a, r in snapshot.get("recent", {}).items()}
        self.known.restore(snapshot.get("known", {}))

    # --- what the engine and the viewer read --------------------------------------------

    def frame(self) -> dict[str, Any]:
        """Everyone's place, area, point and action as the tick ends, plus changed objects and
        occupancy."""
        agents: dict[str, Any] = {}
        occupancy: dict[str, int] = {}
        walks = {a: list(s) for a, s in self._steps.items()}
        for agent_id, now in sorted(self.agents.items()):
            me, steps = self._as_it_ends(now)
            if steps:
                walks.setdefault(agent_id, []).extend(steps)
            x, y = _middle(me.tile) if me.tile else self.position(agent_id)
            agents[agent_id] = {
                "place": None if me.trip else me.place,
                "area": None if me.trip else me.area,
                "x": x,
                "y": y,
                "action": me.action,
            }
            if me.trip is None:
                occupancy[me.place] = occupancy.get(me.place, 0) + 1
        frame: dict[str, Any] = {
            "agents": agents,
            "objects": self.things.changed(),
            "occupancy": dict(sorted(occupancy.items())),
        }
        if walks:  # each movement step since the last frame, for the replay to walk
            frame["walks"] = [
                {"agent": a, "tiles": [list(t) for t in s]} for a, s in sorted(walks.items())
            ]
        if self.known.learned:  # what agents came to know since the last frame
            frame["learned"] = list(self.known.learned)
        # Only where a console brought some, so that other runs' logs stay as they were.
        if self.visitors:
            frame["visitors"] = [
                {"id": i, "name": v.name, "x": x, "y": y, "place": v.place}
                for i, v in sorted(self.visitors.items())
                for x, y in [self._place_rect(v.place).centre]
            ]
        return frame

    def _as_it_ends(self, me: Whereabouts) -> tuple[Whereabouts, list[Tile]]:
        """Where a walker on a tile map stands when the tick ends, and the tiles it walks in
        the tick: the engine writes a tick's frame before `advance` walks it, and a frame shown
        at the tick's end with walkers where they set out saw a guest at a party one tick late
        (a sketch map's road trips are shown as they stand)."""
        trip, end = me.trip, self._end
        if trip is None or end is None or self.grid is None:
            return me, []
        return self._moved(me, trip, self.now, end)

    def _moved(
        self, me: Whereabouts, trip: Trip, since: datetime, until: datetime
    ) -> tuple[Whereabouts, list[Tile]]:
        """Where a walker stands at `until`, no longer on its way once it has arrived, and the
        tiles it walked since `since`."""
        steps = walked(trip, since, until, self.seconds_per_tile)
        tile = steps[-1] if steps else me.tile
        if trip.arrives > until:
            return replace(me, tile=tile), steps
        return Whereabouts(me.name, trip.stops[-1], trip.area, trip.description, tile=tile), steps

    def position(self, agent_id: str) -> tuple[float, float]:
        me = self.agents[agent_id]
        if me.tile is not None:
            return _middle(me.tile)
        if me.trip is not None:
            trip = me.trip
            total = (trip.arrives - trip.departed).total_seconds()
            share = (self.now - trip.departed).total_seconds() / total if total else 1.0
            centres = [self._place_rect(p).centre for p in trip.stops]
            return along(centres, share)
        here = [i for i, w in self.agents.present(me.place) if w.area == me.area]
        return self._rects[me.place][me.area].spot(here.index(agent_id), len(here))

    def horizon(self, tick: Tick) -> float | None:
        """Tiles an agent can walk in the tick plus its sight radius (None on a sketch map,
        where perception is by place and travel by road, so the engine keeps lockstep)."""
        if self.grid is None:
            return None
        return tick.length.total_seconds() / self.seconds_per_tile + self.attention.sight.radius

    def travel_minutes(self, origin: str, destination: str) -> int:
        return self.roads.minutes(origin, destination)

    def set_object(self, place: str, name: str, state: str) -> Outcome:
        """A world event from outside (an intervention): an object changes state on its own."""
        fault = problem(self.town, self.things.states, place, {"object": name})
        if fault:
            return Outcome(False, fault)
        self.things.states[(place, name)] = state
        return Outcome(True)

    # --- inside -------------------------------------------------------------------------

    def _place_rect(self, place: str) -> Rect:
        spec = self.town.place(place)
        assert spec is not None
        return Rect(spec.x, spec.y, spec.w, spec.h)

    def _depart(
        self, agent_id: str, place: str, area: str, action: Action, thing: str | None
    ) -> Outcome:
        """Set off for another place: along the roads of a sketch map, or on a tile map along
        the shortest walk to the activity's tile."""
        me = self.agents[agent_id]
        path: tuple[Tile, ...] = ()
        if self.grid is None:
            route = self.roads.route(me.place, place)
            stops, arrives = route.stops, self.now + timedelta(minutes=route.minutes)
            facts: dict[str, Any] = {"travel_minutes": route.minutes, "route": list(route.stops)}
        else:
            assert me.tile is not None
            goal = spot(
                self.grid, area_of(self.town, place, area), thing, taken(self.agents, place)
            )
            found = self.grid.path(me.tile, goal)
            if found is None:
                return Outcome(False, f"no way leads from {me.place} to {place}")
            path, stops = tuple(found), (me.place, place)
            arrives = arrival(self.now, len(path), self.seconds_per_tile)
            minutes = walk_minutes(len(path), self.seconds_per_tile)
            facts = {"travel_minutes": minutes, "tiles": len(path)}
        me = self._release(agent_id)
        state = text_of(action.args.get("state"))
        trip = Trip(stops, self.now, arrives, area, action.description, thing, state, path)
        self.agents[agent_id] = replace(me, action=f"walking to {place}", trip=trip)
        return Outcome(True, facts=facts)

    def _settle(
        self, agent_id: str, area: str, description: str, thing: str | None, state: str | None
    ) -> Outcome:
        me = self.agents[agent_id]
        if thing and me.object != thing:
            user = self.things.users.get((me.place, thing))
            if user is not None and user != agent_id:
                who = self.agents[user].name
                return Outcome(False, f"the {thing} at {me.place} is in use by {who}")
        if me.object != thing:
            me = self._release(agent_id)
        if thing:
            self.things.use(me.place, thing, agent_id, state)
        if self.grid is not None and me.tile is not None:
            # Walk within the place to the activity's tile, in the tick (its steps logged).
            me, path = step_within(self.grid, self.town, me, area, thing, self.agents)
            if path:
                self._steps.setdefault(agent_id, []).extend(path)
        settled = replace(me, area=area, action=description, object=thing)
        if settled != self.agents[agent_id]:  # a tick more of the same activity changes nothing
            self.agents[agent_id] = settled
        return Outcome(True)

    def _release(self, agent_id: str) -> Whereabouts:
        """Stop using the current object, which returns to its resting state."""
        me = self.agents[agent_id]
        if me.object is not None:
            self.things.release(me.place, me.object, agent_id)
            me = replace(me, object=None)
            self.agents[agent_id] = me
        return me
