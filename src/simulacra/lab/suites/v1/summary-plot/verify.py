"""A real figure and a SUMO summary covering the whole run."""

from simulacra.lab.verdict import Verdict

verdict = Verdict()
verdict.png("outputs/running.png")
summary = verdict.xml("outputs/summary.xml")
if summary is not None:
    verdict.made_by("outputs/summary.xml", "sumo")
    times = [float(s.get("time", "nan")) for s in summary.iter("step")]
    verdict.check("summary reaches 600 s", bool(times) and max(times) >= 600, max(times or [0]))
    running = [int(s.get("running", "0")) for s in summary.iter("step")]
    verdict.check("vehicles ran", max(running or [0]) > 0)
verdict.done()
