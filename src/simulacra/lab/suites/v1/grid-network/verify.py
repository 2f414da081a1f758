"""A 4 x 4 grid: 16 junctions, every road 150 m long, one lane, no traffic light."""

from suite_checks import Verdict, edges, junctions

verdict = Verdict()
net = verdict.xml("outputs/grid.net.xml")
if net is not None:
    verdict.check("16 junctions", len(junctions(net)) == 16, len(junctions(net)))
    roads = edges(net)
    lengths = [float(lane.get("length")) for e in roads for lane in e.iter("lane")]
    verdict.check("roads of 150 m", bool(lengths) and all(140 <= x <= 150.5 for x in lengths))
    verdict.check("one lane each", all(len(list(e.iter("lane"))) == 1 for e in roads))
    verdict.check("no traffic light", not list(net.iter("tlLogic")))
verdict.done()
