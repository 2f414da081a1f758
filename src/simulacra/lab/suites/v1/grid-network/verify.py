"""A 4 x 4 grid by netgenerate: 16 junctions 150 m apart, 48 one-lane roads, no light."""

from itertools import pairwise

from simulacra.lab.verdict import Verdict, edges, junctions

verdict = Verdict()
net = verdict.xml("outputs/grid.net.xml")
if net is not None:
    verdict.made_by("outputs/grid.net.xml", "netgenerate", "netconvert")
    verdict.check("16 junctions", len(junctions(net)) == 16, len(junctions(net)))
    roads = edges(net)
    # 24 neighbouring pairs, one road each way; a grid without turnarounds has no other road.
    verdict.check("48 roads", len(roads) == 48, len(roads))
    xs = sorted({round(float(j.get("x", "nan"))) for j in junctions(net)})
    gaps = [b - a for a, b in pairwise(xs)]
    verdict.check("150 m blocks", bool(gaps) and all(abs(g - 150) <= 1 for g in gaps), gaps)
    verdict.check(
        "one lane each", bool(roads) and all(len(list(e.iter("lane"))) == 1 for e in roads)
    )
    verdict.check("no traffic light", not list(net.iter("tlLogic")))
verdict.done()
