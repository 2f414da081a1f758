"""About 300 routed vehicles, departures sorted, every route on edges of the network."""

from suite_checks import Verdict, edges

verdict = Verdict()
routes = verdict.xml("outputs/routes.rou.xml")
net = verdict.xml("outputs/grid.net.xml")
if routes is not None and net is not None:
    vehicles = list(routes.iter("vehicle"))
    verdict.check("250 to 300 vehicles", 250 <= len(vehicles) <= 300, len(vehicles))
    departs = [float(v.get("depart")) for v in vehicles]
    verdict.check("sorted by departure", departs == sorted(departs))
    verdict.check("departures within 0-900 s", all(0 <= d <= 900 for d in departs))
    known = {e.get("id") for e in edges(net)}
    routed = [v.find("route") for v in vehicles]
    verdict.check("every vehicle has a route", all(r is not None for r in routed))
    on_net = all(set(r.get("edges", "").split()) <= known for r in routed if r is not None)
    verdict.check("routes use the network's edges", on_net)
verdict.done()
