"""A two-lane 3 x 3 grid was built and about 300 vehicles drove on it in SUMO."""

from simulacra.lab.verdict import Verdict, edges, junctions

verdict = Verdict()
net = verdict.xml("outputs/grid.net.xml")
stats = verdict.xml("outputs/statistics.xml")
trips = verdict.xml("outputs/tripinfo.xml")
if net is not None and stats is not None and trips is not None:
    verdict.made_by("outputs/grid.net.xml", "netgenerate", "netconvert")
    verdict.made_by("outputs/tripinfo.xml", "sumo")
    verdict.check("9 junctions", len(junctions(net)) == 9)
    roads = edges(net)
    verdict.check("two lanes", bool(roads) and all(len(list(e.iter("lane"))) == 2 for e in roads))
    vehicles = stats.find("vehicles")
    inserted = int(vehicles.get("inserted", "0")) if vehicles is not None else 0
    verdict.check("250 or more inserted", inserted >= 250, inserted)
    finished = len(list(trips.iter("tripinfo")))
    verdict.check("most trips finished", finished >= 0.9 * inserted, finished)
verdict.done()
