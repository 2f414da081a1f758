"""metrics.json agrees with the tripinfo it was computed from."""

from suite_checks import Verdict, close, mean

verdict = Verdict()
trips = verdict.xml("outputs/tripinfo.xml")
metrics = verdict.json("outputs/metrics.json")
if trips is not None and isinstance(metrics, dict):
    count = len(list(trips.iter("tripinfo")))
    verdict.check("trips counted", metrics.get("trips") == count, (metrics.get("trips"), count))
    for key, attribute in (
        ("mean_duration_s", "duration"),
        ("mean_waiting_s", "waitingTime"),
        ("mean_time_loss_s", "timeLoss"),
        ("mean_route_length_m", "routeLength"),
    ):
        value = metrics.get(key)
        actual = mean(trips, "tripinfo", attribute)
        ok = isinstance(value, int | float) and close(float(value), actual)
        verdict.check(key, ok, (value, round(actual, 3)))
verdict.done()
