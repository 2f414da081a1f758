"""The five hotspots are the five edges of highest occupancy in the edge data."""

from suite_checks import Verdict

verdict = Verdict()
data = verdict.xml("outputs/edgedata.xml")
table = verdict.json("outputs/hotspots.json")
png = verdict.root / "outputs/occupancy.png"
verdict.check("a PNG map", png.is_file() and png.read_bytes().startswith(b"\x89PNG"))
if data is not None and isinstance(table, dict):
    occupancy = {e.get("id"): float(e.get("occupancy", 0)) for e in data.iter("edge")}
    top = sorted(occupancy, key=lambda k: -occupancy[k])[:5]
    edges = table.get("edges") or []
    verdict.check("top five edges", set(edges) == set(top), (edges, top))
verdict.done()
