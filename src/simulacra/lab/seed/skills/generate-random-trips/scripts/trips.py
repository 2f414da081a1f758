"""Random trips on a network, routed and validated, sorted by departure; print the count."""

import argparse
import os
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET

parser = argparse.ArgumentParser()
parser.add_argument("--net", required=True)
parser.add_argument("--period", type=float, required=True)
parser.add_argument("--end", type=float, required=True)
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--out", required=True)
args = parser.parse_args()

tool = os.path.join(os.environ["SUMO_HOME"], "tools", "randomTrips.py")
trips = args.out.replace(".rou.xml", ".trips.xml")
arguments = [
    "--net-file",
    args.net,
    "--output-trip-file",
    trips,
    "--route-file",
    args.out,
    "--begin",
    "0",
    "--end",
    str(args.end),
    "--period",
    str(args.period),
    "--seed",
    str(args.seed),
    "--validate",
    "--fringe-factor",
    "5",
]
# The tool call, echoed as `$ ...` with SUMO's tools folder by name, to be reused.
print("$ python $SUMO_HOME/tools/randomTrips.py", shlex.join(arguments), flush=True)
subprocess.run([sys.executable, tool, *arguments], check=True)
vehicles = list(ET.parse(args.out).getroot().iter("vehicle"))
print(f"vehicles={len(vehicles)}")
print(f"claim vehicles={len(vehicles)} artifact={args.out} measure=xml_count element=vehicle")
