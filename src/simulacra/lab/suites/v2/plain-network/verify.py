"""netconvert built the plain files' network: their nodes, their edges and lanes, no U-turn."""

from simulacra.lab.verdict import Verdict, edges, junctions

verdict = Verdict()
net = verdict.xml("outputs/town-built.net.xml")
nodes = verdict.xml("outputs/town.nod.xml")
plain = verdict.xml("outputs/town.edg.xml")
if net is not None and nodes is not None and plain is not None:
    verdict.made_by("outputs/town-built.net.xml", "netconvert")
    wanted = {n.get("id") for n in nodes.iter("node")}
    built = {j.get("id") for j in junctions(net)}
    verdict.check("the plain nodes", built == wanted, sorted(built ^ wanted))
    lanes = {e.get("id"): len(list(e.iter("lane"))) for e in edges(net)}
    expected = {e.get("id"): int(e.get("numLanes", "1")) for e in plain.iter("edge")}
    verdict.check(
        "the plain edges and lanes", lanes == expected, sorted(set(lanes) ^ set(expected))
    )
    reverse = {e.get("id"): f"{e.get('to')}{e.get('from')}" for e in plain.iter("edge")}
    turns = [c for c in net.iter("connection") if reverse.get(c.get("from")) == c.get("to")]
    verdict.check("no turnarounds", not turns, len(turns))
verdict.done()
