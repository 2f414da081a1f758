"""routeSampler chose the routes, SUMO drove them, and their GEH against the counts is low."""

import math

from simulacra.lab.verdict import Verdict, close

verdict = Verdict()
counts = verdict.xml("outputs/counts.edgedata.xml")
data = verdict.xml("outputs/sampled-edgedata.xml")
table = verdict.json("outputs/geh.json", "geh", "mean_geh")
if counts is not None and data is not None and table is not None:
    verdict.made_by("outputs/sampled.rou.xml", "routeSampler.py")
    verdict.made_by("outputs/sampled-edgedata.xml", "sumo")
    verdict.check("seed 3", verdict.option("outputs/sampled.rou.xml", "seed") == 3)
    intervals = list(data.iter("interval"))
    one = (
        len(intervals) == 1
        and float(intervals[0].get("begin", -1)) == 0
        and float(intervals[0].get("end", -1)) == 1200
    )
    verdict.check("one interval, 0 to 1200 s", one, len(intervals))
    given = {e.get("id"): float(e.get("entered", "nan")) for e in counts.iter("edge")}
    entered = {e.get("id"): float(e.get("entered", "0")) for e in data.iter("edge")}
    geh = {}
    for edge, count in given.items():
        m, c = 4 * entered.get(edge, 0.0), 4 * count
        geh[edge] = math.sqrt(2 * (m - c) ** 2 / (m + c)) if m + c > 0 else 0.0
    reported = table["geh"]
    ok = (
        isinstance(reported, dict)
        and set(reported) == set(geh)
        and all(
            isinstance(reported[k], int | float) and close(float(reported[k]), v)
            for k, v in geh.items()
        )
    )
    verdict.check("GEH per counted edge", ok, (reported, geh))
    mean_geh = sum(geh.values()) / len(geh)
    value = table["mean_geh"]
    verdict.check(
        "mean GEH",
        isinstance(value, int | float) and close(float(value), mean_geh),
        (value, mean_geh),
    )
    verdict.check("mean GEH below 5", mean_geh < 5, mean_geh)
verdict.done()
