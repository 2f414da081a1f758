"""Build an N x N grid network with netgenerate; print its junction and edge counts."""

import argparse
import os
import shlex
import subprocess
import xml.etree.ElementTree as ET

parser = argparse.ArgumentParser()
parser.add_argument("--grid", type=int, required=True)
parser.add_argument("--length", type=float, required=True)
parser.add_argument("--lanes", type=int, default=1)
parser.add_argument("--lights", choices=["yes", "no"], default="no")
parser.add_argument("--out", required=True)
args = parser.parse_args()

command = [
    os.path.join(os.environ["SUMO_HOME"], "bin", "netgenerate"),
    "--grid",
    f"--grid.number={args.grid}",
    f"--grid.length={args.length}",
    f"--default.lanenumber={args.lanes}",
    f"--output-file={args.out}",
    "--no-turnarounds=true",
]
if args.lights == "yes":
    command.append("--default-junction-type=traffic_light")
# The tool call, echoed as `$ ...` with the tool by name (it is on the PATH), to be reused.
print("$", shlex.join(["netgenerate", *command[1:]]), flush=True)
subprocess.run(command, check=True)
root = ET.parse(args.out).getroot()
junctions = [j for j in root.iter("junction") if j.get("type") != "internal"]
edges = [e for e in root.iter("edge") if e.get("function") != "internal"]
print(f"junctions={len(junctions)} edges={len(edges)}")
everything = len(list(root.iter("junction")))
print(
    f"claim junction_elements={everything} artifact={args.out} measure=xml_count element=junction"
)
