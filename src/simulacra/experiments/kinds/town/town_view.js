// The town's map in the replay viewer (per_world.py's `script`, hooks viewer.js calls): on a
// tile map, its tiles under the places, each agent walking its path from step to step as the
// replay plays, an
// emoji for what it does (and the selected agent's action beside it), pan, zoom and follow.
// Agent text only enters the page through textContent and setAttribute.
"use strict";
window.SimulacraWorldView = (function () {
  const TILE_UNIT = 0.8;  // markers and text sized in tiles: rooms are five or six tiles wide
  const PX = 4;  // canvas pixels a tile
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
  let tiled = false, map = null, fit = null, follow = false;
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

  function panAndZoom(sv) {
    fit = box();
    map.addEventListener("wheel", (event) => {
      event.preventDefault();
      const p = toMap(event);
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
      setBox(x + drag.x - p.x, y + drag.y - p.y, w, h);
    });
    const bar = document.createElement("div");
    bar.id = "map-tools";
    bar.style.cssText = "position:absolute;z-index:2;margin:6px;display:flex;gap:4px;align-items:center;background:#fffc;padding:2px 6px;border-radius:6px;font-size:12px";
    const button = (label, title, act) => {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = label; b.title = title;
      b.addEventListener("click", act);
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
    map.parentNode.style.position = "relative";
    map.parentNode.insertBefore(bar, map);
    void sv;
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
    map.querySelectorAll("#layer-places .place > rect").forEach((rect) => rect.setAttribute("fill-opacity", "0"));
    (R.backdrop.objects || []).forEach((thing) => {
      const [x, y] = thing.at;
      const mark = sv("rect", { x, y, width: 1, height: 1, class: "thing", fill: "transparent" });
      mark.append(sv("title", {}, `${thing.name} (${thing.place})`));
      layers.places.append(mark);
    });
  }

  function decorate(ctx) {
    const { R, frame, where, dots, sv, unit } = ctx;
    Object.entries(dots).forEach(([id, dot]) => {
      const pos = frame && frame.agents[id];
      let mark = dot.g.querySelector("text.emoji"), doing = dot.g.querySelector("text.doing");
      if (!mark) {
        // Inline styles: the viewer's CSS paints a marker's text white, for its initials.
        mark = sv("text", { class: "emoji", x: unit * 1.7, y: -unit * 1.5, "font-size": unit * 2, style: "fill:#222" });
        doing = sv("text", { class: "doing", x: unit * 3, y: unit * 0.7, "font-size": unit * 1.6, style: "fill:#222;font-weight:600;paint-order:stroke;stroke:#fff;stroke-width:3px;vector-effect:non-scaling-stroke" });
        dot.g.append(mark, doing);
      }
      const action = pos ? pos.action || "" : "";
      mark.textContent = where[id] ? emojiOf(action) : "";
      // The selected agent's action is spelled out; everyone's is in its marker's tooltip.
      doing.textContent = where[id] && id === ctx.agent ? `${emojiOf(action)} ${action.slice(0, 40)}` : "";
    });
    void R;
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

  function centre(ctx) {
    if (!follow || !ctx.agent || !ctx.where[ctx.agent]) return;
    const [x, y] = ctx.where[ctx.agent], [, , w, h] = box();
    const [fw, fh] = [fit[2] / 3, fit[3] / 3];
    const [vw, vh] = w > fw ? [fw, fh] : [w, h];
    setBox(x - vw / 2, y - vh / 2, vw, vh);
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
      panAndZoom(ctx.sv);
    },
    frame(ctx) {
      shown = { R: ctx.R, index: ctx.index, agent: ctx.agent };
      if (!map) return;
      centre(ctx);
      decorate(ctx);
      if (tiled) walk(ctx);
    },
  };
})();
