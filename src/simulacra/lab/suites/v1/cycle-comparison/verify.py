"""Each cycle's mean waiting time matches its tripinfo; the best cycle has the least."""

from suite_checks import Verdict, close, mean

verdict = Verdict()
table = verdict.json("outputs/comparison.json")
if isinstance(table, dict):
    waits = []
    for cycle in (60, 90, 120):
        trips = verdict.xml(f"outputs/tripinfo-cycle{cycle}.xml")
        waits.append(mean(trips, "tripinfo", "waitingTime") if trips is not None else None)
    reported = table.get("mean_waiting_s") or []
    ok = len(reported) == 3 and all(
        w is not None and close(float(r), w) for r, w in zip(reported, waits, strict=True)
    )
    verdict.check("waiting times match the runs", ok, (reported, waits))
    if all(w is not None for w in waits):
        best = (60, 90, 120)[waits.index(min(waits))]
        verdict.check("best cycle", float(table.get("best_cycle", -1)) == best, best)
verdict.done()
