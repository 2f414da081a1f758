"""The chosen SUMO run inserted 200 vehicles within 5%, and calibration.json says so."""

from simulacra.lab.verdict import Verdict

verdict = Verdict()
stats = verdict.xml("outputs/statistics.xml")
table = verdict.json("outputs/calibration.json", "period", "inserted")
if stats is not None and table is not None:
    verdict.made_by("outputs/statistics.xml", "sumo")
    verdict.check("a 600 s run", verdict.option("outputs/statistics.xml", "end") == 600)
    vehicles = stats.find("vehicles")
    inserted = int(vehicles.get("inserted", "0")) if vehicles is not None else 0
    verdict.check("within 5% of 200", abs(inserted - 200) <= 10, inserted)
    verdict.check("reported count", table["inserted"] == inserted, table["inserted"])
    period = table["period"]
    verdict.check("period in range", isinstance(period, int | float) and 1 <= period <= 6, period)
verdict.done()
