"""SUMO measured every trip's emissions; the total CO2 (mg in tripinfo) in grams matches."""

from simulacra.lab.verdict import Verdict, close

verdict = Verdict()
trips = verdict.xml("outputs/tripinfo-emissions.xml")
table = verdict.json("outputs/emissions.json", "co2_g", "vehicles")
if trips is not None and table is not None:
    verdict.made_by("outputs/tripinfo-emissions.xml", "sumo")
    device = verdict.option("outputs/tripinfo-emissions.xml", "device.emissions.probability")
    verdict.check("an emissions device on every vehicle", device == 1, device)
    measured = [e for t in trips.iter("tripinfo") for e in t.iter("emissions")]
    finished = len(list(trips.iter("tripinfo")))
    verdict.check(
        "every trip measured", finished > 0 and len(measured) == finished, (len(measured), finished)
    )
    grams = sum(float(e.get("CO2_abs", "0")) for e in measured) / 1000
    verdict.check("vehicles", table["vehicles"] == finished, (table["vehicles"], finished))
    co2 = table["co2_g"]
    verdict.check(
        "CO2 in grams", isinstance(co2, int | float) and close(float(co2), grams), (co2, grams)
    )
verdict.done()
