"""The corridor city as a SUMO network: nodes at the bus stops, a two-way edge between each
pair, bus stops on both sides, and a street `taxi.rank_km` long from each node to the taxi
ranks there, built with netconvert from plain node and edge files."""

from __future__ import annotations

import importlib
import subprocess
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import quoteattr

from simulacra.worlds.commute.city import City, Direction

# Edges are fast enough that the vehicle types, not the network, set the speeds.
_EDGE_SPEED_MS = 13.89
STOP_LENGTH_M = 15.0
# The shortest street to the taxi ranks netconvert builds cleanly (junctions take ~10 m).
MIN_RANK_M = 100.0


def sumo_binary(name: str) -> str:
    """The path of a SUMO tool shipped by the eclipse-sumo package (the sumo extra)."""
    try:
        sumo = importlib.import_module("sumo")
    except ImportError as exc:
        raise RuntimeError(
            "Eclipse SUMO is not installed; install the sumo extra: "
            "pip install 'simulacra[sumo]' (eclipse-sumo, libsumo, traci, sumolib)"
        ) from exc
    path = Path(sumo.SUMO_HOME) / "bin" / name
    if not path.exists():
        raise RuntimeError(f"{name} is missing from the eclipse-sumo package at {path}")
    return str(path)


@dataclass(frozen=True)
class Place:
    """A point of the corridor on a directed edge: edge id and metres from its start."""

    edge: str
    pos: float


@dataclass(frozen=True)
class CorridorNet:
    city: City
    path: Path

    @property
    def segment_m(self) -> float:
        return self.city.config.bus.stop_spacing_km * 1000.0

    def edge(self, direction: Direction, segment: int) -> str:
        """Segment k joins stop k and stop k+1."""
        return f"e{segment}" if direction == "east" else f"w{segment}"

    def edges(self, direction: Direction) -> list[str]:
        count = len(self.city.stops) - 1
        order = range(count) if direction == "east" else range(count - 1, -1, -1)
        return [self.edge(direction, k) for k in order]

    def place(self, km: float, direction: Direction = "east", arriving: bool = False) -> Place:
        """Where a point at `km` lies on the edge of `direction` that contains it. A point on a
        node lies on the edge that leaves the node, or with `arriving` on the edge that reaches
        it: a taxi that drops a rider off there can then turn at that node."""
        count = len(self.city.stops) - 1
        metres = km * 1000.0
        segment = min(count - 1, int(metres // self.segment_m))
        offset = metres - segment * self.segment_m
        # Eastbound edges leave their node at their start, westbound ones reach it at their end.
        if offset < 1e-6 and segment > 0 and (direction == "east") == arriving:
            segment, offset = segment - 1, self.segment_m
        if direction == "west":
            offset = self.segment_m - offset
        return Place(self.edge(direction, segment), min(max(offset, 0.1), self.segment_m - 0.1))

    def stop_id(self, stop: int, direction: Direction) -> str:
        return f"{direction}_{stop}"

    def stop_place(self, stop: int, direction: Direction) -> tuple[str, float, float]:
        """(edge, start, end) of a bus stop: at the head of the segment leaving the stop, or at
        the tail of the last segment for the terminal the line ends at."""
        count = len(self.city.stops) - 1
        if direction == "east":
            if stop < count:
                return self.edge("east", stop), 0.0, STOP_LENGTH_M
            return self.edge("east", count - 1), self.segment_m - STOP_LENGTH_M, self.segment_m
        if stop > 0:
            return self.edge("west", stop - 1), 0.0, STOP_LENGTH_M
        return self.edge("west", 0), self.segment_m - STOP_LENGTH_M, self.segment_m


def rank_m(city: City) -> float:
    return city.config.taxi.rank_km * 1000.0


def spur_nodes(city: City) -> list[str]:
    """The far ends of the streets to the taxi ranks, one beside each bus stop's node (none
    when the ranks lie on the corridor)."""
    if rank_m(city) <= 0:
        return []
    if rank_m(city) < MIN_RANK_M:
        raise ValueError(
            f"world.city.taxi.rank_km is {city.config.taxi.rank_km:g}; the SUMO executor needs "
            f"0 (ranks on the corridor) or at least {MIN_RANK_M / 1000:g} km for its streets"
        )
    return [
        f'  <node id="r{i}" x="{km * 1000.0:.2f}" y="{rank_m(city):.2f}" type="priority"/>'
        for i, km in enumerate(city.stops)
    ]


def spur_edges(city: City) -> list[str]:
    """A two-way street from each bus stop's node `rank_km` off the corridor, where that
    node's taxis have their rank; the corridor keeps the right of way (priority 2 to 1)."""
    if rank_m(city) <= 0:
        return []
    street = f'numLanes="1" speed="{_EDGE_SPEED_MS}" priority="1"'
    edges = []
    for k in range(len(city.stops)):
        edges.append(f'  <edge id="up{k}" from="n{k}" to="r{k}" {street}/>')
        edges.append(f'  <edge id="down{k}" from="r{k}" to="n{k}" {street}/>')
    return edges


def build_network(city: City, workdir: Path) -> CorridorNet:
    """Write the plain files and run netconvert; reuse the network if it is already there."""
    workdir.mkdir(parents=True, exist_ok=True)
    net = CorridorNet(city, workdir / "corridor.net.xml")
    if net.path.exists():
        return net
    nodes = [
        f'  <node id="n{i}" x="{km * 1000.0:.2f}" y="0.00" type="priority"/>'
        for i, km in enumerate(city.stops)
    ] + spur_nodes(city)
    edges = spur_edges(city)
    for k in range(len(city.stops) - 1):
        pairs: tuple[tuple[Direction, int, int], ...] = (("east", k, k + 1), ("west", k + 1, k))
        for direction, a, b in pairs:
            edges.append(
                f'  <edge id={quoteattr(net.edge(direction, k))} from="n{a}" to="n{b}" '
                f'numLanes="2" speed="{_EDGE_SPEED_MS}" priority="2"/>'
            )
    (workdir / "corridor.nod.xml").write_text("<nodes>\n" + "\n".join(nodes) + "\n</nodes>\n")
    (workdir / "corridor.edg.xml").write_text("<edges>\n" + "\n".join(edges) + "\n</edges>\n")
    subprocess.run(
        [
            sumo_binary("netconvert"),
            "--node-files",
            str(workdir / "corridor.nod.xml"),
            "--edge-files",
            str(workdir / "corridor.edg.xml"),
            # U-turns at every node, also where netconvert sees a bend or a straight road (the
            # terminals, and every node when the ranks lie on the corridor): a taxi on the
            # wrong carriageway turns at the next node, not at the end of the line.
            "--no-turnarounds.geometry",
            "false",
            "--output-file",
            str(net.path),
            "--no-warnings",
        ],
        check=True,
        capture_output=True,
    )
    return net


def write_stops(net: CorridorNet, path: Path) -> None:
    """The additional file with every bus stop, both directions."""
    lines = ["<additional>"]
    for stop in range(len(net.city.stops)):
        directions: tuple[Direction, ...] = ("east", "west")
        for direction in directions:
            edge, start, end = net.stop_place(stop, direction)
            lines.append(
                f'  <busStop id="{net.stop_id(stop, direction)}" lane="{edge}_0" '
                f'startPos="{start:.2f}" endPos="{end:.2f}" friendlyPos="true"/>'
            )
    lines.append("</additional>")
    path.write_text("\n".join(lines) + "\n")
