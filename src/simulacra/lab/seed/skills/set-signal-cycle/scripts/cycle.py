"""Fixed-time programs of a given cycle length for every traffic light of a network."""

import argparse
import xml.etree.ElementTree as ET

parser = argparse.ArgumentParser()
parser.add_argument("--net", required=True)
parser.add_argument("--cycle", type=float, required=True)
parser.add_argument("--out", required=True)
args = parser.parse_args()

out = ET.Element("additional")
lights = 0
for logic in ET.parse(args.net).getroot().iter("tlLogic"):
    phases = list(logic.iter("phase"))
    fixed = [float(p.get("duration")) for p in phases if "y" in p.get("state")]
    green = [float(p.get("duration")) for p in phases if "y" not in p.get("state")]
    spare = args.cycle - sum(fixed)
    if spare <= len(green):
        raise SystemExit(f"cycle {args.cycle} s is too short for {logic.get('id')}'s yellows")
    program = ET.SubElement(
        out,
        "tlLogic",
        id=logic.get("id"),
        type="static",
        programID=f"fixed-{args.cycle:g}",
        offset="0",
    )
    durations = []
    for p in phases:
        if "y" in p.get("state"):
            durations.append(float(p.get("duration")))
        else:
            durations.append(round(spare * float(p.get("duration")) / sum(green), 2))
    durations[-1] += round(args.cycle - sum(durations), 2)  # rounding lands on the last phase
    for p, duration in zip(phases, durations, strict=True):
        ET.SubElement(program, "phase", duration=f"{duration:g}", state=p.get("state"))
    lights += 1
if lights == 0:
    raise SystemExit(f"{args.net} has no traffic lights; build it with lights=yes")
ET.ElementTree(out).write(args.out, xml_declaration=True, encoding="UTF-8")
print(f"lights={lights} cycle={args.cycle:g}")
print(f"claim lights={lights} artifact={args.out} measure=xml_count element=tlLogic")
