"""Every program's phases sum to 60 s, SUMO ran with them, and the waiting time matches."""

from simulacra.lab.verdict import Verdict, close, mean

verdict = Verdict()
programs = verdict.xml("outputs/tls.add.xml")
trips = verdict.xml("outputs/tripinfo.xml")
metrics = verdict.json("outputs/metrics.json", "mean_waiting_s")
if programs is not None and trips is not None and metrics is not None:
    verdict.made_by("outputs/tripinfo.xml", "sumo")
    logics = list(programs.iter("tlLogic"))
    verdict.check("nine programs", len(logics) == 9, len(logics))
    cycles = [sum(float(p.get("duration", "nan")) for p in t.iter("phase")) for t in logics]
    verdict.check("60 s cycles", all(abs(c - 60) < 0.1 for c in cycles), cycles)
    loaded = verdict.options("outputs/tripinfo.xml").get("additional-files", "")
    verdict.check("the run loaded the program", "tls.add.xml" in loaded, loaded)
    verdict.check("trips finished", len(list(trips.iter("tripinfo"))) > 200)
    actual = mean(trips, "tripinfo", "waitingTime")
    value = metrics["mean_waiting_s"]
    ok = isinstance(value, int | float) and close(float(value), actual)
    verdict.check("waiting time matches tripinfo", ok, (value, actual))
verdict.done()
