"""Taxi ranks in SUMO, laid out as the builtin executor's.

The builtin executor puts taxi n's rank `taxi.rank_km` off the corridor by road, beside
`city.taxi_stand(n)`, on a street grid. Here each bus stop's node has a two-way street
`rank_km` long (network.py), and the taxis whose builtin ranks are nearest that node share a
rank at its far end: a parking area on the lane towards the corridor, so that a taxi leaves
its rank towards either direction without a detour. A rerouter per rank names it for SUMO's
`taxistand` idle algorithm, which sends a taxi back there after each drop-off (the
builtin's `idle: return`). With `rank_km` 0 the ranks are parking areas beside the corridor
at the nodes.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from simulacra.worlds.commute.sumo.network import CorridorNet, Place, rank_m

# Room for the few taxis that share a rank, from just past the junction at the street's end.
STAND_START_M = 5.0
STAND_LENGTH_M = 40.0


def stand_node(net: CorridorNet, taxi: int) -> int:
    """The node whose rank taxi `taxi` uses: the bus stop nearest its builtin rank."""
    return net.city.nearest_stop(net.city.taxi_stand(taxi))


def stand_place(net: CorridorNet, node: int) -> Place:
    """Where the rank of `node` begins: near the far end of its street, or on the corridor."""
    if rank_m(net.city) <= 0:
        return net.place(net.city.stops[node])
    return Place(f"down{node}", STAND_START_M)


def stand_id(node: int) -> str:
    return f"rank_{node}"


def rerouter_id(node: int) -> str:
    return f"ranks_{node}"


def write_stands(net: CorridorNet, path: Path) -> None:
    """The additional file with each node's rank (a parking area off the lane, room for every
    taxi of the fleet that uses it) and the rerouter that names it
    (`device.taxi.stands-rerouter`)."""
    users = Counter(stand_node(net, taxi) for taxi in range(net.city.config.taxi.size))
    lines = ["<additional>"]
    for node, count in sorted(users.items()):
        place = stand_place(net, node)
        lines += [
            f'  <parkingArea id="{stand_id(node)}" lane="{place.edge}_0" '
            f'startPos="{place.pos:.2f}" endPos="{place.pos + STAND_LENGTH_M:.2f}" '
            f'roadsideCapacity="{count}" friendlyPos="true"/>',
            f'  <rerouter id="{rerouter_id(node)}" edges="{place.edge}" vTypes="taxi">',
            '    <interval begin="0" end="86400">',
            f'      <parkingAreaReroute id="{stand_id(node)}"/>',
            "    </interval>",
            "  </rerouter>",
        ]
    lines.append("</additional>")
    path.write_text("\n".join(lines) + "\n")
