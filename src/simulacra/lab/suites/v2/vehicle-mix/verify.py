"""A flow of cars and trucks as specified, SUMO's trips of each type, mix.json agrees."""

from simulacra.lab.verdict import Verdict, close

verdict = Verdict()
routes = verdict.xml("outputs/mix.rou.xml")
trips = verdict.xml("outputs/tripinfo-mix.xml")
table = verdict.json("outputs/mix.json", "trips", "mean_duration_s")
if routes is not None and trips is not None and table is not None:
    verdict.made_by("outputs/tripinfo-mix.xml", "sumo")
    types = {t.get("id"): t for t in routes.iter("vType")}
    truck = types.get("truck")
    verdict.check("car and truck types", {"car", "truck"} <= set(types), sorted(types))
    spec = (
        truck is not None and truck.get("vClass") == "truck" and float(truck.get("length", 0)) == 12
    )
    verdict.check("a 12 m truck", spec and float(truck.get("maxSpeed", 0)) == 25)
    shares = {t.get("id"): float(t.get("probability", "nan")) for t in routes.iter("vType")}
    verdict.check("0.8 and 0.2", shares.get("car") == 0.8 and shares.get("truck") == 0.2, shares)
    flows = list(routes.iter("flow"))
    edges = [r.get("edges") for f in flows for r in f.iter("route")] + [
        r.get("edges")
        for r in routes.iter("route")
        if r.get("id") in {f.get("route") for f in flows}
    ]
    verdict.check("one flow on the route", len(flows) == 1 and "WJ1 J1J2 J2J3 J3E" in edges, edges)
    if len(flows) == 1:
        flow = flows[0]
        verdict.check(
            "360 an hour, 0 to 600 s",
            float(flow.get("vehsPerHour", 0)) == 360
            and float(flow.get("begin", -1)) == 0
            and float(flow.get("end", -1)) == 600,
        )
    by_type: dict[str, list[float]] = {}
    for trip in trips.iter("tripinfo"):
        by_type.setdefault(trip.get("vType", ""), []).append(float(trip.get("duration", "nan")))
    counts = {k: len(v) for k, v in by_type.items()}
    verdict.check(
        "60 trips, both types",
        sum(counts.values()) == 60 and set(counts) == {"car", "truck"},
        counts,
    )
    verdict.check("trips per type", table["trips"] == counts, (table["trips"], counts))
    reported = table["mean_duration_s"]
    ok = (
        isinstance(reported, dict)
        and set(reported) == set(by_type)
        and all(
            isinstance(reported[k], int | float) and close(float(reported[k]), sum(v) / len(v))
            for k, v in by_type.items()
        )
    )
    verdict.check("mean duration per type", ok, reported)
verdict.done()
