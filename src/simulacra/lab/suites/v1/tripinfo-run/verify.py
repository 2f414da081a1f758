"""All 300 vehicles inserted, nearly all trips finished and written to tripinfo."""

from suite_checks import Verdict

verdict = Verdict()
stats = verdict.xml("outputs/statistics.xml")
trips = verdict.xml("outputs/tripinfo.xml")
if stats is not None and trips is not None:
    vehicles = stats.find("vehicles")
    inserted = int(vehicles.get("inserted")) if vehicles is not None else 0
    verdict.check("300 vehicles inserted", inserted == 300, inserted)
    finished = len(list(trips.iter("tripinfo")))
    verdict.check("at least 290 trips finished", finished >= 290, finished)
verdict.done()
