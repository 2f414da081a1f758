"""The commute city: one straight corridor with a bus line along it, a taxi fleet and footpaths.

Positions are kilometres along the corridor (0 at the western terminal). Zones are named
positions; bus stops are evenly spaced from one terminal to the other. Parameters and where
they come from (each can be overridden in the scenario):

- day window 06:00-12:00: the source's simulated day (section 5.1).
- bus: 30-minute headway (source 5.1) from each terminal, 06:00 to 11:30; capacity 80 (a
  standard 12 m city bus); cruise 20 km/h with a 20 s dwell at every stop, about 16 km/h
  commercial speed, typical of a European city bus; fare 1.50 EUR (a single urban ticket).
- taxis: 64 (source 5.3); 25 km/h in town; 1 minute of dispatch and boarding; fare 4.00 EUR
  flag-fall plus 1.15 EUR/km (a typical Spanish urban day tariff); after a drop-off a taxi
  drives back to its stand and can be dispatched on the way ("return"; on SUMO, parking-area
  stands with the taxistand idle algorithm), or waits where it is ("stay"; SUMO's "stop").
- walking: 5 km/h (1.39 m/s, the usual design walking speed), always available, free.
- on time: arrival within the 5 minutes before the deadline; earlier is early, later is late.
  The source does not state its window; its Table 5 has 2.4-3.6% on time against 59-81%
  early, which only a narrow window produces.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from simulacra.core.times import HHMM_PATTERN, DayWindow, parse_hhmm

# Calibrated so that the reference baseline day gives the source's mean taxi wait of 14
# minutes (scripts/calibrate_taxi.py; docs/commute.md says how).
RANK_KM = 2.4

DEFAULT_ZONES: dict[str, float] = {
    "riverside": 0.4,
    "west_end": 1.5,
    "old_quarter": 3.0,
    "city_centre": 5.5,
    "hospital": 5.8,
    "university": 6.2,
    "student_quarter": 8.0,
    "industrial_estate": 9.0,
}


class BusLine(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "line10"
    stop_spacing_km: float = Field(default=0.5, gt=0)
    headway_min: float = Field(default=30.0, gt=0)
    first_departure: str = Field(default="06:00", pattern=HHMM_PATTERN)
    last_departure: str = Field(default="11:30", pattern=HHMM_PATTERN)
    capacity: int = Field(default=80, ge=1)
    cruise_speed_kmh: float = Field(default=20.0, gt=0)
    dwell_s: float = Field(default=20.0, ge=0)
    fare_eur: float = Field(default=1.50, ge=0)


class TaxiFleet(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    size: int = Field(default=64, ge=0)
    speed_kmh: float = Field(default=25.0, gt=0)
    dispatch_min: float = Field(default=1.0, ge=0)
    base_fare_eur: float = Field(default=4.00, ge=0)
    per_km_eur: float = Field(default=1.15, ge=0)
    idle: Literal["return", "stay"] = "return"
    rank_km: float = Field(
        default=RANK_KM,
        ge=0,
        description="how far off the corridor, by road, the taxi ranks lie (both executors)",
    )


class Walking(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    speed_kmh: float = Field(default=5.0, gt=0)


class TaxiStrike(BaseModel):
    """A share of the taxi fleet out of service on some days (source: 80% on days 11-15)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    days: tuple[int, ...] = (11, 12, 13, 14, 15)
    out_of_service: float = Field(default=0.8, ge=0, le=1)


class CityConfig(BaseModel):
    """Everything about the city a scenario can set."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    corridor_km: float = Field(default=10.0, gt=0)
    zones: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_ZONES))
    bus: BusLine = BusLine()
    taxi: TaxiFleet = TaxiFleet()
    walk: Walking = Walking()
    day_start: str = Field(default="06:00", pattern=HHMM_PATTERN)
    day_end: str = Field(default="12:00", pattern=HHMM_PATTERN)
    on_time_window_min: float = Field(default=5.0, ge=0)
    taxi_strikes: tuple[TaxiStrike, ...] = ()

    @model_validator(mode="after")
    def _zones_on_corridor(self) -> CityConfig:
        outside = {z: x for z, x in self.zones.items() if not 0 <= x <= self.corridor_km}
        if outside:
            raise ValueError(
                f"zones {outside} lie off the corridor; "
                f"positions must be in 0..{self.corridor_km} km"
            )
        window = DayWindow.of(self.day_start, self.day_end)
        first, last = parse_hhmm(self.bus.first_departure), parse_hhmm(self.bus.last_departure)
        if last < first:
            raise ValueError(
                f"bus.last_departure {self.bus.last_departure} comes before first_departure "
                f"{self.bus.first_departure}"
            )
        if first < window.start_min or last > window.end_min:
            raise ValueError(
                f"bus departures {self.bus.first_departure}-{self.bus.last_departure} must lie "
                f"within the day, {self.day_start}-{self.day_end}"
            )
        return self


Direction = Literal["east", "west"]


@dataclass(frozen=True)
class City:
    """The city's derived geometry and timetable, shared by both executors."""

    config: CityConfig

    @cached_property
    def window(self) -> DayWindow:
        return DayWindow.of(self.config.day_start, self.config.day_end)

    @cached_property
    def stops(self) -> tuple[float, ...]:
        spacing = self.config.bus.stop_spacing_km
        count = round(self.config.corridor_km / spacing) + 1
        return tuple(round(i * spacing, 6) for i in range(count))

    def position(self, zone: str) -> float:
        if zone not in self.config.zones:
            known = ", ".join(sorted(self.config.zones))
            raise KeyError(f"unknown zone {zone!r}; the city's zones are: {known}")
        return self.config.zones[zone]

    def distance_km(self, origin: str, destination: str) -> float:
        return round(abs(self.position(destination) - self.position(origin)), 6)

    def nearest_stop(self, x_km: float) -> int:
        stops = self.stops
        return min(range(len(stops)), key=lambda i: (abs(stops[i] - x_km), i))

    def walk_minutes(self, km: float) -> float:
        return km / self.config.walk.speed_kmh * 60.0

    def taxi_minutes(self, km: float) -> float:
        return km / self.config.taxi.speed_kmh * 60.0

    def quickest_minutes(self, km: float) -> float:
        """The quickest door-to-door time for `km`: a taxi that is dispatched at once."""
        return self.config.taxi.dispatch_min + self.taxi_minutes(km)

    def taxi_fare(self, km: float) -> float:
        taxi = self.config.taxi
        return round(taxi.base_fare_eur + taxi.per_km_eur * km, 2)

    @cached_property
    def segment_minutes(self) -> float:
        """Stop-to-stop running time plus the dwell at the next stop."""
        bus = self.config.bus
        return bus.stop_spacing_km / bus.cruise_speed_kmh * 60.0 + bus.dwell_s / 60.0

    @cached_property
    def bus_departures(self) -> tuple[float, ...]:
        """Scheduled departures from each terminal, in minutes since midnight."""
        bus = self.config.bus
        first, last = parse_hhmm(bus.first_departure), parse_hhmm(bus.last_departure)
        count = int((last - first) // bus.headway_min) + 1
        return tuple(first + k * bus.headway_min for k in range(count))

    def stop_order(self, direction: Direction) -> tuple[int, ...]:
        indices = tuple(range(len(self.stops)))
        return indices if direction == "east" else indices[::-1]

    def departs_stop(self, terminal_departure: float, hops: int) -> float:
        """When a run that left its terminal at `terminal_departure` leaves its `hops`-th stop."""
        return terminal_departure + hops * self.segment_minutes

    def taxis_in_service(self, day: int) -> tuple[int, ...]:
        """Taxi numbers running on `day`; under a strike, an evenly spread subset remains."""
        size = self.config.taxi.size
        out = max((s.out_of_service for s in self.config.taxi_strikes if day in s.days), default=0)
        keep = round(size * (1.0 - out))
        if keep >= size:
            return tuple(range(size))
        return tuple(sorted({round(j * size / keep) for j in range(keep)})) if keep else ()

    def taxi_stand(self, taxi: int) -> float:
        """Where taxi `taxi` starts the day and returns to: stands spread along the corridor."""
        return (taxi + 0.5) * self.config.corridor_km / max(1, self.config.taxi.size)
