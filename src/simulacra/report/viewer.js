// simulacra replay viewer. Agent text is untrusted: it only ever enters the page through
// textContent, createTextNode and setAttribute on fixed attribute names; never innerHTML.
"use strict";
(function () {
  let R = JSON.parse(document.getElementById("replay-data").textContent);  // live: replaced as the run goes on
  const SVGNS = "http://www.w3.org/2000/svg";
  const AGENT_COLOURS = ["#d1495b", "#00798c", "#edae49", "#66a182", "#8e6c8a",
    "#30638e", "#e07a5f", "#3d405b", "#81b29a", "#b5838d"];
  const PLACE_COLOURS = { home: "#f3e9d2", cafe: "#f6d6ad", park: "#cfe8c4", college: "#d6e0f5",
    store: "#f5d0d0", bar: "#e3d3f0", library: "#d9ecf2", school: "#d6e0f5", office: "#e6e6e6" };
  const EXTRA_COLOURS = { fires: "#e4572e", fire: "#e4572e" };
  // Static layers of points drawn as a line through them, by layer key.
  const ROUTES = { stops: "bus line" };
  const RING_MAX = 8;  // more agents on one spot are packed in a disc, not a ring
  const CROWD_MAX = 60;  // more agents on the map are drawn as crowds, one circle a spot
  const CROWD_COLOURS = ["#30638e", "#edae49", "#66a182", "#d1495b", "#8e6c8a", "#e07a5f", "#3d405b"];
  const LIMITS = { memories: 60, retrievals: 3, messages: 30 };
  const ids = Object.keys(R.agents);
  const colour = {};
  ids.forEach((id, i) => {
    colour[id] = i < AGENT_COLOURS.length ? AGENT_COLOURS[i] : `hsl(${(i * 137.5) % 360},55%,45%)`;
  });
  let memoryById = {};
  function indexMemories() {
    memoryById = {};
    ids.forEach((id) => R.agents[id].memories.forEach((m) => {
      memoryById[id + "\u0000" + m.id] = m;
      if (!(m.id in memoryById)) memoryById[m.id] = m;
    }));
  }
  indexMemories();
  const placeByName = {};
  R.places.forEach((p) => { placeByName[p.name] = p; });
  const [bx, by, bw, bh] = R.bounds;
  // A world's own drawing (per_world.py's `script`): `unit` sizes markers and text, `backdrop`
  // draws under the map once, `frame` after each frame is drawn.
  const WORLD = window.SimulacraWorldView || {};
  const unit = WORLD.unit ? WORLD.unit(R) : Math.max(bw, bh) / 100;
  // Where an agent stands: its own point, else its place's centre; null when neither is known.
  function spotOf(pos) {
    if (pos.x !== null && pos.y !== null) return [pos.x, pos.y];
    const p = placeByName[pos.place];
    return p ? [p.x + p.w / 2, p.y + p.h / 2] : null;
  }
  const spotKey = ([x, y]) => x.toFixed(2) + "," + y.toFixed(2);
  // Many agents, each on a spot of its own (El Farol's seats at the bar and at home): every
  // agent keeps a marker, shrunk to the room between spots, and each place's name stands
  // above it with how many are there against its capacity. Many agents sharing few spots
  // (the commute's zones) are drawn as crowds instead (drawCrowds).
  const DENSE = ids.length > CROWD_MAX && R.frames.every((f) => {
    const spots = Object.values(f.agents).map(spotOf).filter(Boolean);
    return spots.length <= CROWD_MAX || new Set(spots.map(spotKey)).size >= 0.9 * spots.length;
  });
  const state = { frame: 0, agent: null, timer: null, open: {}, showAll: {}, ticked: false };

  // ---- tiny DOM helpers --------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    setAttrs(node, attrs);
    children.forEach((c) => { if (c !== null && c !== undefined) node.append(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c); });
    return node;
  }
  function sv(tag, attrs, text) {
    const node = document.createElementNS(SVGNS, tag);
    setAttrs(node, attrs);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function setAttrs(node, attrs) {
    Object.entries(attrs || {}).forEach(([k, v]) => { if (v !== null && v !== undefined) node.setAttribute(k, String(v)); });
  }
  const $ = (id) => document.getElementById(id);
  // Seconds are shown where the run's ticks are shorter than a minute (an embodied decision);
  // worked out again when a live run's replay is replaced.
  let secondsOf = [null, false];
  function seconds() {
    if (secondsOf[0] !== R) secondsOf = [R, R.frames.some((f) => f.t && f.t.length >= 19 && f.t.slice(17, 19) !== "00")];
    return secondsOf[1];
  }
  const clock = (t) => (t ? t.replace("T", " ").slice(0, seconds() ? 19 : 16) : "");
  const hhmm = (t) => (t && t.length >= 16 ? t.slice(11, seconds() ? 19 : 16) : t || "");
  const num = (v) => (typeof v === "number" ? v.toFixed(3) : "");
  // A visitor (a person's, from the console) is no agent: named from the frames that draw it.
  const visitorNames = () => Object.fromEntries(R.frames.flatMap((f) => (Array.isArray(f.extras.visitors) ? f.extras.visitors : [])).filter((v) => v && v.id).map((v) => [v.id, v.name]));
  const nameOf = (id) => (R.agents[id] ? R.agents[id].name : visitorNames()[id] || id);
  const upTo = (items) => items.filter((x) => x.frame <= state.frame);
  // A memory invalidated by now (a correction, or evidence that fell): shown struck through.
  const gone = (m) => !!m && m.invalid_frame !== null && m.invalid_frame !== undefined && m.invalid_frame <= state.frame;
  function memory(agent, id) { return memoryById[agent + "\u0000" + id] || memoryById[id] || null; }
  function cut(text, n) { return text.length > n ? text.slice(0, n - 1) + "\u2026" : text; }
  function placeColour(kind) {
    if (PLACE_COLOURS[kind]) return PLACE_COLOURS[kind];
    let h = 0;
    for (const ch of kind || "") h = (h * 31 + ch.charCodeAt(0)) % 360;
    return `hsl(${h},45%,88%)`;
  }

  // ---- place labels --------------------------------------------------------------------
  // A place's name fits inside it at any scale. The label is drawn once at one unit, measured
  // in the browser, and scaled: text grows linearly with its size, so the largest size that
  // fits follows from the place's room. The name may take one to three lines, and the place's
  // kind goes under it when that costs the name little. Below a readable size the name is cut
  // with an ellipsis; the whole name stays in the place's tooltip.
  const LABEL_MAX = 2.4, LABEL_MIN = 1.0;
  function wrapped(name, count) {
    const words = name.split(" ");
    if (count <= 1 || words.length < 2) return [name];
    const per = name.length / Math.min(count, words.length);
    const out = [""];
    words.forEach((w) => {
      const line = out[out.length - 1];
      if (line && line.length + w.length / 2 > per && out.length < count) out.push(w);
      else out[out.length - 1] = line ? line + " " + w : w;
    });
    return out;
  }
  function drawLabel(g, p, lines, size, withKind) {
    g.querySelectorAll("text").forEach((t) => t.remove());
    const x = p.x + labelPad(p), top = p.y + labelPad(p);
    const name = sv("text", { x, y: top + size * 0.95, "font-size": size, class: "place-name" });
    lines.forEach((line, i) => name.append(sv("tspan", { x, dy: i ? "1.1em" : null }, line)));
    g.append(name);
    if (withKind) {
      const y = top + size * (0.95 + 1.1 * lines.length);
      g.append(sv("text", { x, y, "font-size": size * 0.8, class: "place-kind" }, p.kind));
    }
    // The block's extent from its top-left anchor.
    let w = 0, h = 0;
    g.querySelectorAll("text").forEach((t) => {
      const b = t.getBBox();
      w = Math.max(w, b.x + b.width - x);
      h = Math.max(h, b.y + b.height - top);
    });
    return { w, h };
  }
  function labelPad(p) { return Math.min(unit * 0.6, p.w / 10, p.h / 10); }
  function fitLabel(g, p) {
    const roomW = p.w - labelPad(p) * 1.5, roomH = p.h - labelPad(p) * 1.25;
    const largest = (lines, withKind) => {
      const { w, h } = drawLabel(g, p, lines, unit, withKind);
      return Math.min(unit * LABEL_MAX, (unit * roomW) / Math.max(w, 1e-9), (unit * roomH) / Math.max(h, 1e-9));
    };
    let best = null;
    for (let count = 1; count <= Math.min(3, p.name.split(" ").length); count++) {
      const lines = wrapped(p.name, count);
      for (const withKind of p.kind ? [true, false] : [false]) {
        // The kind is a hint: worth a tenth of the name's size, no more.
        const size = largest(lines, withKind), score = size * (withKind ? 1.1 : 1);
        if (!best || score > best.score) best = { lines, withKind, size, score };
      }
    }
    if (best.size >= unit * LABEL_MIN) {
      drawLabel(g, p, best.lines, best.size, best.withKind);
      return;
    }
    const lines = best.lines.slice();
    const last = lines.length - 1;
    for (let keep = lines[last].length - 1; keep > 0; keep--) {
      lines[last] = lines[last].slice(0, keep).trimEnd() + "\u2026";
      const { w, h } = drawLabel(g, p, lines, unit * LABEL_MIN, false);
      if (w <= roomW && h <= roomH) return;
    }
  }

  // ---- the map -------------------------------------------------------------------------
  const map = $("map");
  // Extra room on top: speech bubbles rise above the agents.
  // data-unit: the map's text and markers are sized in it (a world may set its own).
  setAttrs(map, { viewBox: `${bx} ${by - unit * 6} ${bw} ${bh + unit * 6}`, preserveAspectRatio: "xMidYMid meet", "data-unit": unit });
  const layers = {};
  ["places", "extras", "agents", "crowds", "labels", "bubbles"].forEach((name) => { layers[name] = map.appendChild(sv("g", { id: "layer-" + name })); });
  const small = [];  // places too narrow for their name inside (every place, when DENSE)
  R.places.forEach((p) => {
    const g = sv("g", { class: "place", "data-place": p.name });
    g.append(sv("rect", { x: p.x, y: p.y, width: p.w, height: p.h, rx: Math.min(unit * 0.8, p.w / 4, p.h / 4), fill: placeColour(p.kind) }));
    if (p.w >= unit * 4 && !DENSE) {
      layers.places.append(g);  // in the document, so that its text can be measured
      fitLabel(g, p);
    } else {
      small.push(p);
    }
    g.append(sv("title", {}, p.kind ? `${p.name} (${p.kind})` : p.name));
    layers.places.append(g);
  });
  // A small place's name stands above it, slanted, over the agents and with a halo, so a crowd
  // on the place cannot hide it. Places close together (the commute's city centre, hospital
  // and university) have their names level instead, stacked one above the other, each tied to
  // its place by a line.
  const clusters = [];
  small.slice().sort((a, b) => a.x - b.x).forEach((p) => {
    const last = clusters[clusters.length - 1];
    const near = last && p.x + p.w / 2 - (last[last.length - 1].x + last[last.length - 1].w / 2) < unit * 8;
    if (near) last.push(p); else clusters.push([p]);
  });
  const counts = {};  // DENSE: each place's count, beside its name
  clusters.forEach((group) => group.forEach((p, level) => {
    const x = p.x + p.w / 2;
    const attrs = { "font-size": unit * 1.8, class: "place-name slanted", "data-place": p.name };
    if (DENSE) {
      // Larger than a small place's name: a dense map is wide, and shown small.
      const y = p.y - unit * 0.9, name = sv("text", { ...attrs, "font-size": unit * 2.6, class: "place-name slanted level", x: p.x, y }, p.name);
      layers.labels.append(name);
      const b = name.getBBox(), widest = typeof p.capacity === "number" ? `${ids.length} of ${p.capacity}, crowded` : `${ids.length}`;
      counts[p.name] = layers.labels.appendChild(sv("text", { x: b.x + b.width + unit, y, "font-size": unit * 2.2, class: "place-count", "data-place": p.name }, widest));
      return;
    }
    if (group.length === 1) {
      const y = p.y - unit * 0.8;
      layers.labels.append(sv("text", { ...attrs, x, y, transform: `rotate(-35 ${x} ${y})` }, p.name));
      return;
    }
    const y = p.y - unit * (1.2 + 2.4 * (group.length - 1 - level));  // the leftmost on top
    layers.labels.append(sv("line", { x1: x, y1: p.y, x2: x, y2: y + unit * 0.4, class: "label-tail" }));
    layers.labels.append(sv("text", { ...attrs, x: x - unit * 0.4, y }, p.name));
  }));
  // The view holds every name, even one that runs past the map's edge.
  if (small.length) {
    const box = layers.labels.getBBox(), pad = unit;
    const x0 = Math.min(bx, box.x - pad), y0 = Math.min(by - unit * 6, box.y - pad);
    const x1 = Math.max(bx + bw, box.x + box.width + pad), y1 = by + bh;
    setAttrs(map, { viewBox: `${x0} ${y0} ${x1 - x0} ${y1 - y0}` });
  }
  // Layers no frame switches on by name (bus stops) are part of the map itself.
  const switched = new Set();
  R.frames.forEach((f) => Object.entries(f.extras).forEach(([k, v]) => { if (Array.isArray(v)) switched.add(k); }));
  Object.entries(R.layers).filter(([key]) => !switched.has(key)).forEach(([key, markers]) => {
    const g = sv("g", { class: "static-layer", "data-layer": key });
    if (ROUTES[key] && markers.length > 1) {
      g.append(sv("polyline", { points: markers.map((m) => `${m.x},${m.y}`).join(" "), class: "route", "stroke-width": unit * 0.5 }));
      g.lastChild.append(sv("title", {}, ROUTES[key]));
    }
    markers.forEach((m) => {
      const mark = sv("rect", { x: m.x - unit * 0.6, y: m.y - unit * 0.6, width: unit * 1.2, height: unit * 1.2, class: "stop" });
      mark.append(sv("title", {}, m.name || key));
      g.append(mark);
    });
    layers.places.append(g);
  });
  // `redraw`: the frame drawn again, in a view the world changed (the town's, on a resize).
  if (WORLD.backdrop) WORLD.backdrop({ R, map, layers, sv, unit, select: (id) => select(id), redraw: () => drawFrame() });
  const dots = {};
  ids.forEach((id) => {
    const g = sv("g", { class: "agent", "data-agent": id, tabindex: 0, role: "button" });
    // A marker moved off a name or another marker points back to where the agent stands.
    g.append(sv("line", { class: "leader", x1: 0, y1: 0, x2: 0, y2: 0 }));
    g.append(sv("circle", { r: unit * 2.4, fill: colour[id] }));
    const letters = R.agents[id].initials;
    g.append(sv("text", { "font-size": unit * 1.9 * Math.min(1, 2.4 / Math.max(letters.length, 1)), "text-anchor": "middle", dy: "0.35em" }, letters));
    const title = sv("title", {});
    g.append(title);
    g.addEventListener("click", () => select(id));
    g.addEventListener("keydown", (e) => { if (e.key === "Enter") select(id); });
    layers.agents.append(g);
    dots[id] = { g, title, leader: g.firstChild };
  });
  // Names on the map, which neither markers nor bubbles may cover: measured once, when first
  // needed (the layout never changes while the page is open).
  let nameBoxes = null;
  const names = () => nameBoxes || (nameBoxes = [...map.querySelectorAll("text.place-name, text.place-kind")].map(MapLayout.boxOf));
  const view = () => { const v = map.viewBox.baseVal; return [v.x, v.y, v.width, v.height]; };

  function positions(frame) {
    // Agents standing on the same spot are fanned out on a small ring so each stays clickable;
    // `spot` is where the agent stands, before any fanning out.
    const spots = {};
    const out = {};
    const spot = {};
    const size = {};
    Object.entries(frame.agents).forEach(([id, pos]) => {
      const at = spotOf(pos);
      if (!at) return;
      (spots[spotKey(at)] = spots[spotKey(at)] || []).push(id);
      out[id] = at;
      spot[id] = at;
    });
    if (DENSE) {
      // Each marker on its own spot, as wide as the nearest other spot leaves room for.
      const shrink = Math.min(1, (0.45 * nearest(Object.values(spot))) / (unit * 2.4));
      Object.keys(spot).forEach((id) => { size[id] = shrink; });
      return { at: out, spot, size };
    }
    Object.values(spots).forEach((group) => {
      const [x, y] = out[group[0]];
      if (group.length > RING_MAX) {
        // A sunflower disc of smaller dots: its area, not its rim, grows with the crowd.
        const shrink = Math.max(0.45, Math.sqrt(RING_MAX / group.length));
        const spacing = unit * 2.7 * shrink;
        const radius = spacing * Math.sqrt(group.length);
        group.forEach((id, i) => {
          const r = spacing * Math.sqrt(i + 0.5), a = i * 2.39996;
          out[id] = [x + r * Math.cos(a), y + r * Math.sin(a)];
          size[id] = shrink;
        });
        return;
      }
      const radius = group.length < 2 ? 0 : unit * 2.6 * Math.max(1, group.length / 4);
      group.forEach((id, i) => {
        const a = (2 * Math.PI * i) / group.length - Math.PI / 2;
        out[id] = [x + radius * Math.cos(a), y + radius * Math.sin(a)];
      });
    });
    return { at: out, spot, size };
  }

  // The least distance between two different spots (Infinity for fewer than two).
  function nearest(points) {
    let least = Infinity;
    points.forEach(([x, y], i) => points.slice(i + 1).forEach(([u, v]) => {
      const d = Math.hypot(x - u, y - v);
      if (d > 0 && d < least) least = d;
    }));
    return least;
  }

  // Each marker at the nearest spot to its own that covers no name, extra's name or marker
  // placed before it, inside its place where there is room; the result by agent.
  function settleMarkers(frame, placed, fixed) {
    const shown = ids.filter((id) => placed.at[id]);
    const items = shown.map((id) => {
      const r = unit * 2.4 * (placed.size[id] || 1), [x, y] = placed.at[id];
      const p = placeByName[frame.agents[id].place];
      return { w: 2 * r, h: 2 * r, spots: MapLayout.rings(x, y, r * 0.6, 16, 12), within: p ? [p.x, p.y, p.w, p.h] : null, anchor: [x - r, y - r, 2 * r, 2 * r] };
    });
    const boxes = MapLayout.settle(items, fixed, view(), unit * 0.25);
    const out = {};
    shown.forEach((id, i) => { const [x, y, w] = boxes[i]; out[id] = [x + w / 2, y + w / 2, w / 2]; });
    return out;
  }

  function drawFrame() {
    const frame = R.frames[state.frame];
    const placed = frame ? positions(frame) : { at: {}, spot: {}, size: {} };
    layers.extras.replaceChildren();
    // An extra is drawn when it lists points ({x, y, r}) or names markers of the layout.
    Object.entries(frame ? frame.extras : {}).forEach(([key, value]) => {
      if (!Array.isArray(value)) return;
      const named = R.layers[key] || [];
      value.forEach((item) => {
        const point = typeof item === "string" ? named.find((m) => m.name === item) : item;
        if (!point || typeof point.x !== "number" || typeof point.y !== "number") return;
        const radius = typeof point.r === "number" ? point.r : typeof point.radius === "number" ? point.radius : null;
        const colour = EXTRA_COLOURS[key] || "#7768ae";
        const g = sv("g", { class: "extra", "data-layer": key });
        if (radius) g.append(sv("circle", { cx: point.x, cy: point.y, r: radius, class: "reach", fill: colour }));
        g.append(sv("circle", { cx: point.x, cy: point.y, r: unit * 1.4, class: "core", fill: colour }));
        const label = point.label || point.name;
        g.append(sv("title", {}, label ? `${key}: ${label}` : key));
        // Named on the map too (a fire's name), beside its core, not only in a tooltip.
        if (label) g.append(sv("text", { x: point.x + unit * 1.9, y: point.y - unit * 1.2, "font-size": unit * 1.8, class: "extra-name" }, label));
        layers.extras.append(g);
      });
    });
    const fixed = names().concat([...layers.extras.querySelectorAll("text.extra-name")].map(MapLayout.boxOf));
    const crowded = !!frame && !DENSE && Object.keys(placed.at).length > CROWD_MAX;
    const where = !frame || crowded ? {} : DENSE ? onSpots(placed) : settleMarkers(frame, placed, fixed);
    drawCounts(frame);
    drawCrowds(crowded ? frame : null, placed, fixed);
    ids.forEach((id) => {
      const { g, title } = dots[id];
      const pos = frame && frame.agents[id];
      if (!where[id]) { g.setAttribute("visibility", "hidden"); return; }
      const [x, y, r] = where[id], [sx, sy] = placed.spot[id], [wx, wy] = placed.at[id];
      const scale = placed.size[id] || 1;
      setAttrs(g, { visibility: "visible", transform: `translate(${x} ${y}) scale(${scale})`, "data-x": x, "data-y": y });
      const moved = Math.hypot(x - wx, y - wy) > r / 2;
      setAttrs(dots[id].leader, { x2: moved ? (sx - x) / scale : 0, y2: moved ? (sy - y) / scale : 0, visibility: moved ? "visible" : "hidden" });
      g.classList.toggle("selected", id === state.agent);
      title.textContent = `${R.agents[id].name}: ${pos.action || "idle"} (${pos.place || "between places"})`;
    });
    // The world's own drawing first: it may move the view (following an agent), in which the
    // bubbles are then laid out, clear of the labels it names.
    const labels = (WORLD.frame && WORLD.frame({ R, frame, index: state.frame, where, dots, layers, sv, unit, agent: state.agent, playing: !!state.timer || state.ticked, speed: Number($("speed").value) })) || [];
    layers.bubbles.replaceChildren();
    // Each bubble where it covers no name, marker or earlier bubble, the first said first.
    const taken = fixed.concat(Object.values(where).map(([x, y, r]) => [x - r, y - r, 2 * r, 2 * r]), labels);
    const said = R.messages.filter((m) => m.frame === state.frame && where[m.agent]);
    const tails = layers.bubbles.appendChild(sv("g", { class: "tails" }));
    const drawn = said.map((m) => {
      const g = sv("g", { class: "bubble", "data-agent": m.agent });
      const text = sv("text", { x: 0, y: 0, "font-size": unit * 1.9 });
      text.append(sv("tspan", { class: "who" }, R.agents[m.agent] ? R.agents[m.agent].initials + ": " : ""), document.createTextNode(cut(m.text, 48)));
      const tail = sv("line", { class: "tail" }), box = sv("rect", { rx: unit * 0.8 });
      g.append(box, text, sv("title", {}, `${nameOf(m.agent)}: ${m.text}`));
      tails.append(tail);  // every tail under every bubble, so none crosses a bubble's text
      layers.bubbles.append(g);
      return { m, text, tail, box, b: text.getBBox() };
    });
    const boxes = MapLayout.settle(drawn.map(({ m, b }) => {
      const [x, y, r] = where[m.agent], w = b.width + unit * 1.4, h = b.height + unit;
      const spots = MapLayout.beside(x, y, r, w, h, unit * 1.5, 10).concat(MapLayout.rings(x, y - r - h / 2, unit * 3, 24, 16));
      return { w, h, spots, within: null, anchor: [x, y, 0, 0] };
    }), taken, view(), unit * 0.3);
    drawn.forEach(({ m, text, tail, box, b }, i) => {
      const [x, y, w, h] = boxes[i], [mx, my] = where[m.agent];
      setAttrs(text, { x: x + unit * 0.7 - b.x, y: y + unit * 0.5 - b.y });
      setAttrs(box, { x, y, width: w, height: h });
      const tx = Math.min(Math.max(mx, x), x + w), ty = Math.min(Math.max(my, y), y + h);
      setAttrs(tail, { x1: mx, y1: my, x2: tx, y2: ty });
    });
  }

  function onSpots(placed) {
    return Object.fromEntries(Object.entries(placed.at).map(([id, [x, y]]) => [id, [x, y, unit * 2.4 * placed.size[id]]]));
  }
  // DENSE: how many stand in each place now, against its capacity where the world gives one.
  function drawCounts(frame) {
    Object.entries(counts).forEach(([name, text]) => {
      const n = frame ? Object.values(frame.agents).filter((a) => a.place === name).length : 0;
      const cap = placeByName[name].capacity, known = typeof cap === "number";
      text.textContent = known ? `${n} of ${cap}` + (n > cap ? ", crowded" : "") : `${n}`;
      text.classList.toggle("over", known && n > cap);
    });
  }

  // ---- crowds ----------------------------------------------------------------------------
  // Past CROWD_MAX agents, one dot each would be a blob: each spot gets one circle instead,
  // its area growing with the agents there, its number counting them and its wedges splitting
  // them by what they are doing (the commute's modes), with a legend of those.
  function drawCrowds(frame, placed, fixed) {
    layers.crowds.replaceChildren();
    if (!frame) return;
    const doing = (id) => frame.agents[id].action || "no action";
    const kinds = [...new Set(Object.keys(placed.spot).map(doing))].sort();
    const paint = (kind) => (kind === "no action" ? "#9aa0ad" : CROWD_COLOURS[kinds.indexOf(kind) % CROWD_COLOURS.length]);
    const [vx, vy] = view();
    const legend = layers.crowds.appendChild(sv("g", { class: "crowd-legend" }));
    kinds.forEach((kind, i) => {
      const y = vy + unit * (1.5 + 2.4 * i);
      legend.append(sv("rect", { x: vx + unit, y, width: unit * 1.6, height: unit * 1.6, fill: paint(kind) }));
      legend.append(sv("text", { x: vx + unit * 3.2, y: y + unit * 1.35, "font-size": unit * 1.7 }, kind));
    });
    const groups = {};
    Object.keys(placed.spot).forEach((id) => {
      const key = placed.spot[id].map((v) => v.toFixed(2)).join(",");
      (groups[key] = groups[key] || []).push(id);
    });
    const list = Object.values(groups);
    const most = Math.max(...list.map((group) => group.length));
    const boxes = MapLayout.settle(list.map((group) => {
      const r = unit * Math.max(2, 6 * Math.sqrt(group.length / most)), [x, y] = placed.spot[group[0]];
      return { w: 2 * r, h: 2 * r, spots: MapLayout.rings(x, y, r * 0.5, 24, 12), within: null };
    }), fixed.concat([MapLayout.boxOf(legend)]), view(), unit * 0.4);
    list.forEach((group, i) => {
      const [x0, y0, w] = boxes[i], r = w / 2, cx = x0 + r, cy = y0 + r, [sx, sy] = placed.spot[group[0]];
      const where = frame.agents[group[0]].place || "between places";
      const g = sv("g", { class: "crowd", "data-place": where, "data-count": group.length });
      if (Math.hypot(cx - sx, cy - sy) > r) g.append(sv("line", { x1: cx, y1: cy, x2: sx, y2: sy, class: "leader" }));
      let start = -Math.PI / 2;
      const counts = kinds.map((kind) => [kind, group.filter((id) => doing(id) === kind).length]).filter(([, n]) => n);
      counts.forEach(([kind, n]) => {
        const end = start + (2 * Math.PI * n) / group.length, attrs = { fill: paint(kind), "data-action": kind, "data-count": n };
        if (n === group.length) g.append(sv("circle", { cx, cy, r, ...attrs }));
        else {
          const large = end - start > Math.PI ? 1 : 0, at = (a) => `${cx + r * Math.cos(a)} ${cy + r * Math.sin(a)}`;
          g.append(sv("path", { d: `M ${cx} ${cy} L ${at(start)} A ${r} ${r} 0 ${large} 1 ${at(end)} Z`, ...attrs }));
        }
        start = end;
      });
      g.append(sv("text", { x: cx, y: cy, "font-size": unit * 1.7, "text-anchor": "middle", dy: "0.35em" }, String(group.length)));
      g.append(sv("title", {}, `${where}: ${group.length} agents \u2014 ` + counts.map(([kind, n]) => `${kind} ${n}`).join(", ")));
      layers.crowds.append(g);
    });
  }

  // ---- what everyone is doing now ------------------------------------------------------
  function drawNow() {
    const frame = R.frames[state.frame];
    const list = $("now-list");
    list.replaceChildren();
    ids.forEach((id) => {
      const pos = frame && frame.agents[id];
      const item = el("li", { class: id === state.agent ? "now-agent selected" : "now-agent", "data-agent": id });
      const button = el("button", { type: "button", class: "agent-link" }, el("span", { class: "swatch" }), R.agents[id].name);
      button.firstChild.style.background = colour[id];
      button.addEventListener("click", () => select(id));
      item.append(button, el("span", { class: "where" }, pos ? (pos.place || "between places") + (pos.area ? " \u00b7 " + pos.area : "") : "not on the map"));
      if (pos && pos.action) item.append(el("div", { class: "action" }, pos.action));
      R.messages.filter((m) => m.frame === state.frame && m.agent === id).forEach((m) => {
        item.append(el("div", { class: "speech" }, `\u201c${m.text}\u201d`, el("span", { class: "to" }, m.to.length ? " \u2192 " + m.to.map(nameOf).join(", ") : "")));
      });
      list.append(item);
    });
    R.notes.filter((n) => n.frame === state.frame).forEach((n) => {
      list.append(el("li", { class: "note" }, el("b", {}, n.kind + ": "), n.text, n.detail ? " \u2014 " + n.detail : ""));
    });
    // Extras that are not drawn on the map are listed: counts, shares, lists of names.
    const drawn = (k, v) => Array.isArray(v) && (R.layers[k] || v.some((item) => item && typeof item === "object"));
    const other = Object.entries(frame ? frame.extras : {}).filter(([k, v]) => !drawn(k, v) && !(Array.isArray(v) && !v.length));
    other.forEach(([k, v]) => list.append(el("li", { class: "state", "data-key": k }, el("b", {}, words(k)), stateView(v, 0))));
  }

  // The world's own state, as a person reads it: names and values, nested lists, long lists
  // cut short with a count of the rest; never raw JSON.
  const STATE_ITEMS = 12;
  const words = (key) => key.replace(/_/g, " ");
  function scalar(v) {
    if (v === null || v === undefined) return "\u2014";
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(2);
    if (typeof v === "boolean") return v ? "yes" : "no";
    return String(v);
  }
  function stateView(v, depth) {
    const simple = (x) => x === null || typeof x !== "object";
    if (simple(v)) return el("span", { class: "value" }, " " + scalar(v));
    const entries = Array.isArray(v) ? v.map((x, i) => [null, x, i]) : Object.entries(v).map(([k, x]) => [k, x]);
    if (!entries.length) return el("span", { class: "value empty" }, " none");
    if (Array.isArray(v) && v.every(simple)) {
      const shown = v.slice(0, STATE_ITEMS).map(scalar).join(", ");
      return el("span", { class: "value" }, " " + shown + (v.length > STATE_ITEMS ? `, \u2026 (${v.length - STATE_ITEMS} more)` : ""));
    }
    if (depth >= 3) return el("span", { class: "value" }, ` (${entries.length} entries)`);
    const ul = el("ul", { class: "state-list" });
    entries.slice(0, STATE_ITEMS).forEach(([k, x]) => {
      ul.append(el("li", {}, k !== null ? el("span", { class: "key" }, words(k) + ":") : null, stateView(x, depth + 1)));
    });
    if (entries.length > STATE_ITEMS) ul.append(el("li", { class: "more" }, `\u2026 ${entries.length - STATE_ITEMS} more`));
    return ul;
  }

  // ---- the agent panel -----------------------------------------------------------------
  function section(key, title, count, body) {
    const open = state.open[key] !== undefined ? state.open[key] : true;
    const d = el("details", { class: "section", "data-section": key }, el("summary", {}, title, count !== null ? el("span", { class: "count" }, ` ${count}`) : null), body);
    d.open = open;
    d.addEventListener("toggle", () => { state.open[key] = d.open; });
    return d;
  }

  function limited(key, items, limit, render) {
    const wrap = el("div", {});
    const shown = state.showAll[key] ? items : items.slice(0, limit);
    wrap.append(...shown.map(render));
    if (items.length > shown.length) {
      const more = el("button", { type: "button", class: "more" }, `show all ${items.length}`);
      more.addEventListener("click", () => { state.showAll[key] = true; drawPanel(); });
      wrap.append(more);
    }
    return wrap;
  }

  function personaView(persona) {
    const dl = el("dl", { class: "persona" });
    Object.entries(persona).forEach(([k, v]) => dl.append(el("dt", {}, words(k)), el("dd", {}, typeof v === "string" ? v : stateView(v, 1))));
    return dl;
  }

  // The panels a run has anything for: a world whose minds keep no plan or memory stream (the
  // grid's bounded notes, the embodied agent, El Farol's bounded memory) shows none of them.
  // Asked at each drawing: a live run's replay grows.
  function keeps() {
    const everyone = Object.values(R.agents);
    return {
      plans: everyone.some((t) => t.plans.length),
      memories: everyone.some((t) => t.memories.length || t.reflections.length || t.retrievals.length),
      messages: R.messages.length > 0,
    };
  }

  function planView(agent) {
    const latest = {};
    upTo(R.agents[agent].plans).forEach((p) => { latest[p.level] = p; });
    const now = R.frames[state.frame] ? R.frames[state.frame].t : null;
    const wrap = el("div", {});
    Object.values(latest).forEach((plan) => {
      const rows = plan.items.map((it) => {
        const end = it.start && Date.parse(it.start) + it.duration_min * 60000;
        const current = now && it.start <= now && Date.parse(now) < end;
        return el("tr", { class: current ? "current" : "" }, el("td", {}, hhmm(it.start)), el("td", {}, `${it.duration_min} min`), el("td", {}, it.place), el("td", {}, it.description));
      });
      wrap.append(el("div", { class: "plan", "data-level": plan.level }, el("h4", {}, `${plan.level} plan`, el("span", { class: "when" }, ` made ${clock(plan.t)}`)), el("table", {}, el("tbody", {}, ...rows))));
    });
    if (!wrap.childNodes.length) wrap.append(el("p", { class: "empty" }, "No plan yet."));
    return wrap;
  }

  function memoryView(agent, retrievals) {
    const hits = {};
    // A result is a row: [id, recency, importance, relevance, total].
    retrievals.forEach((r) => r.results.forEach(([id, , , , total]) => { (hits[id] = hits[id] || []).push(total); }));
    const items = upTo(R.agents[agent].memories).slice().reverse();
    return limited(agent + "/memories", items, LIMITS.memories, (m) => {
      const seen = hits[m.id];
      return el("div", { class: gone(m) ? "memory invalid" : "memory", "data-memory": m.id, "data-kind": m.kind },
        el("div", { class: "meta" }, el("code", {}, m.id), ` ${m.kind} \u00b7 importance ${m.importance ?? "?"}`, m.importance_source ? ` (${m.importance_source})` : "", ` \u00b7 ${clock(m.created_at || (R.frames[m.frame] || {}).t)}`),
        el("div", { class: "text" }, m.text),
        seen ? el("div", { class: "retrieved" }, `retrieved ${seen.length}\u00d7, last total ${num(seen[seen.length - 1])}`) : null,
        gone(m) ? el("div", { class: "invalidated" }, `invalidated: ${m.invalid_reason}`) : null);
    });
  }

  function retrievalView(agent, retrievals) {
    const items = retrievals.slice().reverse();
    return limited(agent + "/retrievals", items, LIMITS.retrievals, (r) => {
      const head = el("tr", {}, ...["memory", "recency", "importance", "relevance", "total"].map((h, i) => el("th", { class: i ? "score" : "" }, h)));
      const rows = r.results.map(([id, ...scores]) => {
        const m = memory(agent, id);
        return el("tr", { "data-memory": id }, el("td", { title: m ? m.text : "" }, el("code", {}, id), " ", m ? cut(m.text, 80) : "(unknown)"),
          ...scores.map((v) => el("td", { class: "score" }, num(v))));
      });
      const cols = el("colgroup", {}, el("col", {}), ...[1, 2, 3, 4].map(() => el("col", { class: "score" })));
      return el("div", { class: "retrieval" }, el("div", { class: "meta" }, `${clock(r.t)} \u00b7 k=${r.k} \u00b7 query: `, el("q", {}, r.query)), el("table", { class: "scores" }, cols, el("thead", {}, head), el("tbody", {}, ...rows)));
    });
  }

  function evidenceList(agent, nodes, path) {
    const ul = el("ul", { class: "evidence-list" });
    nodes.forEach((node, i) => {
      const m = memory(agent, node.id);
      const label = [el("code", {}, node.id), " ", m ? `${m.kind}: ${m.text}` : "(no such record in the log)"];
      if (node.stop) label.push(el("em", {}, ` (${node.stop === "cycle" ? "cites itself" : "deeper evidence not shown"})`));
      if (gone(m)) label.push(el("em", { class: "invalidated" }, ` (invalidated: ${m.invalid_reason})`));
      const li = el("li", { class: (node.found ? "evidence" : "evidence missing") + (gone(m) ? " invalid" : ""), "data-memory": node.id });
      if (node.children.length) {
        const key = path + "/" + i;
        const d = el("details", {}, el("summary", {}, ...label), evidenceList(agent, node.children, key));
        d.open = !!state.open[key];
        d.addEventListener("toggle", () => { state.open[key] = d.open; });
        li.append(d);
      } else li.append(...label);
      ul.append(li);
    });
    return ul;
  }

  function reflectionView(agent) {
    const items = upTo(R.agents[agent].reflections).slice().reverse();
    if (!items.length) return el("p", { class: "empty" }, "No reflection yet.");
    return el("div", {}, ...items.map((r, ri) => el("div", { class: "reflection" },
      el("div", { class: "meta" }, clock(r.t), r.questions.length ? " \u00b7 asked: " + r.questions.join(" / ") : ""),
      ...r.insights.map((ins, ii) => el("div", { class: gone(memory(agent, ins.id)) ? "insight invalid" : "insight", "data-memory": ins.id },
        el("div", { class: "text" }, el("code", {}, ins.id), " ", ins.text),
        el("div", { class: "evidence-tree" }, el("span", { class: "label" }, `evidence (${ins.evidence_ids.length})`), evidenceList(agent, ins.tree, `${agent}/ev/${r.frame}/${ri}/${ii}`)))),
      r.rejected.length ? el("div", { class: "rejected" }, "not stored: " + r.rejected.join("; ")) : null)));
  }

  function talkView(agent) {
    const items = upTo(R.messages).filter((m) => m.agent === agent || m.to.includes(agent)).reverse();
    if (!items.length) return el("p", { class: "empty" }, "Nothing said yet.");
    return limited(agent + "/talk", items, LIMITS.messages, (m) => el("div", { class: "message" },
      el("span", { class: "meta" }, `${hhmm(m.t)} ${nameOf(m.agent)} \u2192 ${m.to.map(nameOf).join(", ")}: `), m.text));
  }

  const PNG = "data:image/png;base64,";
  function picture(src, alt, kind) {
    if (typeof src !== "string" || !src.startsWith(PNG)) return null;
    return el("figure", { class: "picture" }, el("img", { src, alt, "data-kind": kind }), el("figcaption", {}, alt));
  }

  function decisionView(a) {
    // The decision that led to this frame (the latest one up to it), and the scene after it.
    const d = upTo(a.decisions).pop();
    const overview = picture(R.overviews[state.frame], "overview", "overview");
    if (!d) return el("div", {}, el("p", { class: "empty" }, "No decision yet."), overview);
    const pose = (p) => (p ? `(${p.x.toFixed(2)}, ${p.y.toFixed(2)}) heading ${Math.round(p.yaw)}\u00b0 gaze ${Math.round(p.pitch)}\u00b0` : "?");
    const meta = [`step ${d.step}`, clock(d.t), d.mind, d.latency_s !== null ? `model ${d.latency_s.toFixed(2)} s` : null, d.nudged ? "nudged" : null].filter(Boolean).join(" \u00b7 ");
    const rows = [
      ["reply", d.raw],
      d.caption ? ["caption", d.caption] : null,
      ["command", d.command],
      d.notes.length ? ["parser notes", d.notes.join("; ")] : null,
      ["outcome", d.outcome],
      d.clamps.length ? ["clamps", d.clamps.join("; ")] : null,
      d.boundary ? ["boundary", d.boundary] : null,
      ["pose", `${pose(d.pose_before)} \u2192 ${pose(d.pose_after)}`]].filter(Boolean);
    return el("div", { class: "decision", "data-step": d.step },
      el("div", { class: "meta" }, meta),
      el("div", { class: "pictures" }, picture(d.image, "first-person view", "view"), overview),
      el("dl", { class: "decision-fields" }, ...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", { "data-field": k }, v)])),
      d.parsed ? el("code", { class: "parsed" }, JSON.stringify(d.parsed)) : null,
      d.prompt ? el("details", { class: "prompt" }, el("summary", {}, "prompt sent"), el("pre", { "data-field": "prompt" }, d.prompt)) : null);
  }

  function drawPanel() {
    const panel = $("panel");
    if (!state.agent || !R.agents[state.agent]) {
      panel.replaceChildren(el("p", { class: "hint" }, "Click an agent on the map or in the list to see its persona, plan, memory, retrievals and reflections."));
      return;
    }
    const scroll = panel.scrollTop;
    const a = R.agents[state.agent];
    const frame = R.frames[state.frame];
    const pos = frame && frame.agents[a.id];
    const retrievals = upTo(a.retrievals);
    const swatch = el("span", { class: "swatch big" });
    swatch.style.background = colour[a.id];
    const notes = upTo(a.notes).reverse();
    const KEEPS = keeps();
    const parts = [
      el("div", { class: "panel-head" }, swatch, el("h2", { id: "agent-name" }, a.name), el("code", {}, a.id)),
      el("p", { class: "doing" }, pos ? `${pos.action || "idle"} \u2014 ${pos.place || "between places"}${pos.area ? " \u00b7 " + pos.area : ""}` : "not on the map now"),
      a.decisions.length ? section("decision", "Decision", upTo(a.decisions).length, decisionView(a)) : null,
      section("persona", "Persona", null, personaView(a.persona)),
      KEEPS.plans ? section("plan", "Plan", null, planView(a.id)) : null,
      KEEPS.memories ? section("memories", "Memory stream", upTo(a.memories).length, memoryView(a.id, retrievals)) : null,
      KEEPS.memories ? section("retrievals", "Retrievals", retrievals.length, retrievalView(a.id, retrievals)) : null,
      KEEPS.memories ? section("reflections", "Reflections", upTo(a.reflections).length, reflectionView(a.id)) : null,
      KEEPS.messages ? section("talk", "Conversation", null, talkView(a.id)) : null,
      notes.length ? section("notes", "Interviews, interventions, rejected actions", notes.length, el("div", {}, ...notes.map((n) => el("div", { class: "note" }, el("b", {}, `${hhmm(n.t)} ${n.kind}: `), n.text, n.detail ? " \u2014 " + n.detail : "")))) : null];
    panel.replaceChildren(...parts.filter(Boolean));  // a null would show as the text "null"
    panel.scrollTop = scroll;
  }

  // ---- time, selection, URL ------------------------------------------------------------
  const scrubber = $("scrubber");
  setAttrs(scrubber, { min: 0, max: Math.max(R.frames.length - 1, 0), value: 0 });
  if (!R.frames.length) scrubber.disabled = true;

  function render() {
    const frame = R.frames[state.frame];
    scrubber.value = String(state.frame);
    $("clock").textContent = frame ? `step ${frame.step}` + (frame.t ? ` \u00b7 ${clock(frame.t)}` : "") : "no world frames in this run";
    drawFrame();
    drawNow();
    drawPanel();
    const hash = `#step=${frame ? frame.step : 0}` + (state.agent ? `&agent=${encodeURIComponent(state.agent)}` : "");
    if (location.hash !== hash) history.replaceState(null, "", hash);
    document.dispatchEvent(new CustomEvent("viewer-step", { detail: frame ? frame.step : 0 }));  // viewer_side.js
  }
  function goTo(index) { state.frame = Math.min(Math.max(index, 0), Math.max(R.frames.length - 1, 0)); render(); }
  function select(id) { state.agent = id; render(); }
  function frameOfStep(step) {
    let index = 0;
    R.frames.forEach((f, i) => { if (f.step <= step) index = i; });
    return index;
  }
  function applyHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    if (params.has("embedded")) document.body.classList.add("embedded");  // shown side by side
    const step = parseInt(params.get("step"), 10);
    if (!Number.isNaN(step)) state.frame = frameOfStep(step);
    const agent = params.get("agent");
    if (agent && R.agents[agent]) state.agent = agent;
    render();
  }
  function play() {
    if (state.timer || R.frames.length < 2) return;
    if (state.frame >= R.frames.length - 1) state.frame = 0;
    state.timer = setInterval(() => {
      if (state.frame >= R.frames.length - 1) { if (!live.on) pause(); return; }  // live: wait for the next tick
      goTo(state.frame + 1);
    }, 1000 / Number($("speed").value));
    $("play").disabled = true; $("pause").disabled = false;
  }
  function pause() {
    clearInterval(state.timer); state.timer = null;
    $("play").disabled = false; $("pause").disabled = true;
  }
  scrubber.addEventListener("input", () => goTo(Number(scrubber.value)));
  $("play").addEventListener("click", play);
  $("pause").addEventListener("click", pause);
  $("speed").addEventListener("change", () => { if (state.timer) { pause(); play(); } });
  $("step-back").addEventListener("click", () => goTo(state.frame - 1));
  $("step-forward").addEventListener("click", () => goTo(state.frame + 1));
  window.addEventListener("hashchange", applyHash);
  function describeRun() {
    const run = R.run;
    $("run-meta").textContent = `${run.scenario} \u00b7 model ${run.model}${run.scripted ? " (scripted: canned answers, not a language model)" : ""} \u00b7 seed ${run.seed ?? "?"} \u00b7 ${run.status}${run.spend ? ` \u00b7 ${run.spend}` : ""}`;
  }

  // ---- live: follow a run while it is written (simulacra view RUN --live) ----------------
  // The page polls the server for the replay as it stands; a poll never blocks the page, and
  // a run slow to write its next tick only leaves the status saying how long it has waited.
  const live = { on: !!document.body.dataset.live, etag: null, heard: Date.now(), changed: Date.now() };
  const POLL_MS = 1000;
  const layout = (r) => JSON.stringify([Object.keys(r.agents), r.places, r.layers, r.bounds]);
  function showLive(text, kind) {
    const badge = $("live");
    badge.textContent = text;
    badge.className = kind;
  }
  function takeReplay(next) {
    // A new agent, place or wider map needs the page drawn afresh: reload it where it stands.
    if (layout(next) !== layout(R)) { location.reload(); return; }
    const following = state.frame >= R.frames.length - 1;
    R = next;
    indexMemories();
    setAttrs(scrubber, { max: Math.max(R.frames.length - 1, 0) });
    scrubber.disabled = !R.frames.length;
    if (following) state.frame = Math.max(R.frames.length - 1, 0);
    describeRun();
    // Followed, the run's next tick is drawn as a step played (a world animates its walks).
    state.ticked = following;
    render();
    state.ticked = false;
  }
  async function poll() {
    try {
      const headers = live.etag ? { "If-None-Match": live.etag } : {};
      const answer = await fetch(document.body.dataset.live, { cache: "no-store", headers });
      if (answer.status === 200) {
        live.etag = answer.headers.get("ETag");
        takeReplay(await answer.json());
        live.changed = Date.now();
      } else if (answer.status !== 304) throw new Error(`HTTP ${answer.status}`);
      live.heard = Date.now();
      if (R.run.status !== "running") {
        live.on = false;
        showLive(`live: the run ${R.run.status}; ${R.frames.length} frames`, "ended");
        return;
      }
      const quiet = Math.round((Date.now() - live.changed) / 1000);
      showLive(`live: following, ${R.frames.length} frames` + (quiet >= 5 ? `; waiting for the next tick (${quiet} s)` : ""), "following");
    } catch (error) {
      const gone = Math.round((Date.now() - live.heard) / 1000);
      showLive(`live: no answer from the server for ${gone} s (${error.message}); still trying`, "lost");
    }
    setTimeout(poll, POLL_MS);
  }

  describeRun();
  pause();
  if (live.on && !/step=/.test(location.hash)) state.frame = Math.max(R.frames.length - 1, 0);  // live: start at the newest tick
  applyHash();
  if (live.on) poll();
})();
