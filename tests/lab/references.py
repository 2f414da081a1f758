"""Reference solutions: what a competent agent would run for each task that the seed's skills
cannot do (three of v1, all of v2). Each is commands plus the scripts they call, run in the
sandbox from the attempt folder. A verifier must accept them, or it demands the impossible."""

from __future__ import annotations

from dataclasses import dataclass, field

TOOLS = "$SUMO_HOME/tools"
QUIET = "--no-step-log --duration-log.disable"


@dataclass(frozen=True)
class Reference:
    commands: tuple[str, ...]
    scripts: dict[str, str] = field(default_factory=dict)


_SCALED = """\
import json
import xml.etree.ElementTree as ET

trips, durations = [], []
for scale in ("0.5", "1"):
    found = list(ET.parse(f"outputs/tripinfo-scale{scale}.xml").getroot().iter("tripinfo"))
    trips.append(len(found))
    durations.append(round(sum(float(t.get("duration")) for t in found) / len(found), 3))
json.dump({"scales": [0.5, 1], "trips": trips, "mean_duration_s": durations},
          open("outputs/scaled.json", "w"))
"""

_CALIBRATE = """\
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

tool = os.path.join(os.environ["SUMO_HOME"], "tools", "randomTrips.py")
for period in (3.0, 2.9, 3.1, 2.8, 3.2, 2.7, 3.3):
    subprocess.run([sys.executable, tool, "-n", "outputs/grid.net.xml", "-r",
                    "outputs/calibration.rou.xml", "-o", "outputs/calibration.trips.xml",
                    "--period", str(period), "--end", "600", "--seed", "1", "--validate"],
                   check=True, capture_output=True)
    subprocess.run(["sumo", "-n", "outputs/grid.net.xml", "-r", "outputs/calibration.rou.xml",
                    "--end", "600", "--statistic-output", "outputs/statistics.xml",
                    "--no-step-log", "--duration-log.disable"], check=True)
    inserted = int(ET.parse("outputs/statistics.xml").getroot().find("vehicles").get("inserted"))
    if abs(inserted - 200) <= 10:
        break
json.dump({"period": period, "inserted": inserted}, open("outputs/calibration.json", "w"))
"""

_HOTSPOTS = """\
import json
import xml.etree.ElementTree as ET

import matplotlib
matplotlib.use("Agg")
from matplotlib.figure import Figure
import sumolib

data = ET.parse("outputs/edgedata.xml").getroot()
occupancy = {e.get("id"): float(e.get("occupancy", 0)) for e in data.iter("edge")}
top = sorted(occupancy, key=lambda k: -occupancy[k])[:5]
json.dump({"edges": top, "occupancy": [occupancy[e] for e in top]},
          open("outputs/hotspots.json", "w"))
net = sumolib.net.readNet("outputs/grid.net.xml")
figure = Figure(figsize=(5, 5))
ax = figure.add_subplot()
for edge in net.getEdges():
    xs, ys = zip(*edge.getShape())
    hot = edge.getID() in top
    ax.plot(xs, ys, color="red" if hot else "grey", linewidth=3 if hot else 1)
ax.set_aspect("equal")
ax.set_title("the five edges of highest occupancy")
figure.savefig("outputs/occupancy.png", dpi=80)
"""

_EDGE_DATA = """\
open("outputs/edgedata.add.xml", "w").write(
    '<additional><edgeData id="all" file="edgedata.xml"/></additional>\\n'
)
"""

_LOOPS = """\
loops = "".join(
    f'<inductionLoop id="loop_{edge}" lane="{edge}_0" pos="100" period="300" file="loops.xml"/>'
    for edge in ("J1J2", "J2J3")
)
open("outputs/loops.add.xml", "w").write(f"<additional>{loops}</additional>\\n")
"""

_COUNTS = """\
import json
import xml.etree.ElementTree as ET

counts = {}
for interval in ET.parse("outputs/loops.xml").getroot().iter("interval"):
    name = interval.get("id")
    counts[name] = counts.get(name, 0) + int(interval.get("nVehContrib"))
json.dump({"counts": counts}, open("outputs/counts.json", "w"))
"""

_MIX_ROUTES = """\
open("outputs/mix.rou.xml", "w").write('''<routes>
    <vTypeDistribution id="mix">
        <vType id="car" vClass="passenger" probability="0.8"/>
        <vType id="truck" vClass="truck" length="12" maxSpeed="25" probability="0.2"/>
    </vTypeDistribution>
    <route id="through" edges="WJ1 J1J2 J2J3 J3E"/>
    <flow id="mix" type="mix" route="through" begin="0" end="600" vehsPerHour="360"/>
</routes>
''')
"""

_MIX_REPORT = """\
import json
import xml.etree.ElementTree as ET

by_type = {}
for trip in ET.parse("outputs/tripinfo-mix.xml").getroot().iter("tripinfo"):
    by_type.setdefault(trip.get("vType"), []).append(float(trip.get("duration")))
json.dump({"trips": {k: len(v) for k, v in by_type.items()},
           "mean_duration_s": {k: round(sum(v) / len(v), 3) for k, v in by_type.items()}},
          open("outputs/mix.json", "w"))
"""

_EMISSIONS = """\
import json
import xml.etree.ElementTree as ET

trips = list(ET.parse("outputs/tripinfo-emissions.xml").getroot().iter("tripinfo"))
grams = sum(float(e.get("CO2_abs")) for t in trips for e in t.iter("emissions")) / 1000
json.dump({"co2_g": round(grams, 3), "vehicles": len(trips)}, open("outputs/emissions.json", "w"))
"""

_CLOSURE = """\
import json
import xml.etree.ElementTree as ET

trips = len(list(ET.parse("outputs/town.trips.xml").getroot().iter("trip")))
routed = len(list(ET.parse("outputs/closed.rou.xml").getroot().iter("vehicle")))
json.dump({"routed": routed, "unrouted": trips - routed}, open("outputs/closure.json", "w"))
"""

_REROUTING = """\
import json
import xml.etree.ElementTree as ET

def time_loss(path):
    trips = list(ET.parse(path).getroot().iter("tripinfo"))
    return round(sum(float(t.get("timeLoss")) for t in trips) / len(trips), 3)

json.dump({"static_time_loss_s": time_loss("outputs/tripinfo-static.xml"),
           "rerouting_time_loss_s": time_loss("outputs/tripinfo-rerouting.xml")},
          open("outputs/rerouting.json", "w"))
"""

_SAMPLED_DATA = """\
open("outputs/sampled.add.xml", "w").write(
    '<additional><edgeData id="sampled" begin="0" end="1200" file="sampled-edgedata.xml"/>'
    "</additional>\\n"
)
"""

_GEH = """\
import json
import math
import xml.etree.ElementTree as ET

given = {e.get("id"): float(e.get("entered"))
         for e in ET.parse("outputs/counts.edgedata.xml").getroot().iter("edge")}
entered = {e.get("id"): float(e.get("entered", 0))
           for e in ET.parse("outputs/sampled-edgedata.xml").getroot().iter("edge")}
geh = {}
for edge, count in given.items():
    m, c = 4 * entered.get(edge, 0), 4 * count
    geh[edge] = round(math.sqrt(2 * (m - c) ** 2 / (m + c)), 4)
json.dump({"geh": geh, "mean_geh": round(sum(geh.values()) / len(geh), 4)},
          open("outputs/geh.json", "w"))
"""

_FLOW = """\
import json
import subprocess
import xml.etree.ElementTree as ET

open("outputs/flow-loop.add.xml", "w").write(
    '<additional><inductionLoop id="loop" lane="J2J3_0" pos="100" period="900" '
    'file="flow-loop.xml"/></additional>\\n'
)
for rate in range(500, 1001, 20):
    open("outputs/flow.rou.xml", "w").write(
        '<routes><route id="through" edges="WJ1 J1J2 J2J3 J3E"/>'
        f'<flow id="f" route="through" begin="0" end="900" vehsPerHour="{rate}"/></routes>\\n'
    )
    subprocess.run(["sumo", "-n", "outputs/town.net.xml", "-r", "outputs/flow.rou.xml",
                    "-a", "outputs/flow-loop.add.xml", "--end", "900",
                    "--no-step-log", "--duration-log.disable"], check=True)
    counted = sum(int(i.get("nVehContrib"))
                  for i in ET.parse("outputs/flow-loop.xml").getroot().iter("interval"))
    if abs(counted - 150) <= 7.5:
        break
json.dump({"vehicles_per_hour": rate, "counted": counted},
          open("outputs/flow-calibration.json", "w"))
"""

_SIGNALS = """\
import json
import xml.etree.ElementTree as ET

def waiting(path):
    trips = list(ET.parse(path).getroot().iter("tripinfo"))
    return round(sum(float(t.get("waitingTime")) for t in trips) / len(trips), 3)

waits = {"static": waiting("outputs/tripinfo-static-tls.xml"),
         "actuated": waiting("outputs/tripinfo-actuated-tls.xml")}
json.dump({"static_waiting_s": waits["static"], "actuated_waiting_s": waits["actuated"],
           "better": min(waits, key=waits.get)}, open("outputs/signals.json", "w"))
"""

_TOWN = "-n outputs/town.net.xml -r outputs/town.rou.xml"
_GRID = "-n outputs/grid.net.xml -r outputs/routes.rou.xml"

REFERENCES: dict[str, Reference] = {
    "scaled-demand": Reference(
        (
            f"sumo {_GRID} --end 1500 --scale 0.5 "
            f"--tripinfo-output outputs/tripinfo-scale0.5.xml {QUIET}",
            f"sumo {_GRID} --end 1500 --scale 1 "
            f"--tripinfo-output outputs/tripinfo-scale1.xml {QUIET}",
            "python scripts/scaled.py",
        ),
        {"scripts/scaled.py": _SCALED},
    ),
    "calibrate-insertions": Reference(
        ("python scripts/calibrate.py",), {"scripts/calibrate.py": _CALIBRATE}
    ),
    "congestion-hotspots": Reference(
        (
            "netgenerate --grid --grid.number=4 --grid.length=150 "
            "--output-file=outputs/grid.net.xml",
            f"python {TOOLS}/randomTrips.py -n outputs/grid.net.xml -r outputs/routes.rou.xml "
            "-o outputs/routes.trips.xml --period 1 --end 900 --seed 6 --validate",
            "python scripts/edgedata.py",
            f"sumo {_GRID} -a outputs/edgedata.add.xml --end 1200 {QUIET}",
            "python scripts/hotspots.py",
        ),
        {"scripts/edgedata.py": _EDGE_DATA, "scripts/hotspots.py": _HOTSPOTS},
    ),
    "plain-network": Reference(
        ("netconvert --node-files outputs/town.nod.xml --edge-files outputs/town.edg.xml "
         "--no-turnarounds true -o outputs/town-built.net.xml",),
    ),
    "od-trips": Reference(
        ("od2trips --taz-files outputs/districts.taz.xml --od-matrix-files outputs/od.txt "
         "--seed 5 -o outputs/od.trips.xml --no-step-log",),
    ),
    "fcd-trace": Reference((f"sumo {_TOWN} --end 300 --fcd-output outputs/fcd.xml {QUIET}",)),
    "induction-loops": Reference(
        ("python scripts/loops.py", f"sumo {_TOWN} -a outputs/loops.add.xml --end 900 {QUIET}",
         "python scripts/counts.py"),
        {"scripts/loops.py": _LOOPS, "scripts/counts.py": _COUNTS},
    ),
    "actuated-signals": Reference(
        ("netconvert -s outputs/town.net.xml --tls.set J1,J2,J3 --tls.default-type actuated "
         "-o outputs/actuated.net.xml",),
    ),
    "vehicle-mix": Reference(
        ("python scripts/routes.py",
         "sumo -n outputs/town.net.xml -r outputs/mix.rou.xml --end 1200 "
         f"--tripinfo-output outputs/tripinfo-mix.xml {QUIET}",
         "python scripts/mix.py"),
        {"scripts/routes.py": _MIX_ROUTES, "scripts/mix.py": _MIX_REPORT},
    ),
    "emission-totals": Reference(
        (f"sumo {_TOWN} --end 900 --device.emissions.probability 1 "
         f"--tripinfo-output outputs/tripinfo-emissions.xml {QUIET}",
         "python scripts/emissions.py"),
        {"scripts/emissions.py": _EMISSIONS},
    ),
    "edge-closure": Reference(
        ("netconvert -s outputs/town.net.xml --remove-edges.explicit J2J3,J3J2 "
         "-o outputs/closed.net.xml",
         # The unroutable trips are the task's subject, counted in closure.json.
         "duarouter -n outputs/closed.net.xml --route-files outputs/town.trips.xml "
         "--ignore-errors --no-warnings -o outputs/closed.rou.xml --no-step-log",
         "python scripts/closure.py"),
        {"scripts/closure.py": _CLOSURE},
    ),
    "rerouting": Reference(
        (f"sumo {_TOWN} --end 1500 --tripinfo-output outputs/tripinfo-static.xml {QUIET}",
         f"sumo {_TOWN} --end 1500 --device.rerouting.probability 1 "
         f"--device.rerouting.period 60 --tripinfo-output outputs/tripinfo-rerouting.xml {QUIET}",
         "python scripts/rerouting.py"),
        {"scripts/rerouting.py": _REROUTING},
    ),
    "route-sampler": Reference(
        (f"python {TOOLS}/routeSampler.py -r outputs/town.rou.xml -d outputs/counts.edgedata.xml "
         "-o outputs/sampled.rou.xml --seed 3 -b 0 -e 900",
         "python scripts/data.py",
         "sumo -n outputs/town.net.xml -r outputs/sampled.rou.xml -a outputs/sampled.add.xml "
         f"--end 1200 {QUIET}",
         "python scripts/geh.py"),
        {"scripts/data.py": _SAMPLED_DATA, "scripts/geh.py": _GEH},
    ),
    "flow-calibration": Reference(("python scripts/flow.py",), {"scripts/flow.py": _FLOW}),
    "signal-comparison": Reference(
        ("netconvert -s outputs/town.net.xml --tls.set J1,J2,J3 --tls.default-type static "
         "-o outputs/static.net.xml",
         "netconvert -s outputs/town.net.xml --tls.set J1,J2,J3 --tls.default-type actuated "
         "-o outputs/actuated-cmp.net.xml",
         f"sumo -n outputs/static.net.xml -r outputs/town.rou.xml --end 1500 "
         f"--tripinfo-output outputs/tripinfo-static-tls.xml {QUIET}",
         f"sumo -n outputs/actuated-cmp.net.xml -r outputs/town.rou.xml --end 1500 "
         f"--tripinfo-output outputs/tripinfo-actuated-tls.xml {QUIET}",
         "python scripts/signals.py"),
        {"scripts/signals.py": _SIGNALS},
    ),
}  # fmt: skip
