"""Half the demand gives about half the trips; scaled.json matches both SUMO runs."""

from simulacra.lab.verdict import Verdict, close, mean

verdict = Verdict()
half = verdict.xml("outputs/tripinfo-scale0.5.xml")
full = verdict.xml("outputs/tripinfo-scale1.xml")
table = verdict.json("outputs/scaled.json", "scales", "trips", "mean_duration_s")
if half is not None and full is not None and table is not None:
    for relative, scale in (
        ("outputs/tripinfo-scale0.5.xml", "0.5"),
        ("outputs/tripinfo-scale1.xml", "1"),
    ):
        verdict.made_by(relative, "sumo")
        used = verdict.option(relative, "scale") or 1.0
        verdict.check(f"{relative} ran at scale {scale}", used == float(scale), used)
    n_half, n_full = len(list(half.iter("tripinfo"))), len(list(full.iter("tripinfo")))
    verdict.check("half the trips", n_full > 0 and 0.35 <= n_half / n_full <= 0.65)
    verdict.check("scales", table["scales"] == [0.5, 1], table["scales"])
    verdict.check("trips reported", table["trips"] == [n_half, n_full], table["trips"])
    durations = table["mean_duration_s"]
    actual = [mean(half, "tripinfo", "duration"), mean(full, "tripinfo", "duration")]
    ok = (
        isinstance(durations, list)
        and len(durations) == 2
        and all(
            isinstance(a, int | float) and close(float(a), b)
            for a, b in zip(durations, actual, strict=True)
        )
    )
    verdict.check("durations match", ok, (durations, actual))
verdict.done()
