"""Each cycle's SUMO run and its mean waiting time; the best cycle has the least."""

from simulacra.lab.verdict import Verdict, close, mean

verdict = Verdict()
table = verdict.json("outputs/comparison.json", "cycles", "mean_waiting_s", "best_cycle")
if table is not None:
    waits = []
    for cycle in (60, 90, 120):
        relative = f"outputs/tripinfo-cycle{cycle}.xml"
        trips = verdict.xml(relative)
        verdict.made_by(relative, "sumo")
        waits.append(mean(trips, "tripinfo", "waitingTime") if trips is not None else None)
    cycles = table["cycles"]
    verdict.check("cycles in order", isinstance(cycles, list) and cycles == [60, 90, 120], cycles)
    reported = table["mean_waiting_s"]
    ok = (
        isinstance(reported, list)
        and len(reported) == 3
        and all(
            w is not None and isinstance(r, int | float) and close(float(r), w)
            for r, w in zip(reported, waits, strict=True)
        )
    )
    verdict.check("waiting times match the runs", ok, (reported, waits))
    if all(w is not None for w in waits):
        best = (60, 90, 120)[waits.index(min(waits))]
        verdict.check("best cycle", table["best_cycle"] == best, (table["best_cycle"], best))
verdict.done()
