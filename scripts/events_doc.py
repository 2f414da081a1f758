"""Write docs/events.md from the event classes of `simulacra.runlog.events`."""

from pathlib import Path

from simulacra.runlog.events import reference

if __name__ == "__main__":
    target = Path(__file__).resolve().parents[1] / "docs" / "events.md"
    target.write_text(reference(), encoding="utf-8")
    print(f"wrote {target}")
