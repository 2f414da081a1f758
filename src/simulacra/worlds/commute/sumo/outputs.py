"""Readers for SUMO's outputs: person stages from tripinfo (personinfo) and bus stop events."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Stage:
    """One walk or ride of a person, in seconds of simulated time."""

    kind: str  # "walk" or "ride"
    depart: float
    arrival: float  # -1 when the stage never ended
    waiting: float
    vehicle: str


@dataclass(frozen=True)
class PersonInfo:
    id: str
    depart: float
    stages: tuple[Stage, ...]

    @property
    def arrival(self) -> float | None:
        last = self.stages[-1].arrival if self.stages else -1.0
        return None if last < 0 else last


@dataclass(frozen=True)
class StopEvent:
    """A vehicle's stop (stop-output): at a bus stop, at a taxi rank (a parking area), or in
    the lane to pick up or drop off. `ended` is -1 for a stop still going on at the day's end."""

    vehicle: str
    bus_stop: str
    started: float
    ended: float
    loaded: int
    unloaded: int
    parking_area: str = ""


def _float(element: ET.Element, key: str, default: float = -1.0) -> float:
    value = element.get(key)
    return default if value in (None, "") else float(value)


def read_personinfo(path: Path) -> dict[str, PersonInfo]:
    people: dict[str, PersonInfo] = {}
    for person in ET.parse(path).getroot().iter("personinfo"):
        stages = tuple(
            Stage(
                kind=stage.tag,
                depart=_float(stage, "depart"),
                arrival=_float(stage, "arrival"),
                waiting=_float(stage, "waitingTime", 0.0),
                vehicle=stage.get("vehicle", ""),
            )
            for stage in person
            if stage.tag in ("walk", "ride")
        )
        pid = person.get("id", "")
        people[pid] = PersonInfo(pid, _float(person, "depart"), stages)
    return people


def read_stop_events(path: Path) -> list[StopEvent]:
    return [
        StopEvent(
            vehicle=stop.get("id", ""),
            bus_stop=stop.get("busStop", ""),
            started=_float(stop, "started"),
            ended=_float(stop, "ended"),
            loaded=int(stop.get("loadedPersons", "0")),
            unloaded=int(stop.get("unloadedPersons", "0")),
            parking_area=stop.get("parkingArea", ""),
        )
        for stop in ET.parse(path).getroot().iter("stopinfo")
    ]
