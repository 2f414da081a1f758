"""netconvert put actuated lights at J1, J2 and J3 and nowhere else."""

from simulacra.lab.verdict import Verdict, junctions

LIGHTS = {"J1", "J2", "J3"}
verdict = Verdict()
net = verdict.xml("outputs/actuated.net.xml")
if net is not None:
    verdict.made_by("outputs/actuated.net.xml", "netconvert")
    lit = {j.get("id") for j in junctions(net) if j.get("type") == "traffic_light"}
    verdict.check("lights at J1, J2, J3 only", lit == LIGHTS, sorted(lit))
    kinds = {t.get("id"): t.get("type") for t in net.iter("tlLogic")}
    verdict.check("actuated programs", kinds == dict.fromkeys(LIGHTS, "actuated"), kinds)
    greens = [p for t in net.iter("tlLogic") for p in t.iter("phase") if "G" in p.get("state", "")]
    extendable = bool(greens) and all(p.get("minDur") and p.get("maxDur") for p in greens)
    verdict.check("green phases with a minimum and a maximum", extendable, len(greens))
verdict.done()
