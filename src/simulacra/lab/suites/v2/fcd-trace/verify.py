"""SUMO's floating car data, every second of the first 300 s, vehicles on the network."""

from simulacra.lab.verdict import Verdict, edges

verdict = Verdict()
fcd = verdict.xml("outputs/fcd.xml")
net = verdict.xml("outputs/town.net.xml")
if fcd is not None and net is not None:
    verdict.made_by("outputs/fcd.xml", "sumo")
    times = [float(t.get("time", "nan")) for t in fcd.iter("timestep")]
    every = times == [float(s) for s in range(len(times))]
    verdict.check("every second", every and 299 <= len(times) <= 301, (len(times), times[:3]))
    lanes = {lane.get("id") for e in edges(net) for lane in e.iter("lane")}
    cars = list(fcd.iter("vehicle"))
    verdict.check("vehicles recorded", len(cars) > 100, len(cars))
    internal = [
        c.get("lane")
        for c in cars
        if c.get("lane") not in lanes and not c.get("lane", "").startswith(":")
    ]
    verdict.check("on the network's lanes", not internal, internal[:3])
verdict.done()
