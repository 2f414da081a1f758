"""The builtin executor: a deterministic discrete-event simulation of one day, in SimPy.

Buses run their timetable from both terminals and board waiting riders first come, first
served, up to capacity, while dwelling at each stop; a rider who reaches the stop after the bus
has left waits for the next one. Taxis start the day at their ranks, spread along the corridor
and `taxi.rank_km` off it by road; a request goes to the nearest free taxi by road; when none
is free it joins a first-in, first-out queue served by the next taxi to finish a drop-off.
Walking is distance over speed. The simulation stops when the day's window closes.
"""

from __future__ import annotations

import bisect
from collections import deque
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

import simpy

from simulacra.core.times import format_hhmm
from simulacra.worlds.commute.city import City, Direction
from simulacra.worlds.commute.outcomes import Trip, TripOutcome, classify

_Process = Generator[Any, Any, None]
# Lets an event at exactly the window's close still run; nothing later does.
_EPSILON = 1e-6


@dataclass
class _Progress:
    """The timestamps one trip has reached so far (minutes since midnight)."""

    trip: Trip
    distance_km: float
    access_km: float = 0.0
    egress_km: float = 0.0
    at_stop: float | None = None
    board: float | None = None
    alight: float | None = None
    pickup: float | None = None
    arrival: float | None = None
    cost: float = 0.0
    notes: list[str] = field(default_factory=list)


@dataclass
class _Rider:
    progress: _Progress
    at_stop: float
    seq: int
    alight_stop: int
    boarded: simpy.Event
    alighted: simpy.Event


@dataclass
class _Taxi:
    """A taxi moving from (x0, y0) towards (x1, y1) since t0: x along the corridor, y off it
    (its rank's distance by road), on a street grid (a kilometre off the corridor and a
    kilometre along it cost the same time)."""

    number: int
    rank: tuple[float, float]
    x0: float
    y0: float
    x1: float
    y1: float
    t0: float
    busy: bool = False

    def position(self, now: float, km_per_min: float) -> tuple[float, float]:
        span = abs(self.x1 - self.x0) + abs(self.y1 - self.y0)
        done = 1.0 if span == 0 else min(1.0, (now - self.t0) * km_per_min / span)
        return self.x0 + done * (self.x1 - self.x0), self.y0 + done * (self.y1 - self.y0)

    def road_km(self, now: float, km_per_min: float, x: float) -> float:
        """By road from where it is now to corridor position `x`."""
        here_x, here_y = self.position(now, km_per_min)
        return abs(here_x - x) + abs(here_y)

    def head_for(self, now: float, km_per_min: float, x: float, y: float) -> None:
        self.x0, self.y0 = self.position(now, km_per_min)
        self.x1, self.y1, self.t0 = x, y, now


class BuiltinExecutor:
    """`execute_day(day, trips)` in simulated time; no I/O, same input, same output."""

    name = "builtin"

    def __init__(self, city: City) -> None:
        self.city = city

    def execute_day(self, day: int, trips: Sequence[Trip]) -> list[TripOutcome]:
        return _Day(self.city, day, trips).run()


class _Day:
    def __init__(self, city: City, day: int, trips: Sequence[Trip]) -> None:
        self.city = city
        self.day = day
        self.window = city.window
        self.env = simpy.Environment(initial_time=self.window.start_min)
        self.progress = [self._start(trip) for trip in trips]
        self.queues: dict[tuple[int, Direction], list[_Rider]] = {}
        self.taxi_queue: deque[_Progress] = deque()
        speed = city.config.taxi.speed_kmh / 60.0
        self.taxi_km_per_min = speed
        self.taxis = [self._at_rank(n) for n in city.taxis_in_service(day)]
        self._seq = 0

    def _at_rank(self, number: int) -> _Taxi:
        x, y = self.city.taxi_stand(number), self.city.config.taxi.rank_km
        return _Taxi(number, (x, y), x, y, x, y, 0.0)

    def _start(self, trip: Trip) -> _Progress:
        if not self.window.contains(trip.departure_min):
            raise ValueError(
                f"trip of {trip.agent} departs at minute {trip.departure_min:g}, outside the "
                f"day's window {self.window}; plans must depart inside it"
            )
        return _Progress(trip, self.city.distance_km(trip.origin, trip.destination))

    def run(self) -> list[TripOutcome]:
        for p in self.progress:
            if p.trip.mode == "walk":
                p.arrival = p.trip.departure_min + self.city.walk_minutes(p.distance_km)
            elif p.trip.mode == "bus":
                self.env.process(self._ride_bus(p))
            elif p.trip.mode == "taxi":
                self.env.process(self._hail_taxi(p))
        for direction in ("east", "west"):
            for departure in self.city.bus_departures:
                self.env.process(self._bus_run(direction, departure))
        self.env.run(until=self.window.end_min + _EPSILON)
        return [self._outcome(p) for p in self.progress]

    # --- bus -------------------------------------------------------------------------------

    def _ride_bus(self, p: _Progress) -> _Process:
        city, trip = self.city, p.trip
        origin, destination = city.position(trip.origin), city.position(trip.destination)
        board_stop, alight_stop = city.nearest_stop(origin), city.nearest_stop(destination)
        yield self.env.timeout(trip.departure_min - self.env.now)
        if board_stop == alight_stop:
            p.notes.append("origin and destination share a stop: walked")
            p.access_km = p.distance_km
            walk = city.walk_minutes(p.distance_km)
            yield self.env.timeout(walk)
            p.arrival = self.env.now
            return
        p.access_km = abs(city.stops[board_stop] - origin)
        p.egress_km = abs(city.stops[alight_stop] - destination)
        p.at_stop = self.env.now + city.walk_minutes(p.access_km)
        direction: Direction = "east" if alight_stop > board_stop else "west"
        rider = _Rider(p, p.at_stop, self._seq, alight_stop, self.env.event(), self.env.event())
        self._seq += 1
        queue = self.queues.setdefault((board_stop, direction), [])
        bisect.insort(queue, rider, key=lambda r: (r.at_stop, r.seq))
        p.board = yield rider.boarded
        p.cost += city.config.bus.fare_eur
        p.alight = yield rider.alighted
        yield self.env.timeout(city.walk_minutes(p.egress_km))
        p.arrival = self.env.now

    def _bus_run(self, direction: Direction, departure: float) -> _Process:
        city = self.city
        dwell = city.config.bus.dwell_s / 60.0
        capacity = city.config.bus.capacity
        onboard: list[_Rider] = []
        for hops, stop in enumerate(city.stop_order(direction)):
            leaves = city.departs_stop(departure, hops)
            arrives = leaves - dwell if hops else leaves
            yield self.env.timeout(max(0.0, arrives - self.env.now))
            for rider in [r for r in onboard if r.alight_stop == stop]:
                rider.alighted.succeed(self.env.now)
            onboard = [r for r in onboard if r.alight_stop != stop]
            yield self.env.timeout(max(0.0, leaves - self.env.now))
            queue = self.queues.get((stop, direction), [])
            ready = [r for r in queue if r.at_stop <= self.env.now]
            room = capacity - len(onboard)
            boarding, left = ready[:room], ready[room:]
            for rider in left:
                rider.progress.notes.append("left behind by a full bus")
            for rider in boarding:
                queue.remove(rider)
                rider.boarded.succeed(self.env.now)
                onboard.append(rider)

    # --- taxi ------------------------------------------------------------------------------

    def _hail_taxi(self, p: _Progress) -> _Process:
        yield self.env.timeout(p.trip.departure_min - self.env.now)
        origin = self.city.position(p.trip.origin)
        free = [t for t in self.taxis if not t.busy]
        if not free:
            p.notes.append("no free taxi: queued")
            self.taxi_queue.append(p)
            return
        now, speed = self.env.now, self.taxi_km_per_min
        taxi = min(free, key=lambda t: (t.road_km(now, speed, origin), t.number))
        self._dispatch(taxi, p)

    def _dispatch(self, taxi: _Taxi, p: _Progress) -> None:
        taxi.busy = True
        self.env.process(self._serve(taxi, p))

    def _serve(self, taxi: _Taxi, p: _Progress) -> _Process:
        city, env = self.city, self.env
        origin, destination = city.position(p.trip.origin), city.position(p.trip.destination)
        speed = self.taxi_km_per_min
        approach_km = taxi.road_km(env.now, speed, origin)
        taxi.head_for(env.now, speed, origin, 0.0)
        yield env.timeout(city.config.taxi.dispatch_min + city.taxi_minutes(approach_km))
        p.pickup = env.now
        p.cost += city.taxi_fare(p.distance_km)
        yield env.timeout(city.taxi_minutes(p.distance_km))
        p.arrival = env.now
        taxi.x0 = taxi.x1 = destination
        taxi.y0 = taxi.y1 = 0.0
        taxi.t0 = env.now
        if self.taxi_queue:
            self._dispatch(taxi, self.taxi_queue.popleft())
            return
        taxi.busy = False
        if city.config.taxi.idle == "return":
            taxi.head_for(env.now, speed, *taxi.rank)

    # --- outcome ---------------------------------------------------------------------------

    def _outcome(self, p: _Progress) -> TripOutcome:
        trip, city, end = p.trip, self.city, self.window.end_min
        arrival = p.arrival if p.arrival is not None and p.arrival <= end else None
        walk = wait = ride = 0.0
        if trip.mode == "walk":
            walk = min(city.walk_minutes(p.distance_km), end - trip.departure_min)
        elif trip.mode == "taxi":
            wait = (p.pickup if p.pickup is not None else end) - trip.departure_min
            if p.pickup is not None:
                ride = min(p.arrival if p.arrival is not None else end, end) - p.pickup
        else:
            access = city.walk_minutes(p.access_km)
            walk = min(access, end - trip.departure_min)
            if p.at_stop is not None:
                wait = max(0.0, (p.board if p.board is not None else end) - p.at_stop)
            if p.board is not None:
                ride = (p.alight if p.alight is not None else end) - p.board
            if p.alight is not None:
                walk += min(city.walk_minutes(p.egress_km), end - p.alight)
        notes = list(dict.fromkeys(p.notes))
        if arrival is None:
            notes.append(f"not arrived by {format_hhmm(end)}, when the day's window closed")
        return TripOutcome(
            agent=trip.agent,
            day=self.day,
            mode=trip.mode,
            departure_min=trip.departure_min,
            deadline_min=trip.deadline_min,
            distance_km=p.distance_km,
            walk_min=round(walk, 4),
            wait_min=round(wait, 4),
            in_vehicle_min=round(ride, 4),
            arrival_min=None if arrival is None else round(arrival, 4),
            cost_eur=round(p.cost, 2),
            punctuality=classify(arrival, trip.deadline_min, city.config.on_time_window_min),
            note="; ".join(notes),
        )
