"""The chosen run inserted 200 vehicles within 5%, and calibration.json says so."""

from suite_checks import Verdict

verdict = Verdict()
stats = verdict.xml("outputs/statistics.xml")
table = verdict.json("outputs/calibration.json")
if stats is not None and isinstance(table, dict):
    vehicles = stats.find("vehicles")
    inserted = int(vehicles.get("inserted")) if vehicles is not None else 0
    verdict.check("within 5% of 200", abs(inserted - 200) <= 10, inserted)
    verdict.check("reported count", table.get("inserted") == inserted, table.get("inserted"))
    period = table.get("period")
    verdict.check("period in range", isinstance(period, int | float) and 1 <= period <= 6)
verdict.done()
