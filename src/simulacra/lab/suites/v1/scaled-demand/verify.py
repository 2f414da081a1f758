"""Half the demand gives about half the trips; scaled.json matches both tripinfos."""

from suite_checks import Verdict, close, mean

verdict = Verdict()
half = verdict.xml("outputs/tripinfo-scale0.5.xml")
full = verdict.xml("outputs/tripinfo-scale1.xml")
table = verdict.json("outputs/scaled.json")
if half is not None and full is not None and isinstance(table, dict):
    n_half, n_full = len(list(half.iter("tripinfo"))), len(list(full.iter("tripinfo")))
    verdict.check("half the trips", n_full > 0 and 0.35 <= n_half / n_full <= 0.65)
    verdict.check("trips reported", table.get("trips") == [n_half, n_full], table.get("trips"))
    durations = table.get("mean_duration_s") or []
    actual = [mean(half, "tripinfo", "duration"), mean(full, "tripinfo", "duration")]
    ok = len(durations) == 2 and all(
        close(float(a), b) for a, b in zip(durations, actual, strict=True)
    )
    verdict.check("durations match", ok, (durations, actual))
verdict.done()
