"""A 4 x 4 grid: 16 junctions, every road 150 m long, one lane, no traffic light."""

from itertools import pairwise

from suite_checks import Verdict, edges, junctions

verdict = Verdict()
net = verdict.xml("outputs/grid.net.xml")
if net is not None:
    verdict.check("16 junctions", len(junctions(net)) == 16, len(junctions(net)))
    roads = edges(net)
    xs = sorted({round(float(j.get("x"))) for j in junctions(net)})
    gaps = [b - a for a, b in pairwise(xs)]
    verdict.check("150 m blocks", bool(gaps) and all(abs(g - 150) <= 1 for g in gaps), gaps)
    verdict.check("one lane each", all(len(list(e.iter("lane"))) == 1 for e in roads))
    verdict.check("no traffic light", not list(net.iter("tlLogic")))
verdict.done()
