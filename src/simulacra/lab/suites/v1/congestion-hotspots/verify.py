"""The five hotspots are the five edges of highest occupancy in SUMO's edge data."""

from simulacra.lab.verdict import Verdict, close

verdict = Verdict()
data = verdict.xml("outputs/edgedata.xml")
table = verdict.json("outputs/hotspots.json", "edges", "occupancy")
verdict.png("outputs/occupancy.png")
if data is not None and table is not None:
    verdict.made_by("outputs/edgedata.xml", "sumo")
    intervals = list(data.iter("interval"))
    verdict.check("one interval", len(intervals) == 1, len(intervals))
    occupancy = {e.get("id"): float(e.get("occupancy", 0)) for e in data.iter("edge")}
    top = sorted(occupancy, key=lambda k: -occupancy[k])[:5]
    edges = table["edges"]
    verdict.check(
        "top five edges", isinstance(edges, list) and set(edges) == set(top), (edges, top)
    )
    values = table["occupancy"]
    ok = (
        isinstance(values, list)
        and isinstance(edges, list)
        and len(values) == len(edges)
        and all(
            isinstance(v, int | float) and e in occupancy and close(float(v), occupancy[e])
            for e, v in zip(edges, values, strict=True)
        )
    )
    verdict.check("their occupancy", ok, values)
verdict.done()
