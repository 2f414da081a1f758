"""Mean trip figures from a tripinfo file, as metrics.json and as claim lines."""

import argparse
import json
import xml.etree.ElementTree as ET

parser = argparse.ArgumentParser()
parser.add_argument("--tripinfo", required=True)
parser.add_argument("--out", required=True)
args = parser.parse_args()

trips = list(ET.parse(args.tripinfo).getroot().iter("tripinfo"))
if not trips:
    raise SystemExit(f"{args.tripinfo}: no finished trips; run the simulation longer")
fields = {
    "mean_duration_s": "duration",
    "mean_waiting_s": "waitingTime",
    "mean_time_loss_s": "timeLoss",
    "mean_route_length_m": "routeLength",
}
metrics = {"trips": len(trips)}
for name, attribute in fields.items():
    metrics[name] = round(sum(float(t.get(attribute)) for t in trips) / len(trips), 3)
with open(args.out, "w") as fh:
    json.dump(metrics, fh, indent=2)
print(f"claim trips={len(trips)} artifact={args.tripinfo} measure=xml_count element=tripinfo")
for name, attribute in fields.items():
    print(
        f"claim {name}={metrics[name]} artifact={args.tripinfo} measure=xml_mean "
        f"element=tripinfo attribute={attribute}"
    )
