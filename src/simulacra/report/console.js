// simulacra live console: pause, step and change a run while it plays, or join it as a visitor.
// Served only with the run's token (simulacra run --console); every call carries it. Text from
// agents and people only ever enters the page through textContent and createTextNode.
"use strict";
(function () {
  const token = document.body.dataset.console;
  if (!token) return;
  const $ = (id) => document.getElementById(id);
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => { if (v !== null && v !== undefined) node.setAttribute(k, String(v)); });
    children.forEach((c) => { if (c !== null && c !== undefined) node.append(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }
  const options = (select, values, labels) => {
    select.replaceChildren(...values.map((v) => el("option", { value: v }, labels ? labels(v) : v)));
  };
  const visitorId = (name) => "visitor:" + name.trim().toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  let names = {};  // agent id -> name, from the replay
  let choices = null;
  let replay = null;  // the run as last read
  // What visitors said from the console, read back from the run's log (a reloaded page
  // shows its chat again): { name, to, text, step }.
  let said = [];

  async function call(path, body) {
    const init = { headers: { "X-Console-Token": token }, cache: "no-store" };
    if (body) {
      init.method = "POST";
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify({ who: $("console-who").value, ...body });
    }
    const answer = await fetch(path, init);
    const value = await answer.json();
    if (!answer.ok) throw new Error(value.error || answer.statusText);
    return value;
  }
  function note(text, kind) {
    const item = el("li", { class: kind || "done" }, text);
    $("console-log").prepend(item);
    while ($("console-log").children.length > 40) $("console-log").lastChild.remove();
  }
  async function act(body) {
    try {
      const answer = await call("console/act", body);
      note(answer.done);
      show(answer.status);
      return true;
    } catch (error) {
      note(error.message, "refused");
      return false;
    }
  }

  // ---- the panel -----------------------------------------------------------------------
  // The page grows past the window: the map keeps most of it, the panel is scrolled to.
  const css = el("style", {}, "body{height:auto;min-height:100vh;grid-template-rows:auto minmax(22rem,70vh) auto auto}#console [hidden]{display:none}#console{border-top:2px solid #30638e;padding:.5rem 1rem;font-size:.9rem;display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:.5rem 1.5rem}"
    + "#console h2{font-size:1rem;margin:.2rem 0}#console fieldset{border:1px solid #ccc;border-radius:4px;margin:0;padding:.4rem .6rem}"
    + "#console label{display:block;margin:.15rem 0}#console input[type=text],#console select,#console textarea{width:100%;box-sizing:border-box}"
    + "#console .refused{color:#b00020}#console .paused{color:#b35c00;font-weight:bold}#console ul{margin:.2rem 0;padding-left:1.1rem;max-height:12rem;overflow:auto}"
    + "#console .line{margin:.1rem 0}#console .line b{margin-right:.3rem}");
  const panel = el("section", { id: "console", "aria-label": "live console" });
  const run = el("fieldset", {}, el("legend", {}, "Run"),
    el("div", { id: "console-status", role: "status" }, "connecting\u2026"),
    el("button", { type: "button", id: "console-pause" }, "Pause"), " ",
    el("button", { type: "button", id: "console-resume" }, "Resume"), " ",
    el("button", { type: "button", id: "console-step" }, "Step one tick"),
    el("label", {}, "speed ", el("select", { id: "console-speed" })),
    el("label", {}, "you are ", el("input", { type: "text", id: "console-who", value: "console", maxlength: 40 })));
  const change = el("fieldset", { id: "console-change" }, el("legend", {}, "Change the world"),
    el("p", { id: "console-note" }),
    el("label", {}, "type ", el("select", { id: "console-type" })),
    el("label", { id: "console-agents-row" }, "agent ", el("select", { id: "console-agent" }), el("select", { id: "console-agent2" })),
    el("label", { id: "console-place-row" }, "place ", el("select", { id: "console-place" })),
    el("label", { id: "console-object-row" }, "object ", el("select", { id: "console-object" })),
    el("label", { id: "console-state-row" }, "state ", el("input", { type: "text", id: "console-state", placeholder: "broken, closed \u2026" })),
    el("label", { id: "console-fire-row" }, "fire ", el("input", { type: "text", id: "console-fire", list: "console-fires", maxlength: 40, placeholder: "a fire's name, or a new one" }), el("datalist", { id: "console-fires" })),
    el("label", { id: "console-cell-row" }, "to cell x ", el("input", { type: "number", id: "console-x", step: 1, value: 0 }), " y ", el("input", { type: "number", id: "console-y", step: 1, value: 0 })),
    el("label", { id: "console-reach-row" }, "intensity ", el("input", { type: "number", id: "console-intensity", step: 0.1, min: 0, max: 1, placeholder: "kept" }), " radius ", el("input", { type: "number", id: "console-radius", step: 1, min: 1, placeholder: "kept" })),
    el("label", { id: "console-contradicts-row" }, "corrects memories that mention ", el("input", { type: "text", id: "console-contradicts", placeholder: "party, cafe" })),
    el("label", {}, "text ", el("textarea", { id: "console-text", rows: 2, maxlength: 400 })),
    el("button", { type: "button", id: "console-send" }, "Send at the next tick"));
  const visit = el("fieldset", { id: "console-visitor" }, el("legend", {}, "Visit the town"),
    el("label", {}, "name ", el("input", { type: "text", id: "visitor-name", maxlength: 40 })),
    el("label", {}, "description ", el("input", { type: "text", id: "visitor-description", maxlength: 200, placeholder: "a traveller with a camera" })),
    el("label", {}, "place ", el("select", { id: "visitor-place" })),
    el("button", { type: "button", id: "visitor-join" }, "Join"), " ",
    el("button", { type: "button", id: "visitor-move" }, "Move here"),
    el("label", {}, "say to ", el("select", { id: "visitor-to" })),
    el("label", {}, el("input", { type: "text", id: "visitor-line", maxlength: 200, placeholder: "what you say" })),
    el("button", { type: "button", id: "visitor-say" }, "Say"),
    el("ul", { id: "visitor-chat", "aria-live": "polite" }));
  const log = el("fieldset", {}, el("legend", {}, "What the console did"), el("ul", { id: "console-log" }));
  panel.append(run, change, visit, log);
  document.head.append(css);
  document.body.append(panel);
  options($("console-speed"), ["", "0.5", "1", "2", "5"], (v) => (v ? `${v} ticks/s at most` : "as fast as it goes"));

  // ---- composing in the world's own words ------------------------------------------------
  function compose() {
    const type = $("console-type").value;
    const show = (id, on) => { $(id).hidden = !on; };
    show("console-agents-row", type === "thought" || type === "conversation" || type === "correction");
    $("console-agent2").hidden = type !== "conversation";
    // A town's event changes an object of a place, a grid's moves a fire, a commute's is
    // only its text: an announcement.
    const event = type === "event", found = choices || {};
    ["console-place-row", "console-object-row", "console-state-row"].forEach((id) => show(id, event && !!found.places));
    ["console-fire-row", "console-cell-row", "console-reach-row"].forEach((id) => show(id, event && !!found.fires));
    show("console-contradicts-row", type === "correction");
  }
  function objects() {
    options($("console-object"), (choices.objects || {})[$("console-place").value] || []);
  }
  function ready(found) {
    choices = found;
    const label = (id) => (names[id] ? `${names[id]} (${id})` : id);
    options($("console-type"), found.types);
    ["console-agent", "console-agent2", "visitor-to"].forEach((id) => options($(id), found.agents, label));
    if (found.agents.length > 1) $("console-agent2").value = found.agents[1];
    if (found.types.includes("correction")) $("console-agent").prepend(el("option", { value: "" }, "everyone (a correction)"));
    options($("console-fires"), found.fires || []);
    if (found.fires && found.fires.length) $("console-fire").value = found.fires[0];
    ["console-x", "console-y"].forEach((id) => { $(id).min = -(found.half_size || 0); $(id).max = found.half_size || 0; });
    options($("console-place"), found.places || []);
    options($("visitor-place"), found.places || []);
    objects();
    $("console-note").textContent = found.note || `the ${found.world} world takes: ${found.types.join(", ")}`;
    $("console-send").disabled = !found.types.length;
    ["console-type", "console-text"].forEach((id) => { $(id).disabled = !found.types.length; });
    $("console-visitor").hidden = !found.visitors;
    compose();
  }
  $("console-type").addEventListener("change", compose);
  $("console-place").addEventListener("change", objects);
  $("console-send").addEventListener("click", async () => {
    const type = $("console-type").value;
    const item = { type, text: $("console-text").value.trim() };
    const agent = $("console-agent").value;
    if (type === "thought") item.agents = [agent];
    if (type === "conversation") item.agents = [agent, $("console-agent2").value];
    if (type === "correction") {
      if (agent) item.agents = [agent];
      item.contradicts = $("console-contradicts").value.split(",").map((w) => w.trim()).filter(Boolean).map((w) => [w]);
    }
    if (type === "event" && choices.fires) item.change = fireChange();
    else if (type === "event" && choices.places) item.change = { place: $("console-place").value, object: $("console-object").value, state: $("console-state").value.trim() };
    if (await act({ action: "intervene", intervention: item })) $("console-text").value = "";
  });

  function fireChange() {
    // Whole cells as typed; a blank intensity or radius keeps the fire's own (the run checks).
    const number = (id) => ($(id).value.trim() === "" ? undefined : Number($(id).value));
    const change = { fire: $("console-fire").value.trim(), position: [number("console-x"), number("console-y")] };
    ["intensity", "radius"].forEach((key) => { const v = number("console-" + key); if (v !== undefined) change[key] = v; });
    return change;
  }

  // ---- the visitor -----------------------------------------------------------------------
  async function come(what) {
    const name = $("visitor-name").value.trim();
    const body = { action: "visitor", do: what, name, place: $("visitor-place").value, description: $("visitor-description").value.trim() };
    await act(body);
  }
  $("visitor-join").addEventListener("click", () => come("join"));
  $("visitor-move").addEventListener("click", () => come("move"));
  $("visitor-say").addEventListener("click", async () => {
    const text = $("visitor-line").value.trim();
    const to = $("visitor-to").value;
    if (await act({ action: "visitor", do: "say", name: $("visitor-name").value.trim(), to, text })) {
      $("visitor-line").value = "";
      await heard();
    }
  });
  async function heard() {
    try {
      said = await call("console/said");
    } catch (error) {
      note(`the chat could not be read back: ${error.message}`, "refused");
    }
    chat();
  }
  function chat() {
    // Each visitor's lines and what agents said to them, in the order of the run's ticks: a
    // line said before step N shows in the frame of step N, before the answers in it.
    const frames = replay ? replay.frames : [];
    const frameOf = (step) => { const i = frames.findIndex((f) => f.step >= step); return i < 0 ? frames.length : i; };
    const latest = frames.length ? frames[frames.length - 1].extras.visitors : null;
    const last = Array.isArray(latest) ? latest : [];
    const visitors = new Set([...said.map((s) => visitorId(s.name)), ...last.map((v) => v.id)]);
    const lines = said.map((s, i) => ({ who: s.name, text: s.text, at: frameOf(s.step), then: 0, i }));
    (replay ? replay.messages : []).forEach((m, i) => {
      if (m.to.some((to) => visitors.has(to))) lines.push({ who: names[m.agent] || m.agent, text: m.text, at: m.frame, then: 1, i, reply: true });
    });
    lines.sort((a, b) => a.at - b.at || a.then - b.then || a.i - b.i);
    $("visitor-chat").replaceChildren(...lines.map((l) => el("li", { class: l.reply ? "line reply" : "line" }, el("b", {}, l.who + ":"), l.text)));
  }

  // ---- following the run ------------------------------------------------------------------
  function show(status) {
    const where = status.finished ? "the run has ended; the console is read-only"
      : status.paused ? `paused before step ${status.step}`
      : status.pausing ? `pausing before step ${status.step}\u2026` : `running (step ${status.step})`;
    const text = where + (status.speed ? ` \u00b7 at most ${status.speed} ticks/s` : "") + (status.queued ? ` \u00b7 ${status.queued} waiting for the next tick` : "");
    $("console-status").textContent = text;
    $("console-status").className = status.paused ? "paused" : "";
    ["console-pause", "console-resume", "console-step", "console-send", "visitor-join", "visitor-move", "visitor-say"].forEach((id) => { if (status.finished) $(id).disabled = true; });
  }
  let etag = null;
  async function follow() {
    try {
      show(await call("console/status"));
      const headers = etag ? { "If-None-Match": etag } : {};
      const answer = await fetch(document.body.dataset.live, { cache: "no-store", headers });
      if (answer.status === 200) {
        etag = answer.headers.get("ETag");
        replay = await answer.json();
        names = Object.fromEntries(Object.entries(replay.agents).map(([id, a]) => [id, a.name]));
        await heard();  // the log changed: what was said may have reached it
      }
    } catch (error) {
      $("console-status").textContent = `no answer from the console (${error.message}); still trying`;
    }
    setTimeout(follow, 700);
  }
  $("console-pause").addEventListener("click", () => act({ action: "pause" }));
  $("console-resume").addEventListener("click", () => act({ action: "resume" }));
  $("console-step").addEventListener("click", () => act({ action: "step" }));
  $("console-speed").addEventListener("change", () => act({ action: "speed", ticks_per_s: $("console-speed").value || null }));
  (async () => {
    try {
      replay = JSON.parse($("replay-data").textContent);
      names = Object.fromEntries(Object.entries(replay.agents).map(([id, a]) => [id, a.name]));
      ready(await call("console/choices"));
      await heard();
    } catch (error) {
      note(`the console could not load its choices: ${error.message}`, "refused");
    }
    follow();
  })();
})();
