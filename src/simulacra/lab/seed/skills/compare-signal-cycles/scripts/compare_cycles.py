"""Simulate each signal cycle length on the same demand; compare mean waiting times."""

import argparse
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

parser = argparse.ArgumentParser()
parser.add_argument("--net", required=True)
parser.add_argument("--routes", required=True)
parser.add_argument("--cycles", required=True, help="comma-separated seconds, e.g. 60,90")
parser.add_argument("--end", type=float, required=True)
parser.add_argument("--out", required=True)
args = parser.parse_args()

folder = os.path.dirname(args.out) or "."
cycles = [float(c) for c in args.cycles.split(",")]
waiting = []
for cycle in cycles:
    tag = f"-cycle{cycle:g}"
    work = os.path.join(folder, f"cycle{cycle:g}")
    os.makedirs(work, exist_ok=True)
    program = os.path.join(work, "tls.add.xml")
    script = os.path.join("skills", "set-signal-cycle", "scripts", "cycle.py")
    simulate = os.path.join("skills", "run-simulation", "scripts", "simulate.py")
    subprocess.run(
        [sys.executable, script, "--net", args.net, "--cycle", str(cycle), "--out", program],
        check=True,
    )
    subprocess.run(
        [
            sys.executable,
            simulate,
            "--net",
            args.net,
            "--routes",
            args.routes,
            "--end",
            str(args.end),
            "--out",
            work,
            f"--tag={tag}",
        ],
        check=True,
    )
    tripinfo = os.path.join(folder, f"tripinfo{tag}.xml")
    os.replace(os.path.join(work, f"tripinfo{tag}.xml"), tripinfo)
    trips = list(ET.parse(tripinfo).getroot().iter("tripinfo"))
    mean = round(sum(float(t.get("waitingTime")) for t in trips) / max(len(trips), 1), 3)
    waiting.append(mean)
    print(
        f"claim waiting_cycle{cycle:g}={mean} artifact={tripinfo} measure=xml_mean "
        "element=tripinfo attribute=waitingTime"
    )
best = cycles[waiting.index(min(waiting))]
with open(args.out, "w") as fh:
    json.dump({"cycles": cycles, "mean_waiting_s": waiting, "best_cycle": best}, fh, indent=2)
print(f"claim best_cycle={best:g} artifact={args.out} measure=json_value key=best_cycle")
