"""rating.html: a self-contained page on which a person ranks the blinded answers of an
evaluation and saves the rankings as JSON for `simulacra evaluate RUN --ratings FILE`.

The page knows only blinded answer ids; which condition gave which answer stays in eval.json.
Agent text enters the page as JSON and reaches the document only through textContent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from simulacra.report.safe_json import json_for_script

RATING_HTML = "rating.html"
_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'"
)
_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;max-width:920px;margin:2em auto;color:#1f2430}
.item{border:1px solid #d7dae0;border-radius:6px;padding:.8em 1em;margin:1em 0}
.item.done{border-color:#00798c}.q{font-weight:600}.who{color:#5b6170;font-size:.9em}
.answer{display:flex;gap:.8em;align-items:flex-start;margin:.5em 0}
.answer p{margin:0;flex:1}select{font-size:1em}
#bar{position:sticky;top:0;background:#fff;padding:.5em 0;border-bottom:1px solid #d7dae0}
textarea{width:100%;height:8em}
"""
_SCRIPT = """
const D = JSON.parse(document.getElementById("data").textContent);
const list = document.getElementById("items");
const el = (tag, attrs, ...kids) => { const e = document.createElement(tag);
  Object.entries(attrs || {}).forEach(([k, v]) => e.setAttribute(k, v));
  kids.forEach((k) => e.append(k)); return e; };
D.items.forEach((item) => {
  const box = el("section", {class: "item", "data-item": item.item});
  box.append(el("div", {class: "who"}, `${item.agent} · ${item.category}`));
  box.append(el("p", {class: "q"}, item.question));
  item.answers.forEach((a) => {
    const pick = el("select", {"data-key": a.key}, el("option", {value: ""}, "rank"));
    item.answers.forEach((_, i) => pick.append(el("option", {value: `${i + 1}`}, `${i + 1}`)));
    pick.addEventListener("change", () => box.classList.toggle("done", ranked(box) !== null));
    box.append(el("div", {class: "answer"}, pick, el("p", {}, a.text)));
  });
  list.append(box);
});
function ranked(box) {
  const picks = [...box.querySelectorAll("select")];
  const ranks = picks.map((p) => p.value);
  if (ranks.some((r) => !r) || new Set(ranks).size !== ranks.length) return null;
  return picks.slice().sort((a, b) => a.value - b.value).map((p) => p.dataset.key);
}
document.getElementById("save").addEventListener("click", () => {
  const rankings = [...document.querySelectorAll(".item")]
    .map((box) => ({item: box.dataset.item, order: ranked(box)})).filter((r) => r.order);
  const saved = {version: 1, run: D.run, rater: document.getElementById("rater").value || "person",
                 rankings};
  const text = JSON.stringify(saved, null, 1);
  document.getElementById("saved").value = text;
  document.getElementById("count").textContent = `${rankings.length} of ${D.items.length} ranked`;
  const link = el("a", {href: URL.createObjectURL(new Blob([text], {type: "application/json"})),
                        download: `ratings-${D.run}.json`});
  document.body.append(link); link.click(); link.remove();
});
"""


def render_rating_page(target: Path, run: str, items: Sequence[Mapping[str, Any]]) -> Path:
    """Write the page for `items` (each: item, agent, category, question, and answers as
    {key, text} in the order shown) to `target`."""
    data = json_for_script({"run": run, "items": list(items)})
    page = (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        f"<title>Rank the answers: {escape(run)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>Which answer is most believable?</h1><p>For each question to a character of "
        f"<b>{escape(run)}</b>, rank the answers from 1 (most believable for this character) "
        "down. The answers come from different versions of the agents, in random order. Rank "
        "as many questions as you like, then save: the file goes to "
        "<code>simulacra evaluate RUN --ratings FILE</code>.</p>"
        '<div id="bar"><label>Your name <input id="rater"></label> '
        '<button id="save">Save rankings</button> <span id="count"></span></div>'
        '<div id="items"></div><h2>Saved</h2><textarea id="saved" readonly></textarea>'
        f'<script type="application/json" id="data">{data}</script>'
        f"<script>{_SCRIPT}</script></body></html>\n"
    )
    target.write_text(page, encoding="utf-8")
    return target
