// The side-by-side mode: another run of the family (a button in report/family.py's tree)
// shown by its own viewer in a frame beside this one, from the step where the two part,
// held at this page's step by this page's scrubber. That viewer draws its own agent text
// (textContent only); this script writes only a run's name, as text.
"use strict";
(function () {
  const nav = document.getElementById("family");
  if (!nav) return;
  let side = null;
  function current() {
    const step = parseInt(new URLSearchParams(location.hash.slice(1)).get("step"), 10);
    return Number.isNaN(step) ? 0 : step;
  }
  function follow(step) {
    if (!side) return;
    const want = `${side.link}#step=${step}&embedded=1`;
    if (side.frame.getAttribute("src") !== want) side.frame.setAttribute("src", want);
  }
  function close() {
    if (!side) return;
    side.box.remove();
    side = null;
    document.body.classList.remove("side-by-side");
  }
  function open(button) {
    close();
    const from = Number(button.dataset.from);
    const box = document.createElement("section");
    box.id = "side";
    const head = document.createElement("h2");
    head.textContent = `beside: ${button.dataset.name}, from step ${from} (where the two part)`;
    const shut = document.createElement("button");
    shut.type = "button";
    shut.textContent = "close";
    shut.addEventListener("click", close);
    const frame = document.createElement("iframe");
    frame.title = `the viewer of ${button.dataset.name}`;
    box.append(head, shut, frame);
    document.querySelector("main").append(box);
    document.body.classList.add("side-by-side");
    side = { box, frame, link: button.dataset.viewer };
    if (current() < from) location.hash = `#step=${from}`;  // the viewer moves there; we follow
    follow(Math.max(current(), from));
  }
  nav.querySelectorAll("button.side-by-side").forEach((b) => b.addEventListener("click", () => open(b)));
  document.addEventListener("viewer-step", (e) => follow(e.detail));
})();
