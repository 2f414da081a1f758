"""metrics.json agrees with the SUMO tripinfo it was computed from."""

from simulacra.lab.verdict import Verdict, close, mean

KEYS = {
    "mean_duration_s": "duration",
    "mean_waiting_s": "waitingTime",
    "mean_time_loss_s": "timeLoss",
    "mean_route_length_m": "routeLength",
}
verdict = Verdict()
trips = verdict.xml("outputs/tripinfo.xml")
metrics = verdict.json(
    "outputs/metrics.json",
    "trips",
    "mean_duration_s",
    "mean_waiting_s",
    "mean_time_loss_s",
    "mean_route_length_m",
)
if trips is not None and metrics is not None:
    verdict.made_by("outputs/tripinfo.xml", "sumo")
    count = len(list(trips.iter("tripinfo")))
    verdict.check("trips counted", metrics["trips"] == count, (metrics["trips"], count))
    for key, attribute in KEYS.items():
        value = metrics[key]
        actual = mean(trips, "tripinfo", attribute)
        ok = isinstance(value, int | float) and close(float(value), actual)
        verdict.check(key, ok, (value, round(actual, 3)))
verdict.done()
