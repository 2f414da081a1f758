"""Nine junctions, each with a traffic-light program of at least two phases."""

from suite_checks import Verdict, junctions

verdict = Verdict()
net = verdict.xml("outputs/grid.net.xml")
if net is not None:
    nodes = junctions(net)
    verdict.check("9 junctions", len(nodes) == 9, len(nodes))
    lights = list(net.iter("tlLogic"))
    controlled = {j.get("id") for j in nodes if j.get("type") == "traffic_light"}
    verdict.check("every junction has a light", len(controlled) == 9, sorted(controlled))
    verdict.check("programs have phases", all(len(list(t.iter("phase"))) >= 2 for t in lights))
verdict.done()
