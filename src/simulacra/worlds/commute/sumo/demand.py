"""One day's demand as a SUMO route file: vehicle types, the bus timetable, the taxi fleet in
service that day and one person per trip, sorted by depart as SUMO requires."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import quoteattr

from simulacra.core.times import format_hhmm
from simulacra.worlds.commute.city import Direction
from simulacra.worlds.commute.outcomes import Trip
from simulacra.worlds.commute.sumo.network import CorridorNet
from simulacra.worlds.commute.sumo.stands import rerouter_id, stand_node, stand_place

# Buses may run a little faster than the timetable's cruise speed so that acceleration does
# not make them late; they then wait for the scheduled departure ("until") at each stop.
BUS_SPEED_MARGIN = 1.15
# Taxis drive at their speed as the builtin's do, without the driver imperfection of SUMO's
# car-following model (sigma 0.5 by default; docs/commute.md says what it costs).
TAXI_SIGMA = 0.0
# Vehicles and taxis are placed five minutes before the day starts.
LEAD_S = 300.0


def line_id(net: CorridorNet, direction: Direction) -> str:
    return f"{net.city.config.bus.name}:{direction}"


def _types(net: CorridorNet) -> list[str]:
    cfg = net.city.config
    bus_ms = cfg.bus.cruise_speed_kmh / 3.6 * BUS_SPEED_MARGIN
    return [
        f'  <vType id="bus" vClass="bus" maxSpeed="{bus_ms:.3f}" speedFactor="1" '
        f'personCapacity="{cfg.bus.capacity}" length="12"/>',
        f'  <vType id="taxi" vClass="taxi" maxSpeed="{cfg.taxi.speed_kmh / 3.6:.3f}" '
        f'speedFactor="1" personCapacity="4" sigma="{TAXI_SIGMA:g}">',
        '    <param key="has.taxi.device" value="true"/>',
        # The builtin's minute to dispatch and board, spent at the pickup (SUMO counts it in
        # the rider's wait), and no time at the drop-off (SUMO's default is 60 s).
        f'    <param key="device.taxi.pickUpDuration" value="{cfg.taxi.dispatch_min * 60:.0f}"/>',
        '    <param key="device.taxi.dropOffDuration" value="0"/>',
        "  </vType>",
        f'  <vType id="walker" vClass="pedestrian" maxSpeed="{cfg.walk.speed_kmh / 3.6:.4f}" '
        'speedFactor="1"/>',
    ]


def _bus(net: CorridorNet, direction: Direction, departure_min: float) -> tuple[float, str]:
    city = net.city
    vid = f"bus_{direction}_{format_hhmm(departure_min).replace(':', '')}"
    dwell = city.config.bus.dwell_s
    lines = [
        f'  <vehicle id="{vid}" type="bus" depart="{departure_min * 60 - 60:.2f}" '
        f'departPos="0" line={quoteattr(line_id(net, direction))}>',
        f'    <route edges="{" ".join(net.edges(direction))}"/>',
    ]
    for hops, stop in enumerate(city.stop_order(direction)):
        until = city.departs_stop(departure_min, hops) * 60
        lines.append(
            f'    <stop busStop="{net.stop_id(stop, direction)}" duration="{dwell:.2f}" '
            f'until="{until:.2f}"/>'
        )
    lines.append("  </vehicle>")
    return departure_min * 60 - 60, "\n".join(lines)


def _taxi(net: CorridorNet, number: int, begin_s: float) -> tuple[float, str]:
    """A taxi starts the day at its rank, queueing in from the rank's start; with `idle:
    return` it drives back there after each drop-off (SUMO's taxistand idling)."""
    node = stand_node(net, number)
    place = stand_place(net, node)
    lines = [
        f'  <vehicle id="taxi_{number}" type="taxi" depart="{begin_s:.2f}" '
        f'departPos="{place.pos:.2f}" line="taxi">',
        f'    <route edges="{place.edge}"/>',
    ]
    if net.city.config.taxi.idle == "return":
        lines.append(f'    <param key="device.taxi.stands-rerouter" value="{rerouter_id(node)}"/>')
    return begin_s, "\n".join([*lines, "  </vehicle>"])


def _person(net: CorridorNet, trip: Trip) -> tuple[float, str]:
    city = net.city
    x0, x1 = city.position(trip.origin), city.position(trip.destination)
    direction: Direction = "east" if x1 >= x0 else "west"
    start, end = net.place(x0, direction), net.place(x1, direction, arriving=True)
    depart = trip.departure_min * 60
    head = (
        f'  <person id={quoteattr(trip.agent)} type="walker" depart="{depart:.2f}" '
        f'departPos="{start.pos:.2f}">'
    )
    board, alight = city.nearest_stop(x0), city.nearest_stop(x1)
    if trip.mode == "taxi":
        stages = [
            f'    <ride from="{start.edge}" to="{end.edge}" arrivalPos="{end.pos:.2f}" '
            'lines="taxi"/>'
        ]
    elif trip.mode == "bus" and board != alight:
        ride_dir: Direction = "east" if alight > board else "west"
        stages = [
            f'    <walk from="{start.edge}" busStop="{net.stop_id(board, ride_dir)}"/>',
            f'    <ride busStop="{net.stop_id(alight, ride_dir)}" '
            f"lines={quoteattr(line_id(net, ride_dir))}/>",
            f'    <walk to="{end.edge}" arrivalPos="{end.pos:.2f}"/>',
        ]
    else:
        stages = [f'    <walk from="{start.edge}" to="{end.edge}" arrivalPos="{end.pos:.2f}"/>']
    return depart, "\n".join([head, *stages, "  </person>"])


def write_routes(net: CorridorNet, day: int, trips: Sequence[Trip], path: Path) -> None:
    city = net.city
    begin_s = city.window.start_min * 60 - LEAD_S
    entries = [_taxi(net, n, begin_s) for n in city.taxis_in_service(day)]
    directions: tuple[Direction, ...] = ("east", "west")
    for direction in directions:
        entries += [_bus(net, direction, d) for d in city.bus_departures]
    entries += [_person(net, t) for t in trips]
    entries.sort(key=lambda e: e[0])  # stable: equal departs keep their order
    body = "\n".join(text for _, text in entries)
    path.write_text("<routes>\n" + "\n".join(_types(net)) + "\n" + body + "\n</routes>\n")
