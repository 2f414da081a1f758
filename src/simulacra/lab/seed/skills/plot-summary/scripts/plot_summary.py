"""Running and halting vehicles over time from a summary file, drawn to a PNG."""

import argparse
import xml.etree.ElementTree as ET

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure

parser = argparse.ArgumentParser()
parser.add_argument("--summary", required=True)
parser.add_argument("--out", required=True)
args = parser.parse_args()

steps = list(ET.parse(args.summary).getroot().iter("step"))
times = [float(s.get("time")) for s in steps]
running = [int(s.get("running")) for s in steps]
halting = [int(s.get("halting")) for s in steps]
fig = Figure(figsize=(7, 3))
ax = fig.add_subplot()
ax.plot(times, running, label="running")
ax.plot(times, halting, label="halting")
ax.set_xlabel("simulated time (s)")
ax.set_ylabel("vehicles")
ax.legend(frameon=False)
fig.tight_layout()
fig.savefig(args.out, dpi=100)
peak = max(running, default=0)
print(f"peak_running={peak}")
print(
    f"claim peak_running={peak} artifact={args.summary} measure=xml_max element=step "
    "attribute=running"
)
