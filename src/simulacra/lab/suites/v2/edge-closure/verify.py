"""The closed network lacks exactly the two edges; duarouter's routes avoid them; counts add up."""

from simulacra.lab.verdict import Verdict, edges

CLOSED = {"J2J3", "J3J2"}
verdict = Verdict()
net = verdict.xml("outputs/closed.net.xml")
original = verdict.xml("outputs/town.net.xml")
routes = verdict.xml("outputs/closed.rou.xml")
trips = verdict.xml("outputs/town.trips.xml")
table = verdict.json("outputs/closure.json", "routed", "unrouted")
if (
    net is not None
    and original is not None
    and routes is not None
    and trips is not None
    and table is not None
):
    verdict.made_by("outputs/closed.net.xml", "netconvert")
    verdict.made_by("outputs/closed.rou.xml", "duarouter")
    kept = {e.get("id") for e in edges(net)}
    before = {e.get("id") for e in edges(original)}
    verdict.check(
        "exactly the two edges removed",
        before - kept == CLOSED and kept <= before,
        sorted(before - kept),
    )
    vehicles = list(routes.iter("vehicle"))
    used = {edge for v in vehicles for r in v.iter("route") for edge in r.get("edges", "").split()}
    verdict.check("no route uses them", not used & CLOSED)
    total = len(list(trips.iter("trip")))
    verdict.check("routed", table["routed"] == len(vehicles), (table["routed"], len(vehicles)))
    verdict.check(
        "unrouted",
        table["unrouted"] == total - len(vehicles),
        (table["unrouted"], total - len(vehicles)),
    )
    verdict.check("the closure cut some trips", 0 < total - len(vehicles) < total)
verdict.done()
