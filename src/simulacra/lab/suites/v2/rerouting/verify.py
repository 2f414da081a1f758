"""Two SUMO runs, one with rerouting every 60 s on every vehicle; their mean time loss."""

from simulacra.lab.verdict import Verdict, close, mean

verdict = Verdict()
static = verdict.xml("outputs/tripinfo-static.xml")
rerouted = verdict.xml("outputs/tripinfo-rerouting.xml")
table = verdict.json("outputs/rerouting.json", "static_time_loss_s", "rerouting_time_loss_s")
if static is not None and rerouted is not None and table is not None:
    for relative in ("outputs/tripinfo-static.xml", "outputs/tripinfo-rerouting.xml"):
        verdict.made_by(relative, "sumo")
        verdict.check(f"{relative} until 1500 s", verdict.option(relative, "end") == 1500)
    rerouting = "outputs/tripinfo-rerouting.xml"
    share = verdict.option(rerouting, "device.rerouting.probability")
    period = verdict.option(rerouting, "device.rerouting.period")
    verdict.check(
        "a device on every vehicle, every 60 s", share == 1 and period == 60, (share, period)
    )
    static_share = verdict.option("outputs/tripinfo-static.xml", "device.rerouting.probability")
    verdict.check("the static run does not reroute", not static_share, static_share)
    for key, trips in (("static_time_loss_s", static), ("rerouting_time_loss_s", rerouted)):
        value, actual = table[key], mean(trips, "tripinfo", "timeLoss")
        verdict.check(
            key, isinstance(value, int | float) and close(float(value), actual), (value, actual)
        )
verdict.done()
