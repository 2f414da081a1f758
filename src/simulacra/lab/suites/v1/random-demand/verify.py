"""About 300 vehicles routed by SUMO's router, departures sorted, routes on the network."""

from simulacra.lab.verdict import Verdict, edges

verdict = Verdict()
routes = verdict.xml("outputs/routes.rou.xml")
net = verdict.xml("outputs/grid.net.xml")
if routes is not None and net is not None:
    # "Routed and validated": duarouter (which randomTrips.py runs) wrote the routes.
    verdict.made_by("outputs/routes.rou.xml", "randomTrips.py", "duarouter")
    vehicles = list(routes.iter("vehicle"))
    verdict.check("250 to 300 vehicles", 250 <= len(vehicles) <= 300, len(vehicles))
    departs = [float(v.get("depart", "nan")) for v in vehicles]
    verdict.check("sorted by departure", departs == sorted(departs))
    verdict.check("departures within 0-900 s", all(0 <= d <= 900 for d in departs))
    known = {e.get("id") for e in edges(net)}
    routed = [v.find("route") for v in vehicles]
    verdict.check("every vehicle has a route", all(r is not None for r in routed))
    on_net = all(set(r.get("edges", "").split()) <= known for r in routed if r is not None)
    verdict.check("routes use the network's edges", on_net)
    verdict.check("seed 7", verdict.option("outputs/routes.rou.xml", "seed") == 7)
verdict.done()
