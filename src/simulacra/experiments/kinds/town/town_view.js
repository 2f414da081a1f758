// The town's map in the replay viewer (per_world.py's `script`, hooks viewer.js calls): on a
// tile map, its tiles under the places, each agent walking its path from step to step as the
// replay plays, an
// emoji for what it does (and the selected agent's action beside it), pan, zoom and follow.
// Agent text only enters the page through textContent and setAttribute.
"use strict";
window.SimulacraWorldView = (function () {
  const TILE_UNIT = 0.8;  // markers and text sized in tiles: rooms are five or six tiles wide
  const PX = 4;  // canvas pixels a tile
  // The least screen pixels a tile opens at: an agent's initials about 9 px high, a place's
  // name 14 or more. The whole town fits 863 px at 3.8 a tile, and 479 px at 2.5, where
  // names were 5 px; below this the map opens closer, on the selected agent or the agents'
  // middle, and "fit" still shows it all.
  const MIN_TILE_PX = 6;
  const EMOJI = [
    [/sleep|asleep|\bbed\b|nap/, "\u{1F634}"], [/walking|heading/, "\u{1F6B6}"],
    [/talk|chat|convers/, "\u{1F4AC}"], [/coffee|espresso|brew/, "\u2615"],
    [/party|celebrat|valentine/, "\u{1F389}"], [/breakfast|lunch|dinner|eat|meal|cook/, "\u{1F37D}"],
    [/paint|draw|easel|pottery|kiln/, "\u{1F3A8}"], [/music|guitar|piano|sing|song/, "\u{1F3B5}"],
    [/read|study|book|librar|lecture|class|research|write/, "\u{1F4DA}"],
    [/garden|plant|water|flower|seed/, "\u{1F331}"], [/shower|wash|getting ready|dress/, "\u{1F6BF}"],
    [/work|shift|serve|counter|register|shop|stock|customer/, "\u{1F4BC}"],
  ];
  const emojiOf = (action) => {
    const text = (action || "").toLowerCase();
    const hit = EMOJI.find(([pattern]) => pattern.test(text));
    return hit ? hit[1] : "\u{1F642}";
  };
  let tiled = false, map = null, fit = null, follow = false, opening = true;
  // The map's size (px) the opening view was made for, and whether the reader has moved the
  // view since (dragged, zoomed or chosen "fit"): a resize then leaves their view alone.
  let openedFor = null, moved = false;
  // The town itself: its tiles on a tile map (the world's bounds and "fit" add a margin and
  // room for speech above), else the whole view.
  let town = null;
  const last = {};  // each agent's drawn point, by frame: where a walk starts from
  let lastIndex = -1, animation = null;
  let shown = { R: null, index: 0, agent: null };  // the frame drawn last, for the panel

  function box() { const v = map.viewBox.baseVal; return [v.x, v.y, v.width, v.height]; }
  function setBox(x, y, w, h) { map.setAttribute("viewBox", `${x} ${y} ${w} ${h}`); }
  function zoom(factor, cx, cy) {
    const [x, y, w, h] = box();
    const nw = Math.min(fit[2], Math.max(fit[2] / 12, w * factor)), k = nw / w;
    setBox(cx - (cx - x) * k, cy - (cy - y) * k, w * k, h * k);
  }
  function toMap(event) {
    const point = map.createSVGPoint();
    point.x = event.clientX; point.y = event.clientY;
    return point.matrixTransform(map.getScreenCTM().inverse());
  }

  function panAndZoom(redraw) {
    fit = box();
    town = town || fit;
    map.addEventListener("wheel", (event) => {
      event.preventDefault();
      const p = toMap(event);
      moved = true;
      zoom(event.deltaY > 0 ? 1.2 : 1 / 1.2, p.x, p.y);
    }, { passive: false });
    let drag = null;
    map.addEventListener("pointerdown", (event) => {
      if (event.target.closest && event.target.closest(".agent")) return;  // a click selects
      drag = toMap(event);
    });
    window.addEventListener("pointerup", () => { drag = null; });
    map.addEventListener("pointermove", (event) => {
      if (!drag) return;
      const p = toMap(event), [x, y, w, h] = box();
      if (p.x === drag.x && p.y === drag.y) return;
      moved = true;
      setBox(x + drag.x - p.x, y + drag.y - p.y, w, h);
    });
    // The opening view is made for the map's box: made again when the box changes size (the
    // window resized, the live view's header grown a line as its status arrived), until the
    // reader moves the view; following, the view on the agent is made again for the new box.
    new ResizeObserver(() => {
      const { width, height } = map.getBoundingClientRect();
      if (!openedFor) return;
      if (!moved && (width !== openedFor[0] || height !== openedFor[1])) opening = true;
      if (opening || follow) redraw();
    }).observe(map);
    // The tools stand in a strip of their own above the map (viewer.css), over no name.
    const bar = document.createElement("div");
    bar.id = "map-tools";
    const button = (label, title, act) => {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = label; b.title = title;
      b.addEventListener("click", () => { moved = true; act(); });
      bar.append(b);
      return b;
    };
    button("+", "zoom in", () => { const [x, y, w, h] = box(); zoom(1 / 1.5, x + w / 2, y + h / 2); });
    button("\u2212", "zoom out", () => { const [x, y, w, h] = box(); zoom(1.5, x + w / 2, y + h / 2); });
    button("fit", "the whole town", () => { follow = false; followBox.checked = false; setBox(...fit); });
    const label = document.createElement("label");
    const followBox = document.createElement("input");
    followBox.type = "checkbox"; followBox.id = "follow";
    followBox.addEventListener("change", () => { follow = followBox.checked; });
    label.append(followBox, document.createTextNode(" follow the selected agent"));
    bar.append(label);
    map.parentNode.insertBefore(bar, map);
  }

  function drawTiles(R, layers, sv) {
    const { floor, palette } = R.backdrop;
    const rows = floor.length, columns = floor[0].length;
    const canvas = document.createElement("canvas");
    canvas.width = columns * PX; canvas.height = rows * PX;
    const paint = canvas.getContext("2d");
    const chars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    floor.forEach((row, y) => {
      for (let x = 0; x < row.length; x++) {
        const i = chars.indexOf(row[x]);
        if (i < 0 || !palette[i]) continue;
        paint.fillStyle = palette[i];
        paint.fillRect(x * PX, y * PX, PX, PX);
      }
    });
    const image = sv("image", { x: 0, y: 0, width: columns, height: rows, preserveAspectRatio: "none", class: "tiles", "image-rendering": "pixelated" });
    image.setAttribute("href", canvas.toDataURL("image/png"));
    layers.places.insertBefore(image, layers.places.firstChild);
    town = [0, 0, columns, rows];
    map.querySelectorAll("#layer-places .place > rect").forEach((rect) => rect.setAttribute("fill-opacity", "0"));
    (R.backdrop.objects || []).forEach((thing) => {
      const [x, y] = thing.at;
      const mark = sv("rect", { x, y, width: 1, height: 1, class: "thing", fill: "transparent" });
      mark.append(sv("title", {}, `${thing.name} (${thing.place})`));
      layers.places.append(mark);
    });
  }

  // A view of w x h centred on (x, y), kept within the town's tiles (within the margin round
  // them, it showed a strip of blank beside the town); wider than the town, centred on it.
  function within(x, y, w, h) {
    const keep = (v, lo, size, whole) => size >= whole ? lo + (whole - size) / 2 : Math.min(Math.max(v - size / 2, lo), lo + whole - size);
    setBox(keep(x, town[0], w, town[2]), keep(y, town[1], h, town[3]), w, h);
  }

  // The view the map opens in: the whole town where a tile gets MIN_TILE_PX, else a closer
  // view at that scale, as wide and tall as the map's box, on the selected agent or the
  // agents' middle, within the town's tiles.
  function open(ctx) {
    opening = false;
    const rect = map.getBoundingClientRect();
    openedFor = [rect.width, rect.height];
    if (!rect.width) return;
    if (Math.min(rect.width / fit[2], rect.height / fit[3]) >= MIN_TILE_PX) { setBox(...fit); return; }
    const w = Math.min(fit[2], rect.width / MIN_TILE_PX), h = Math.min(fit[3], rect.height / MIN_TILE_PX);
    const points = ctx.agent && ctx.where[ctx.agent] ? [ctx.where[ctx.agent]] : Object.values(ctx.where);
    const mid = (i, whole) => points.length ? points.reduce((sum, p) => sum + p[i], 0) / points.length : whole;
    within(mid(0, town[0] + town[2] / 2), mid(1, town[1] + town[3] / 2), w, h);
  }

  // Where a marker's labels go: the first of their spots round the marker whose box covers
  // no place's name, no marker and no label placed before. Every emoji is placed first, the
  // selected agent's too, so that selecting moves no other label; an emoji with no free spot
  // is left out (it is in the marker's tooltip). The selected agent's action then takes its
  // emoji's place, at a spot clear of names and markers that covers least, and leaves out any
  // emoji it still covers (see spell).
  let nameBoxes = null;
  function placeLabels(ctx, marks, selected) {
    const { where, dots, unit } = ctx;
    nameBoxes = nameBoxes || [...map.querySelectorAll("text.place-name, text.place-kind")].map(MapLayout.boxOf);
    const taken = nameBoxes.concat(Object.values(where).map(([x, y, r]) => [x - r, y - r, 2 * r, 2 * r]));
    const fixed = taken.slice();  // the names and markers, which no action may cover
    const cover = (a, o) => {
      const w = Math.min(a[0] + a[2], o[0] + o[2]) - Math.max(a[0], o[0]);
      const h = Math.min(a[1] + a[3], o[1] + o[3]) - Math.max(a[1], o[1]);
      return w > 0 && h > 0 ? w * h : 0;
    };
    const cost = (box, others) => others.reduce((sum, o) => sum + cover(box, o), 0);
    const r = unit * 2.4, gap = unit * 0.3;
    // The boxes of a label's spots round its marker, in map units, as [spot, box].
    const spotsOf = (id, node) => {
      // Its box as drawn at x = y = 0; attributes change only where the spot does, as a
      // repaint moves a marker's antialiased edge by a shade.
      const at = node.getBBox(), [mx, my] = where[id];
      const b = { x: at.x - Number(node.getAttribute("x") || 0), y: at.y - Number(node.getAttribute("y") || 0), width: at.width, height: at.height };
      const scale = Number((dots[id].g.getAttribute("transform").match(/scale\(([^)]+)\)/) || [0, "1"])[1]);
      // The box's top left, in the marker's own units: beside it, then above and below.
      const spots = [[r + gap, -b.height / 2], [-r - gap - b.width, -b.height / 2], [r * 0.6, -r - b.height], [-r * 0.6 - b.width, -r - b.height],
        [-b.width / 2, -r - gap - b.height], [-b.width / 2, r + gap], [r * 0.6, r * 0.6], [-r * 0.6 - b.width, r * 0.6]];
      return spots.map(([lx, ly]) => [[lx - b.x, ly - b.y], [mx + scale * lx, my + scale * ly, scale * b.width, scale * b.height]]);
    };
    // The first of the spots that covers least of `others`, or none where every one covers
    // something of `clear`; the label is moved there.
    const place = (id, node, others, clear = []) => {
      const spots = spotsOf(id, node).filter(([, box]) => cost(box, clear) === 0);
      if (!spots.length) return null;
      const [[x, y], box] = spots.reduce((best, spot) => (cost(spot[1], others) < cost(best[1], others) ? spot : best));
      setXY(node, x, y);
      return [box, cost(box, others) > 0];
    };
    // The selected agent's action at a spot clear of every name and marker (the emoji it
    // covers are left out), cut after its last word that fits, with an ellipsis, where the
    // whole covers one at every spot, and left out where even its first word does (it is in
    // the marker's tooltip and the agent's panel). A longer label holds a shorter one at each
    // spot, so the longest that fits is found by halving.
    const spell = (id, doing, [emoji, action], others) => {
      const show = (n) => {
        doing.textContent = `${emoji} ${n < action.length ? action.slice(0, n) + "\u2026" : action}`;
        return place(id, doing, others, fixed);
      };
      const found = show(action.length);
      if (found) return found[0];
      const cuts = [...action.matchAll(/\S+/g)].map((m) => m.index + m[0].length).slice(0, -1);
      let lo = -1, hi = cuts.length;  // the last cut that fits lies in [lo, hi)
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (show(cuts[mid])) lo = mid; else hi = mid;
      }
      const cut = lo >= 0 && show(cuts[lo]);
      if (!cut) doing.textContent = "";
      return cut ? cut[0] : null;
    };
    const placed = {};
    const shown = {};
    marks.forEach(([id, node]) => {
      if (!node.textContent || !where[id]) return;
      const [box, covers] = place(id, node, taken);
      shown[id] = !covers;
      if (covers) return;
      placed[id] = box;
      taken.push(box);
    });
    const labels = [];
    if (selected) {
      const [id, doing, text] = selected;
      const spot = spell(id, doing, text, taken.filter((o) => o !== placed[id]));
      if (spot) {
        shown[id] = false;
        Object.entries(placed).forEach(([other, label]) => { if (cover(spot, label) > 0) shown[other] = false; });
        labels.push(spot);
      }
    }
    marks.forEach(([id, node]) => {
      const hidden = shown[id] === false;
      if (hidden !== (node.getAttribute("visibility") === "hidden")) {
        if (hidden) node.setAttribute("visibility", "hidden"); else node.removeAttribute("visibility");
      }
      if (!hidden && placed[id]) labels.push(placed[id]);
    });
    return labels;
  }
  const setXY = (node, x, y) => {
    if (Math.abs(Number(node.getAttribute("x")) - x) > 1e-3) node.setAttribute("x", x);
    if (Math.abs(Number(node.getAttribute("y")) - y) > 1e-3) node.setAttribute("y", y);
  };

  function decorate(ctx) {
    const { R, frame, where, dots, sv, unit } = ctx;
    const marks = [];
    let selected = null;
    Object.entries(dots).forEach(([id, dot]) => {
      const pos = frame && frame.agents[id];
      let mark = dot.g.querySelector("text.emoji"), doing = dot.g.querySelector("text.doing");
      if (!mark) {
        // Inline styles: the viewer's CSS paints a marker's text white, for its initials.
        mark = sv("text", { class: "emoji", "font-size": unit * 2, style: "fill:#222" });
        doing = sv("text", { class: "doing", "font-size": unit * 1.9, style: "fill:#222;font-weight:600;paint-order:stroke;stroke:#fff;stroke-width:3px;vector-effect:non-scaling-stroke" });
        dot.g.append(mark, doing);
      }
      const action = pos ? pos.action || "" : "";
      mark.textContent = where[id] ? emojiOf(action) : "";
      // The selected agent's action is spelled out, after its emoji, in its emoji's place
      // (placeLabels writes it); everyone's is in its marker's tooltip.
      doing.textContent = "";
      marks.push([id, mark]);
      if (where[id] && id === ctx.agent) selected = [id, doing, [emojiOf(action), action.slice(0, 40)]];
    });
    void R;
    return placeLabels(ctx, marks, selected);
  }

  function walk(ctx) {
    const { frame, index, where, dots, unit } = ctx;
    if (animation) { cancelAnimationFrame(animation); animation = null; }
    const walks = (frame && frame.extras && frame.extras.walks) || [];
    const tracks = {};
    if (ctx.playing && index === lastIndex + 1) {  // a jump or a single step lands at once
      walks.forEach(({ agent: id, tiles }) => {
        if (!where[id] || !last[id] || !Array.isArray(tiles) || !tiles.length) return;
        const points = [last[id], ...tiles.map(([x, y]) => [x + 0.5, y + 0.5]), where[id].slice(0, 2)];
        tracks[id] = points;
      });
    }
    lastIndex = index;
    Object.entries(where).forEach(([id, [x, y]]) => { last[id] = [x, y]; });
    const ids = Object.keys(tracks);
    if (!ids.length) return;
    const lasting = Math.min(1500, 900 / Math.max(ctx.speed || 1, 1));
    const began = performance.now();
    const placeAt = (id, share) => {
      const points = tracks[id], legs = points.length - 1;
      const at = Math.min(legs, share * legs), i = Math.min(legs - 1, Math.floor(at)), f = at - i;
      const [x0, y0] = points[i], [x1, y1] = points[i + 1];
      const g = dots[id].g, scale = (g.getAttribute("transform").match(/scale\(([^)]+)\)/) || [0, "1"])[1];
      g.setAttribute("transform", `translate(${x0 + (x1 - x0) * f} ${y0 + (y1 - y0) * f}) scale(${scale})`);
      g.setAttribute("data-walking", share < 1 ? "1" : "0");
      dots[id].leader.setAttribute("visibility", "hidden");
    };
    const step = (now) => {
      const share = Math.min(1, Math.max(0, (now - began) / lasting));
      ids.forEach((id) => placeAt(id, share));
      animation = share < 1 ? requestAnimationFrame(step) : null;
    };
    ids.forEach((id) => placeAt(id, 0));
    animation = requestAnimationFrame(step);
    void unit;
  }

  // Following, the view closes in on the selected agent (a third of "fit" across, or closer
  // where the reader zoomed in), shaped as the map's box, so that the window shows the view
  // and no more, and kept within the town's tiles: centred on an agent at the town's edge,
  // half the window was blank.
  function centre(ctx) {
    if (!follow || !ctx.agent || !ctx.where[ctx.agent]) return;
    const rect = map.getBoundingClientRect();
    if (!rect.width || !rect.height) return;
    const [, , w, h] = box(), scale = (vw, vh) => Math.min(rect.width / vw, rect.height / vh);
    const px = Math.max(scale(w, h), scale(fit[2] / 3, fit[3] / 3));  // screen px a map unit
    const [x, y] = ctx.where[ctx.agent];
    within(x, y, Math.min(fit[2], rect.width / px), Math.min(fit[3], rect.height / px));
  }

  // The selected agent's known places, areas and objects (the world's `learned`, and the
  // places it was told of, up to the frame shown), added to its panel after the viewer draws it.
  function knownTree() {
    const { R, index, agent } = shown;
    const panel = document.getElementById("panel");
    if (!R || !agent || !panel || panel.querySelector("[data-section=known]")) return;
    const tree = {};
    R.frames.slice(0, index + 1).forEach((f) => (Array.isArray(f.extras.learned) ? f.extras.learned : []).forEach((e) => {
      if (!e || e.agent !== agent) return;
      const areas = (tree[e.place] = tree[e.place] || {});
      areas[e.area] = (areas[e.area] || []).concat(Array.isArray(e.objects) ? e.objects : []);
    }));
    const track = R.agents && R.agents[agent];
    const told = (track && Array.isArray(track.notes) ? track.notes : []).filter((n) => n.kind === "told of a place" && n.frame <= index);
    told.forEach((n) => { tree[n.text] = tree[n.text] || {}; });
    const places = Object.keys(tree).sort();
    if (!places.length) return;
    const node = (tag, text, cls) => { const n = document.createElement(tag); if (text) n.textContent = text; if (cls) n.className = cls; return n; };
    const section = node("details", null, "section");
    section.dataset.section = "known";
    section.open = true;
    const summary = node("summary", "Known places");
    summary.append(node("span", ` ${places.length}`, "count"));
    const list = node("ul", null, "known-tree");
    places.forEach((place) => {
      const item = node("li", place + (Object.keys(tree[place]).length ? "" : " (told of it)"));
      const areas = node("ul");
      Object.keys(tree[place]).sort().forEach((area) => {
        const things = tree[place][area];
        areas.append(node("li", things.length ? `${area}: ${things.join(", ")}` : area));
      });
      item.append(areas);
      list.append(item);
    });
    section.append(summary, list);
    panel.append(section);
  }
  document.addEventListener("viewer-step", knownTree);

  return {
    unit(R) {
      tiled = !!(R.backdrop && Array.isArray(R.backdrop.floor) && R.backdrop.floor.length);
      return tiled ? TILE_UNIT : Math.max(R.bounds[2], R.bounds[3]) / 100;
    },
    backdrop(ctx) {
      map = ctx.map;
      if (tiled) drawTiles(ctx.R, ctx.layers, ctx.sv);
      panAndZoom(ctx.redraw);
    },
    frame(ctx) {
      shown = { R: ctx.R, index: ctx.index, agent: ctx.agent };
      if (!map) return;
      if (opening) open(ctx);
      centre(ctx);
      const labels = decorate(ctx);
      if (tiled) walk(ctx);
      return labels;  // for the bubbles to leave clear
    },
  };
})();
