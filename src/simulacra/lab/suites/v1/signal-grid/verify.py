"""Nine junctions, each controlled by its own traffic light whose program gives every link
it controls a green phase. A corner of a grid has two movements that never conflict, so
netgenerate rightly gives it one all-green phase: the number of phases is not the test."""

from simulacra.lab.verdict import Verdict, junctions

verdict = Verdict()
net = verdict.xml("outputs/grid.net.xml")
if net is not None:
    verdict.made_by("outputs/grid.net.xml", "netgenerate", "netconvert")
    nodes = junctions(net)
    verdict.check("9 junctions", len(nodes) == 9, len(nodes))
    controlled = {j.get("id") for j in nodes if j.get("type") == "traffic_light"}
    verdict.check("every junction has a light", len(controlled) == 9, sorted(controlled))
    programs = {t.get("id"): list(t.iter("phase")) for t in net.iter("tlLogic")}
    verdict.check("a program per light", controlled <= set(programs), sorted(programs))
    links: dict[str, set[int]] = {}
    for c in net.iter("connection"):
        if c.get("tl") is not None:
            links.setdefault(c.get("tl", ""), set()).add(int(c.get("linkIndex", "-1")))
    never_green = sorted(
        f"{tl}:{i}"
        for tl, indices in links.items()
        for i in indices
        if not any(p.get("state", "")[i : i + 1] in ("G", "g") for p in programs.get(tl, []))
    )
    verdict.check("every controlled link gets green", bool(links) and not never_green, never_green)
verdict.done()
