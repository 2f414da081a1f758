// simulacra replay viewer: where what is drawn over the map goes, so that nothing covers
// anything else. Agents' markers move off place names and off one another; speech bubbles go
// where they cover no name, marker or other bubble. A box is [x, y, width, height] in the
// map's own units, so a layout does not depend on the window's size.
"use strict";
const MapLayout = (() => {
  function overlap(a, b) {
    const w = Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]);
    const h = Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]);
    return w > 0 && h > 0 ? w * h : 0;
  }
  const inside = (a, o) => a[0] >= o[0] && a[1] >= o[1] && a[0] + a[2] <= o[0] + o[2] && a[1] + a[3] <= o[1] + o[3];
  const grown = (b, pad) => [b[0] - pad, b[1] - pad, b[2] + 2 * pad, b[3] + 2 * pad];

  // The upright box an SVG element covers, its own transform (a slanted name's) included.
  function boxOf(node) {
    const b = node.getBBox();
    const list = node.transform && node.transform.baseVal;
    const t = list && list.numberOfItems ? list.consolidate() : null;
    if (!t) return [b.x, b.y, b.width, b.height];
    const m = t.matrix;
    const xs = [], ys = [];
    [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]].forEach(([x, y]) => {
      xs.push(m.a * x + m.c * y + m.e);
      ys.push(m.b * x + m.d * y + m.f);
    });
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys)];
  }

  // Centres to try, best first: the wanted one, then rings further and further out.
  function rings(x, y, step, count, directions) {
    const out = [[x, y]];
    for (let k = 1; k <= count; k++) {
      for (let i = 0; i < directions; i++) {
        const a = -Math.PI / 2 + (2 * Math.PI * (i + (k % 2) / 2)) / directions;
        out.push([x + k * step * Math.cos(a), y + k * step * Math.sin(a)]);
      }
    }
    return out;
  }

  // Centres for a w x h bubble beside a marker of radius r at (x, y): above it, above to
  // either side, then beside and below, each further and further out.
  function beside(x, y, r, w, h, step, count) {
    const out = [];
    const side = Math.max(w / 2 - r, 0);
    for (let k = 0; k < count; k++) {
      const d = r + step * (0.5 + k);
      out.push([x, y - d - h / 2], [x + side, y - d - h / 2], [x - side, y - d - h / 2],
        [x + d + w / 2, y], [x - d - w / 2, y],
        [x, y + d + h / 2], [x + side, y + d + h / 2], [x - side, y + d + h / 2]);
    }
    return out;
  }

  // Give each item ({ w, h, spots, within, anchor }) the first of its spots (centres, best
  // first) whose box, with `pad` around it, covers none of `taken` (nor an item placed
  // before it), stays in `view` (unless its `anchor` box, what it belongs to, is not wholly
  // in view: a marker at the view's edge is not pushed out of its building, and an item out
  // of sight is laid out all the same, for a view that pans to it) and, where it can, inside
  // its `within` box; where every spot covers something, the one that covers least. Returns
  // each item's box, in order.
  function settle(items, taken, view, pad) {
    const boxes = taken.slice();
    return items.map((item) => {
      let free = null, least = null;
      const bound = view && (!item.anchor || inside(item.anchor, view)) ? view : null;
      for (const [cx, cy] of item.spots) {
        const box = [cx - item.w / 2, cy - item.h / 2, item.w, item.h];
        if (bound && !inside(box, bound)) continue;
        const wide = grown(box, pad);
        let cost = 0;
        for (const other of boxes) cost += overlap(wide, other);
        if (cost === 0) {
          if (!item.within || inside(box, item.within)) { free = box; break; }
          if (!free) free = box;
        } else if (!least || cost < least[0]) least = [cost, box];
      }
      const box = free || (least && least[1]) || [item.spots[0][0] - item.w / 2, item.spots[0][1] - item.h / 2, item.w, item.h];
      boxes.push(box);
      return box;
    });
  }

  return { boxOf, rings, beside, settle };
})();
