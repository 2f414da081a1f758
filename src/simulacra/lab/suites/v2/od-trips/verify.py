"""od2trips made one trip per matrix entry, each from a source edge of its district."""

from collections import Counter

from simulacra.lab.verdict import Verdict

verdict = Verdict()
trips = verdict.xml("outputs/od.trips.xml")
districts = verdict.xml("outputs/districts.taz.xml")
matrix_path = verdict.root / "outputs/od.txt"
if trips is not None and districts is not None and matrix_path.is_file():
    verdict.made_by("outputs/od.trips.xml", "od2trips")
    verdict.check("seed 5", verdict.option("outputs/od.trips.xml", "seed") == 5)
    matrix: Counter[tuple[str, str]] = Counter()
    for line in matrix_path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and not line.startswith(("*", "$")) and parts[2].isdigit():
            matrix[(parts[0], parts[1])] += int(parts[2])
    made = Counter((t.get("fromTaz", ""), t.get("toTaz", "")) for t in trips.iter("trip"))
    verdict.check(
        "one trip per matrix entry", made == matrix, (sum(made.values()), sum(matrix.values()))
    )
    sources = {
        taz.get("id"): {s.get("id") for s in taz.iter("tazSource")} for taz in districts.iter("taz")
    }
    wrong = [
        t.get("id")
        for t in trips.iter("trip")
        if t.get("from") not in sources.get(t.get("fromTaz"), ())
    ]
    verdict.check("trips start on their district's sources", not wrong, wrong[:5])
verdict.done()
