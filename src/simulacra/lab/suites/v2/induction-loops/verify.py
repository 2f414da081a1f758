"""Two loops where the task puts them; SUMO's counts, and counts.json agrees with them."""

from simulacra.lab.verdict import Verdict

PLACES = {"loop_J1J2": "J1J2_0", "loop_J2J3": "J2J3_0"}
verdict = Verdict()
defined = verdict.xml("outputs/loops.add.xml")
output = verdict.xml("outputs/loops.xml")
table = verdict.json("outputs/counts.json", "counts")
if defined is not None and output is not None and table is not None:
    verdict.made_by("outputs/loops.xml", "sumo")
    loops = {d.get("id"): d for d in defined.iter("inductionLoop")}
    verdict.check("two loops", set(loops) == set(PLACES), sorted(loops))
    placed = all(
        d.get("lane") == PLACES.get(i)
        and float(d.get("pos", "nan")) == 100
        and float(d.get("period", d.get("freq", "nan"))) == 300
        for i, d in loops.items()
    )
    verdict.check("100 m into lane 0, 300 s periods", placed)
    counted: dict[str, int] = {}
    intervals: dict[str, int] = {}
    for interval in output.iter("interval"):
        name = interval.get("id", "")
        counted[name] = counted.get(name, 0) + int(float(interval.get("nVehContrib", "0")))
        intervals[name] = intervals.get(name, 0) + 1
    verdict.check("three periods each", set(intervals.values()) == {3}, intervals)
    verdict.check("vehicles counted", all(v > 0 for v in counted.values()), counted)
    verdict.check("counts.json matches", table["counts"] == counted, (table["counts"], counted))
verdict.done()
