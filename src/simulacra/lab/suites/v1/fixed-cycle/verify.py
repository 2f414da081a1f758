"""Every program's phases sum to 60 s, and the metrics match the tripinfo."""

from suite_checks import Verdict, close, mean

verdict = Verdict()
programs = verdict.xml("outputs/tls.add.xml")
trips = verdict.xml("outputs/tripinfo.xml")
metrics = verdict.json("outputs/metrics.json")
if programs is not None and trips is not None and isinstance(metrics, dict):
    logics = list(programs.iter("tlLogic"))
    verdict.check("nine programs", len(logics) == 9, len(logics))
    cycles = [sum(float(p.get("duration")) for p in t.iter("phase")) for t in logics]
    verdict.check("60 s cycles", all(abs(c - 60) < 0.1 for c in cycles), cycles)
    verdict.check("trips finished", len(list(trips.iter("tripinfo"))) > 200)
    actual = mean(trips, "tripinfo", "waitingTime")
    value = metrics.get("mean_waiting_s")
    ok = isinstance(value, int | float) and close(float(value), actual)
    verdict.check("waiting time matches tripinfo", ok, (value, actual))
verdict.done()
