// The janggi setup choices as small pictures: the chooser's back rank as they sit, from
// their left (chariot, the two arranged pieces, guard, the empty middle, guard, the other
// two, chariot), drawn on octagonal pieces in the player's janggi piece set (characters,
// letters or pictures).

import { pieceCharacter, pieceLetter } from "./board.js";
import { drawPicture } from "./piece-pictures.js";
import { t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const CELL = 40; // one file's width in the picture's units
const ARRANGED = { 마: "horse", 상: "elephant" };
const RADIUS = { rook: 17, horse: 17, elephant: 17, advisor: 13 };

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  parent.appendChild(node);
  return node;
}

function octagon(radius) {
  const points = [];
  for (let i = 0; i < 8; i++) {
    const angle = Math.PI / 8 + (i * Math.PI) / 4;
    points.push(`${(radius * Math.cos(angle)).toFixed(1)},${(radius * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

/** The nine files of the back rank, from the chooser's left: a piece kind, or null for the
 * empty middle (the general stands one rank up). */
export function backRank(arrangement) {
  const [a, b, c, d] = [...arrangement].map((ch) => ARRANGED[ch]);
  return ["rook", a, b, "advisor", null, "advisor", c, d, "rook"];
}

/** The picture of an arrangement (`"마상상마"`) for the chooser (`first`: Cho), in the
 * piece set `pieceSet` ("chinese", "letters" or "pictures"). */
export function backRankPicture(arrangement, first, pieceSet = "chinese") {
  const svg = document.createElementNS(SVG_NS, "svg");
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
    el("polygon", { class: "piece-body", points: octagon(RADIUS[kind]) }, g);
    if (pieceSet === "pictures") {
      drawPicture(g, kind, RADIUS[kind]);
      return;
    }
    const letters = pieceSet === "letters";
    const label = el("text", {
      class: letters ? "piece-label piece-letter" : "piece-label",
      "font-size": Math.round(RADIUS[kind] * (letters ? 1.05 : 1.2)),
    }, g);
    label.textContent = letters ? pieceLetter(kind) : pieceCharacter("janggi", kind, first);
  });
  return svg;
}

/** The arrangement in words, from the chooser's left ("horse, elephant, elephant, horse"). */
export function arrangementWords(arrangement) {
  return [...arrangement].map((ch) => t(ch === "마" ? "setupHorse" : "setupElephant")).join(", ");
}
