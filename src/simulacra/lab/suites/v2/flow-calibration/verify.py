"""The chosen flow, alone on the route, made SUMO's loop count 150 vehicles within 5%."""

from simulacra.lab.verdict import Verdict

verdict = Verdict()
routes = verdict.xml("outputs/flow.rou.xml")
loop = verdict.xml("outputs/flow-loop.add.xml")
output = verdict.xml("outputs/flow-loop.xml")
table = verdict.json("outputs/flow-calibration.json", "vehicles_per_hour", "counted")
if routes is not None and loop is not None and output is not None and table is not None:
    verdict.made_by("outputs/flow-loop.xml", "sumo")
    flows = list(routes.iter("flow"))
    verdict.check(
        "one flow, nothing else", len(flows) == 1 and not list(routes.iter("vehicle")), len(flows)
    )
    if len(flows) == 1:
        flow = flows[0]
        named = {r.get("id"): r.get("edges") for r in routes.iter("route")}
        edges = [r.get("edges") for r in flow.iter("route")] or [named.get(flow.get("route"))]
        verdict.check("on the route", edges == ["WJ1 J1J2 J2J3 J3E"], edges)
        rate = float(flow.get("vehsPerHour", "nan"))
        verdict.check(
            "the reported flow",
            table["vehicles_per_hour"] == rate,
            (table["vehicles_per_hour"], rate),
        )
        verdict.check("between 100 and 1000 an hour", 100 <= rate <= 1000, rate)
        verdict.check(
            "from 0 to 900 s",
            float(flow.get("begin", -1)) == 0 and float(flow.get("end", -1)) == 900,
        )
    detectors = list(loop.iter("inductionLoop"))
    placed = (
        len(detectors) == 1
        and detectors[0].get("lane") == "J2J3_0"
        and float(detectors[0].get("pos", "nan")) == 100
    )
    verdict.check("one loop 100 m into J2J3_0", placed)
    counted = sum(int(float(i.get("nVehContrib", "0"))) for i in output.iter("interval"))
    verdict.check("the reported count", table["counted"] == counted, (table["counted"], counted))
    verdict.check("150 within 5%", abs(counted - 150) <= 7.5, counted)
    verdict.check("a 900 s run", verdict.option("outputs/flow-loop.xml", "end") == 900)
verdict.done()
