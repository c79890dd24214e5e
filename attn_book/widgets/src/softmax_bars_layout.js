// softmax_bars_layout.js — the vertical layout of the softmax bars. No DOM: node tests it.
//
// From the top: the scores' title, room for a label above a bar at BARS.hi, the score bars
// (BARS.lo .. BARS.hi), room for a label under a bar at BARS.lo, the weights' title, room for
// a label above a weight of 1, the weight bars. A label is at most FONT.label px tall, so no
// label reaches a title whatever the scores and the temperature.

export const BARS = { col: 64, scores: 150, weights: 110, lo: -4, hi: 6 };
export const FONT = { title: 12, label: 11 }; // px, as .abh-title and .abh-label in widgets.css
const GAP = 6; // px between a bar and its label, and between a label and a title

/**
 * Geometry of n bars: width, height, x(j) of bar j, sy(score) and back (toScore), the zero
 * line, the weights' base line, and the titles' baselines {scores, weights}.
 */
export function barGeometry(n) {
  const scoresTitle = FONT.title;
  const scoreTop = scoresTitle + GAP + FONT.label + GAP; // a label above a bar at BARS.hi
  const unit = BARS.scores / (BARS.hi - BARS.lo);
  const zeroY = scoreTop + BARS.hi * unit;
  const scoreBottom = scoreTop + BARS.scores;
  const weightsTitle = scoreBottom + GAP + FONT.label + GAP + FONT.title; // under a label at lo
  const weightBase = weightsTitle + GAP + FONT.label + GAP + BARS.weights;
  return {
    width: Math.max(4, n) * BARS.col + 40,
    height: weightBase + 8,
    x: (j) => 40 + j * BARS.col,
    sy: (s) => zeroY - s * unit,
    toScore: (Y) => (zeroY - Y) / unit,
    zeroY,
    weightBase,
    titles: { scores: scoresTitle, weights: weightsTitle },
  };
}

/** Baseline of a score's label: above a bar up from zero, below a bar down from it. */
export function scoreLabelY(g, score) {
  const s = Math.min(BARS.hi, Math.max(BARS.lo, score));
  return s >= 0 ? g.sy(s) - GAP : g.sy(s) + GAP + FONT.label;
}

/** Height of the bar of a weight w in [0, 1], and the baseline of its label above it. */
export function weightBar(g, w) {
  const h = w * BARS.weights;
  return { y: g.weightBase - h, height: Math.max(0.5, h), labelY: g.weightBase - h - GAP };
}
