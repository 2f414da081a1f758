"""The SUMO executor: the same city and day in Eclipse SUMO, run through libsumo.

Each day is one SUMO run from five minutes before the window opens to its close: the bus
timetable as vehicles with timed stops, the taxis in service with SUMO's taxi device (greedy
dispatch: reservations in order, each to the closest free taxi; a free taxi drives back to
its rank, a parking area `taxi.rank_km` off the corridor, see stands.py), and one person per
trip walking, riding the bus or riding a taxi. Outcomes come from the tripinfo output (person
stages) and the stop output (bus boardings, pickups, drop-offs and taxis at their ranks).
See docs/commute.md for where its figures and the builtin executor's differ.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from simulacra.core.times import format_hhmm
from simulacra.worlds.commute.city import City
from simulacra.worlds.commute.outcomes import Trip, TripOutcome, classify
from simulacra.worlds.commute.sumo.demand import LEAD_S, write_routes
from simulacra.worlds.commute.sumo.network import build_network, sumo_binary, write_stops
from simulacra.worlds.commute.sumo.outputs import (
    PersonInfo,
    StopEvent,
    read_personinfo,
    read_stop_events,
)
from simulacra.worlds.commute.sumo.stands import write_stands

# How often SUMO's dispatcher assigns taxis (its default is 60 s). The builtin executor
# sends a taxi the moment it is free; every second comes nearest, if only just (the 40%
# strike's reference day: 26.4 minutes with 1 s, 26.8 with 10 s, 26.9 with 60 s; builtin 24.5).
DISPATCH_PERIOD_S = 1
# The builtin executor's idle behaviours in SUMO: back to the taxi's own rank (a parking
# area named by its rerouter), or wait where the last passenger got out.
IDLE_ALGORITHM = {"return": "taxistand", "stay": "stop"}


class SumoExecutor:
    name = "sumo"

    def __init__(self, city: City, workdir: str | Path | None = None) -> None:
        self.city = city
        self.workdir = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="commute-sumo-"))
        self.net = build_network(city, self.workdir)
        self.stops_file = self.workdir / "stops.add.xml"
        write_stops(self.net, self.stops_file)
        self.stands_file = self.workdir / "stands.add.xml"
        write_stands(self.net, self.stands_file)
        self.last_stop_events: list[StopEvent] = []

    def execute_day(self, day: int, trips: Sequence[Trip]) -> list[TripOutcome]:
        window = self.city.window
        for trip in trips:
            if not window.contains(trip.departure_min):
                raise ValueError(
                    f"trip of {trip.agent} departs at {format_hhmm(trip.departure_min)}, outside "
                    f"the day's window {window}; plans must depart inside it"
                )
        routes = self.workdir / f"day{day:03d}.rou.xml"
        tripinfo = self.workdir / f"day{day:03d}.tripinfo.xml"
        stops = self.workdir / f"day{day:03d}.stops.xml"
        write_routes(self.net, day, trips, routes)
        self._simulate(routes, tripinfo, stops)
        people = read_personinfo(tripinfo)
        self.last_stop_events = read_stop_events(stops)
        return [self._outcome(day, trip, people.get(trip.agent)) for trip in trips]

    def _simulate(self, routes: Path, tripinfo: Path, stops: Path) -> None:
        import libsumo

        window = self.city.window
        libsumo.start(
            [
                sumo_binary("sumo"),
                "--net-file",
                str(self.net.path),
                "--additional-files",
                f"{self.stops_file},{self.stands_file}",
                "--route-files",
                str(routes),
                "--begin",
                f"{window.start_min * 60 - LEAD_S:.0f}",
                "--end",
                f"{window.end_min * 60:.0f}",
                "--tripinfo-output",
                str(tripinfo),
                "--tripinfo-output.write-unfinished",
                "true",
                "--stop-output",
                str(stops),
                "--stop-output.write-unfinished",
                "true",
                "--pedestrian.model",
                "nonInteracting",
                "--device.taxi.dispatch-algorithm",
                "greedy",
                "--device.taxi.dispatch-period",
                str(DISPATCH_PERIOD_S),
                "--device.taxi.idle-algorithm",
                IDLE_ALGORITHM[self.city.config.taxi.idle],
                "--default.speeddev",
                "0",
                "--no-step-log",
                "true",
                "--no-warnings",
                "true",
                "--duration-log.disable",
                "true",
                "--seed",
                "0",
            ]
        )
        try:
            libsumo.simulationStep(window.end_min * 60)
        finally:
            libsumo.close()

    def _outcome(self, day: int, trip: Trip, person: PersonInfo | None) -> TripOutcome:
        city, end = self.city, self.city.window.end_min
        distance = city.distance_km(trip.origin, trip.destination)
        walk = wait = ride = cost = 0.0
        notes: list[str] = []
        arrival: float | None = None
        if person is None:
            notes.append("SUMO reported nothing for this person")
        else:
            for stage in person.stages:
                stage_end = stage.arrival / 60 if stage.arrival >= 0 else end
                if stage.kind == "walk":
                    if stage.depart >= 0:
                        walk += stage_end - stage.depart / 60
                    continue
                if stage.depart < 0:  # never boarded: waited until the window closed
                    wait += stage.waiting / 60 if stage.waiting > 0 else 0.0
                    continue
                wait += stage.waiting / 60
                ride += stage_end - stage.depart / 60
                is_taxi = stage.vehicle.startswith("taxi")
                cost += city.taxi_fare(distance) if is_taxi else city.config.bus.fare_eur
            if person.arrival is not None and person.arrival / 60 <= end:
                arrival = person.arrival / 60
        if arrival is None:
            notes.append(f"not arrived by {format_hhmm(end)}, when the day's window closed")
        return TripOutcome(
            agent=trip.agent,
            day=day,
            mode=trip.mode,
            departure_min=trip.departure_min,
            deadline_min=trip.deadline_min,
            distance_km=distance,
            walk_min=round(walk, 4),
            wait_min=round(wait, 4),
            in_vehicle_min=round(ride, 4),
            arrival_min=None if arrival is None else round(arrival, 4),
            cost_eur=round(cost, 2),
            punctuality=classify(arrival, trip.deadline_min, city.config.on_time_window_min),
            note="; ".join(notes),
        )
