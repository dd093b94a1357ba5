// @ts-check
// The janggi setup choices as small pictures: the chooser's back rank as they sit, from
// their left (chariot, the two arranged pieces, guard, the empty middle, guard, the other
// two, chariot), drawn on octagonal pieces in the player's janggi piece set (characters,
// letters or pictures).

import { pieceCharacter, pieceLetter } from "./pieces.js";
import { drawPicture } from "./piece-pictures.js";
import { t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const CELL = 40; // one file's width in the picture's units
/** @typedef {import("./pieces.js").PieceKind} PieceKind */

/** @type {Record<string, PieceKind>} */
const ARRANGED = { 마: "horse", 상: "elephant" };
/** @type {Partial<Record<PieceKind, number>>} */
const RADIUS = { chariot: 17, horse: 17, elephant: 17, guard: 13 };

/**
 * @param {string} name
 * @param {Record<string, string | number>} attrs
 * @param {Element} parent
 * @returns {Element}
 */
function el(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  parent.appendChild(node);
  return node;
}

/** @param {number} radius */
function octagon(radius) {
  const points = [];
  for (let i = 0; i < 8; i++) {
    const angle = Math.PI / 8 + (i * Math.PI) / 4;
    points.push(`${(radius * Math.cos(angle)).toFixed(1)},${(radius * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

/** The nine files of the back rank, from the chooser's left: a piece kind, or null for the
 * empty middle (the general stands one rank up).
 * @param {string} arrangement
 * @returns {(PieceKind | null)[]} */
export function backRank(arrangement) {
  const [a, b, c, d] = [...arrangement].map((ch) => ARRANGED[ch]);
  return ["chariot", a, b, "guard", null, "guard", c, d, "chariot"];
}

/** The picture of an arrangement (`"마상상마"`) for the chooser (`first`: Cho), in the
 * piece set `pieceSet` ("chinese", "letters" or "pictures").
 * @param {string} arrangement
 * @param {boolean} first
 * @param {string} [pieceSet]
 * @returns {SVGSVGElement} */
export function backRankPicture(arrangement, first, pieceSet = "chinese") {
  const svg = /** @type {SVGSVGElement} */ (document.createElementNS(SVG_NS, "svg"));
  svg.setAttribute("class", "rank-picture");
  svg.setAttribute("viewBox", `0 0 ${9 * CELL} ${CELL}`);
  svg.setAttribute("aria-hidden", "true");
  el("line", { class: "rank-line", x1: CELL / 2, y1: CELL / 2, x2: 8.5 * CELL, y2: CELL / 2 }, svg);
  const side = first ? "cho" : "han";
  backRank(arrangement).forEach((kind, file) => {
    const x = (file + 0.5) * CELL;
    if (!kind) return;
    const arranged = kind === "horse" || kind === "elephant";
    const g = el("g", {
      class: `rank-piece piece-${side} piece-${kind}${arranged ? " arranged" : ""}`,
      transform: `translate(${x} ${CELL / 2})`,
      "data-kind": kind,
    }, svg);
    const radius = RADIUS[kind] || 17;
    el("polygon", { class: "piece-body", points: octagon(radius) }, g);
    if (pieceSet === "pictures") {
      drawPicture(g, kind, radius);
      return;
    }
    const letters = pieceSet === "letters";
    const label = el("text", {
      class: letters ? "piece-label piece-letter" : "piece-label",
      "font-size": Math.round(radius * (letters ? 1.05 : 1.2)),
    }, g);
    label.textContent = letters ? pieceLetter(kind) : pieceCharacter("janggi", kind, first);
  });
  return svg;
}

/** The arrangement in words, from the chooser's left ("horse, elephant, elephant, horse").
 * @param {string} arrangement */
export function arrangementWords(arrangement) {
  return [...arrangement].map((ch) => t(ch === "마" ? "setupHorse" : "setupElephant")).join(", ");
}
