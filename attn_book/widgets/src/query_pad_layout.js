// query_pad_layout.js — where the query pad draws things: the plane's geometry, the handles'
// sizes and the placement of the vector labels. No DOM here, so node can test it.

/** The plane: PAD.size px square, showing [-PAD.range, PAD.range]² inside a margin. */
export const PAD = { size: 300, range: 2.5, margin: 16 };

/**
 * Handle sizes (px). The query is a ring whose inner edge clears a key's dot and a value's
 * square, so a key or value under q stays visible; q is on top and grabbed anywhere inside
 * its ring (a reader drags q by its centre), and the handle under it is reached with Tab.
 */
export const HANDLE = { queryRing: 12, queryStroke: 4, keyDot: 6, valueSquare: 11 };

/** Pixel maps of the plane: px(x), py(y) and back, toData(X, Y) -> [x, y]. */
export function padGeometry() {
  const half = PAD.size / 2;
  const unit = (half - PAD.margin) / PAD.range;
  return {
    unit,
    px: (x) => half + x * unit,
    py: (y) => half - y * unit,
    toData: (X, Y) => [(X - half) / unit, (half - Y) / unit],
  };
}

/** The points of an arrow head at (x2, y2) pointing away from (x1, y1). */
export function arrowHead(x1, y1, x2, y2, size = 9) {
  const a = Math.atan2(y2 - y1, x2 - x1);
  const p = (da) => `${x2 - size * Math.cos(a + da)},${y2 - size * Math.sin(a + da)}`;
  return `${x2},${y2} ${p(0.4)} ${p(-0.4)}`;
}

// Label placement: each label goes beyond its point, away from the origin, LABEL.gap px plus
// the label's half-extent that way (wider sideways than up or down: LABEL.dx, LABEL.dy).
// A spot is taken when within LABEL.w × LABEL.h of a placed label, within LABEL.point px of
// another vector's handle or tip, within LABEL.line px of an arrow's shaft, or off the plane:
// then turn the direction by ±45°, ±90°, ..., then try again LABEL.far px out.
const LABEL = { gap: 10, far: 24, dx: 7, dy: 4, w: 20, h: 16, point: 22, line: 7 };

function toSegment([x, y], [ax, ay], [bx, by]) {
  const [dx, dy] = [bx - ax, by - ay];
  const len2 = dx * dx + dy * dy;
  const t = len2 ? Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / len2)) : 0;
  return Math.hypot(x - ax - t * dx, y - ay - t * dy);
}

function isFree(p, owner, placed, { points, origin, shafts }) {
  const inside = (v) => v > LABEL.w / 2 && v < PAD.size - LABEL.w / 2;
  const near = ([a, b], r) => Math.hypot(a - p[0], b - p[1]) < r;
  return (
    inside(p[0]) &&
    inside(p[1]) &&
    !placed.some(([a, b]) => Math.abs(a - p[0]) < LABEL.w && Math.abs(b - p[1]) < LABEL.h) &&
    !points.some(({ at, id }) => id !== owner && near(at, LABEL.point)) &&
    !shafts.some((tip) => toSegment(p, origin, tip) < LABEL.line)
  );
}

function labelSpot({ tip, id, gap = LABEL.gap }, placed, obstacles) {
  const { origin } = obstacles;
  const far = Math.hypot(tip[0] - origin[0], tip[1] - origin[1]) > 4;
  const base = far ? Math.atan2(tip[1] - origin[1], tip[0] - origin[0]) : -Math.PI / 4;
  const spot = (r, da) => {
    const [c, s] = [Math.cos(base + da), Math.sin(base + da)];
    const d = r + LABEL.dx * Math.abs(c) + LABEL.dy * Math.abs(s);
    return [tip[0] + d * c, tip[1] + d * s];
  };
  for (const r of [gap, LABEL.far]) {
    for (const k of [0, 1, -1, 2, -2, 3, -3, 4]) {
      const p = spot(r, (k * Math.PI) / 4);
      if (isFree(p, id, placed, obstacles)) return p;
    }
  }
  return spot(gap, 0);
}

/**
 * Place labels [{tip, id, gap?}] in order, each clear of those before it and of the obstacles:
 * {origin, points: [{at, id}] handle centres and arrow tips, shafts: arrow tips (from origin)}.
 * A label ignores the point with its own id (the handle it names).
 * @returns {number[][]} one [x, y] per label
 */
export function placeLabels(labels, obstacles) {
  const placed = [];
  for (const label of labels) placed.push(labelSpot(label, placed, obstacles));
  return placed;
}
