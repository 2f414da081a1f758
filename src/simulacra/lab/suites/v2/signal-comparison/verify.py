"""Two networks by netconvert, SUMO's run on each, the waiting times and the better type."""

from simulacra.lab.verdict import Verdict, close, mean

RUNS = (
    ("static", "outputs/static.net.xml", "outputs/tripinfo-static-tls.xml"),
    ("actuated", "outputs/actuated-cmp.net.xml", "outputs/tripinfo-actuated-tls.xml"),
)
verdict = Verdict()
table = verdict.json("outputs/signals.json", "static_waiting_s", "actuated_waiting_s", "better")
waits: dict[str, float] = {}
for kind, net_path, trips_path in RUNS:
    net = verdict.xml(net_path)
    trips = verdict.xml(trips_path)
    if net is None or trips is None:
        continue
    verdict.made_by(net_path, "netconvert")
    verdict.made_by(trips_path, "sumo")
    kinds = {t.get("id"): t.get("type") for t in net.iter("tlLogic")}
    verdict.check(
        f"{kind} lights at J1, J2, J3", kinds == dict.fromkeys(("J1", "J2", "J3"), kind), kinds
    )
    ran_on = verdict.options(trips_path).get("net-file", "")
    verdict.check(
        f"{trips_path} ran on {net_path}", ran_on.endswith(net_path.rsplit("/", 1)[1]), ran_on
    )
    waits[kind] = mean(trips, "tripinfo", "waitingTime")
if table is not None and len(waits) == 2:
    for kind in waits:
        value = table[f"{kind}_waiting_s"]
        verdict.check(
            f"{kind} waiting time",
            isinstance(value, int | float) and close(float(value), waits[kind]),
            (value, waits[kind]),
        )
    better = min(waits, key=lambda k: waits[k])
    verdict.check("the better type", table["better"] == better, (table["better"], better))
verdict.done()
