"""All 300 vehicles inserted by SUMO, nearly all trips finished and written to tripinfo."""

from simulacra.lab.verdict import Verdict

verdict = Verdict()
stats = verdict.xml("outputs/statistics.xml")
trips = verdict.xml("outputs/tripinfo.xml")
if stats is not None and trips is not None:
    verdict.made_by("outputs/tripinfo.xml", "sumo")
    verdict.made_by("outputs/statistics.xml", "sumo")
    vehicles = stats.find("vehicles")
    inserted = vehicles.get("inserted") if vehicles is not None else None
    verdict.check("300 vehicles inserted", inserted == "300", inserted)
    finished = len(list(trips.iter("tripinfo")))
    verdict.check("at least 290 trips finished", finished >= 290, finished)
    verdict.check("until 1500 s", verdict.option("outputs/tripinfo.xml", "end") == 1500)
verdict.done()
