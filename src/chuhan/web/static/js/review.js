// @ts-check
// The game review's pictures: the evaluation graph (the first mover's chance of winning
// after each ply, as an SVG), the marks on it, and each side's summary. The judgments
// themselves come from the server (chuhan.web.analysis: thresholds and chances).

import { $, clear, make, show } from "./dom.js";
import { sideName, t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 120;
/** @type {Record<string, string>} each mark's sign, as in a PGN */
export const MARK_GLYPHS = { inaccuracy: "?!", mistake: "?", blunder: "??" };

/** @typedef {import("./protocol.js").Evaluation} Evaluation */
/** @typedef {import("./protocol.js").ReviewDone} ReviewDone */

/** A new SVG element with these attributes, put in `parent` when given.
 * @param {string} name @param {Record<string, unknown>} attrs @param {Element} [parent]
 * @returns {SVGElement} */
function svg(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

/** The first mover's chance of winning in an evaluated position (the server's curve:
 * 1 / (1 + 10^(-cp/400)); mates and the rules' endings are certain).
 * @param {Evaluation} evaluation @returns {number} */
export function firstChance(evaluation) {
  if (evaluation.over) {
    const winner = evaluation.over.winner;
    return winner ? (winner === "first" ? 1 : 0) : 0.5;
  }
  const line = evaluation.line;
  if (!line) return 0.5;
  if (line.first_mate !== null && line.first_mate !== undefined) return line.first_mate > 0 ? 1 : 0;
  const cp = Math.max(-4000, Math.min(4000, line.first_cp || 0));
  return 1 / (1 + 10 ** (-cp / 400));
}

/**
 * Draw the graph of `evaluations` (one per ply, from 0) out of `plies` into #review-graph;
 * `judged` (the server's marks, or null while the review runs), `currentPly` the ply shown,
 * `onPick(ply)` when the graph is clicked.
 * @param {string} game
 * @param {Evaluation[]} evaluations
 * @param {number} plies
 * @param {ReviewDone | null} judged
 * @param {number | null} currentPly
 * @param {(ply: number) => void} onPick
 */
export function renderGraph(game, evaluations, plies, judged, currentPly, onPick) {
  const box = $("review-graph");
  clear(box);
  if (!evaluations.length) return;
  const root = svg("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "graph", role: "img",
    "aria-label": t("reviewGraph"), preserveAspectRatio: "none",
  }, box);
  const x = (/** @type {number} */ ply) => (plies ? (ply / plies) * WIDTH : 0);
  const y = (/** @type {number} */ chance) => HEIGHT - chance * HEIGHT;
  svg("rect", { class: "graph-second", x: 0, y: 0, width: WIDTH, height: HEIGHT }, root);
  const points = evaluations.map((e) => `${x(e.ply).toFixed(1)},${y(firstChance(e)).toFixed(1)}`);
  const last = evaluations[evaluations.length - 1];
  svg("polygon", {
    class: `graph-first graph-${game}`,
    points: `0,${HEIGHT} ${points.join(" ")} ${x(last.ply).toFixed(1)},${HEIGHT}`,
  }, root);
  svg("polyline", { class: "graph-line", points: points.join(" ") }, root);
  svg("line", { class: "graph-mid", x1: 0, y1: HEIGHT / 2, x2: WIDTH, y2: HEIGHT / 2 }, root);
  if (currentPly !== null && currentPly <= plies) {
    svg("line", {
      class: "graph-now", x1: x(currentPly), y1: 0, x2: x(currentPly), y2: HEIGHT,
    }, root);
  }
  if (judged) {
    for (const move of judged.moves) {
      if (!move.mark || !evaluations[move.ply]) continue;
      const dot = svg("circle", {
        class: `graph-mark mark-${move.mark}`, cx: x(move.ply),
        cy: y(firstChance(evaluations[move.ply])), r: 5, "data-ply": move.ply,
      }, root);
      const title = svg("title", {}, dot);
      title.textContent = `${t(move.mark)} (${move.ply})`;
    }
  }
  root.addEventListener("click", (event) => {
    const rect = root.getBoundingClientRect();
    const ply = Math.round(((event.clientX - rect.left) / rect.width) * plies);
    onPick(Math.max(0, Math.min(plies, ply)));
  });
}

/** Each side's marks and average loss, as a small table: a row for each kind of mark, a
 * column for each side (a side's name is short, a kind's name may be long: the card is
 * narrow). A cell is `.summary-{kind}[data-side=first|second]`.
 * @param {string} game @param {ReviewDone | null} judged */
export function renderSummary(game, judged) {
  const table = $("review-summary");
  clear(table);
  show(table, Boolean(judged));
  if (!judged) return;
  const head = make("tr");
  head.appendChild(make("th", null, ""));
  for (const side of ["first", "second"]) {
    head.appendChild(make("th", `summary-${side}`, sideName(game, side === "first")));
  }
  table.appendChild(head);
  for (const key of ["inaccuracy", "mistake", "blunder", "acpl"]) {
    const row = make("tr", `summary-row-${key}`);
    row.appendChild(make("th", null, key === "acpl" ? t("averageLoss") : t(`${key}Plural`)));
    for (const side of /** @type {import("./protocol.js").Side[]} */ (["first", "second"])) {
      const cell = make("td", `summary-${key}`, judged.summary[side][key]);
      cell.dataset.side = side;
      row.appendChild(cell);
    }
    table.appendChild(row);
  }
}
