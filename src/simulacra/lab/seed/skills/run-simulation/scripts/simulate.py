"""Run SUMO headless with tripinfo, statistics and summary outputs; print insertions."""

import argparse
import glob
import os
import shlex
import subprocess
import xml.etree.ElementTree as ET

parser = argparse.ArgumentParser()
parser.add_argument("--net", required=True)
parser.add_argument("--routes", required=True)
parser.add_argument("--end", type=float, required=True)
parser.add_argument("--out", required=True)
parser.add_argument("--tag", default="", help="suffix for the output files, e.g. -cycle60")
args = parser.parse_args()

additional = sorted(glob.glob(os.path.join(args.out, "*.add.xml")))
out = {k: os.path.join(args.out, f"{k}{args.tag}.xml") for k in ("tripinfo", "statistics")}
out["summary"] = os.path.join(args.out, f"summary{args.tag}.xml")
command = [
    os.path.join(os.environ["SUMO_HOME"], "bin", "sumo"),
    "--net-file",
    args.net,
    "--route-files",
    args.routes,
    "--begin",
    "0",
    "--end",
    str(args.end),
    "--tripinfo-output",
    out["tripinfo"],
    "--statistic-output",
    out["statistics"],
    "--summary-output",
    out["summary"],
    "--no-step-log",
    "--duration-log.disable",
    "--seed",
    "1",
]
if additional:
    command += ["--additional-files", ",".join(additional)]
# The tool call, echoed as `$ ...` with the tool by name (it is on the PATH), to be reused.
print("$", shlex.join(["sumo", *command[1:]]), flush=True)
subprocess.run(command, check=True)
vehicles = ET.parse(out["statistics"]).getroot().find("vehicles")
teleports = ET.parse(out["statistics"]).getroot().find("teleports")
inserted = vehicles.get("inserted") if vehicles is not None else "0"
total = teleports.get("total") if teleports is not None else "0"
print(f"inserted={inserted} teleports={total}")
print(
    f"claim inserted={inserted} artifact={out['statistics']} measure=xml_attribute "
    "element=vehicles attribute=inserted"
)
