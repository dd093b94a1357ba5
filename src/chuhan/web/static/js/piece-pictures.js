// @ts-check
// The "pictures" piece set: a small drawing of what each piece is (a chariot, a horse, an
// elephant, a guard's shield, the general's crown, a cannon, a soldier's helmet),
// for players who do not read the characters. Drawn in a box of about ±28 units around the
// piece's centre for a piece of radius 44 and scaled to the piece; the side's colour comes
// from CSS (`color`, used as currentColor), holes are filled with the piece's face.

// Each drawing is a list of [element, attributes]; `class` says how it is painted:
// "pic-fill" (solid in the side's colour), "pic-line" (a stroke in that colour) or
// "pic-cut" (the face colour, cut out of a solid part).
/** @typedef {[string, Record<string, string | number>][]} Drawing */

/** @type {Drawing} */
const SHIELD = [
  ["path", { class: "pic-fill", d: "M0,-25 L21,-17 Q22,8 0,25 Q-22,8 -21,-17 Z" }],
  ["path", { class: "pic-cut", d: "M-3,-16 H3 V-6 H12 V0 H3 V14 H-3 V0 H-12 V-6 H-3 Z" }],
];
/** @type {Record<import("./pieces.js").PieceKind, Drawing>} */
const PICTURES = {
  king: [ // a crown on a band
    ["path", { class: "pic-fill", d: "M-24,12 L-27,-12 L-13,-1 L0,-21 L13,-1 L27,-12 L24,12 Z" }],
    ["rect", { class: "pic-fill", x: -24, y: 16, width: 48, height: 7, rx: 2 }],
    ["circle", { class: "pic-fill", cx: -27, cy: -14, r: 4 }],
    ["circle", { class: "pic-fill", cx: 0, cy: -23, r: 4 }],
    ["circle", { class: "pic-fill", cx: 27, cy: -14, r: 4 }],
    ["circle", { class: "pic-cut", cx: 0, cy: 4, r: 4.5 }],
    ["circle", { class: "pic-cut", cx: -13, cy: 6, r: 3 }],
    ["circle", { class: "pic-cut", cx: 13, cy: 6, r: 3 }],
  ],
  advisor: SHIELD, // a guard's shield with a cross
  guard: SHIELD,
  elephant: [ // standing, facing right, trunk down
    ["ellipse", { class: "pic-fill", cx: -6, cy: 0, rx: 18, ry: 13 }],
    ["circle", { class: "pic-fill", cx: 12, cy: -7, r: 11 }],
    ["path", { class: "pic-line", d: "M20,-3 Q27,9 20,21", "stroke-width": 7, "stroke-linecap": "round" }],
    ["rect", { class: "pic-fill", x: -20, y: 6, width: 8, height: 17, rx: 2 }],
    ["rect", { class: "pic-fill", x: -1, y: 6, width: 8, height: 17, rx: 2 }],
    ["path", { class: "pic-line", d: "M-23,-4 L-28,6", "stroke-width": 3, "stroke-linecap": "round" }],
    ["ellipse", { class: "pic-cut", cx: 7, cy: -6, rx: 4.5, ry: 7 }],
    ["circle", { class: "pic-cut", cx: 16, cy: -11, r: 2 }],
  ],
  horse: [ // a horse's head and neck, facing left
    ["path", {
      class: "pic-fill",
      d: "M12,25 L-9,25 Q-9,11 -3,3 L-15,7 Q-25,7 -24,-2 L-11,-16 Q-5,-22 3,-22 L7,-29 "
        + "L10,-21 Q23,-13 21,5 Q19,16 12,25 Z",
    }],
    ["circle", { class: "pic-cut", cx: -6, cy: -11, r: 2.8 }],
    ["path", { class: "pic-line pic-cut-line", d: "M12,-15 Q17,-2 13,16", "stroke-width": 2.5 }],
    ["circle", { class: "pic-cut", cx: -20, cy: -1, r: 1.6 }],
  ],
  chariot: [ // a war chariot: the box on two spoked wheels, and its pole
    ["rect", { class: "pic-fill", x: -22, y: -20, width: 40, height: 20, rx: 3 }],
    ["path", { class: "pic-line", d: "M18,-6 L28,-12", "stroke-width": 4, "stroke-linecap": "round" }],
    ["circle", { class: "pic-line pic-wheel", cx: -11, cy: 11, r: 10, "stroke-width": 4 }],
    ["circle", { class: "pic-line pic-wheel", cx: 11, cy: 11, r: 10, "stroke-width": 4 }],
    ["path", { class: "pic-line", d: "M-21,11 H-1 M-11,1 V21 M1,11 H21 M11,1 V21", "stroke-width": 2 }],
  ],
  cannon: [ // a barrel on a wheel, and a ball
    ["path", { class: "pic-fill", d: "M-25,4 L14,-17 L20,-6 L-20,14 Z" }],
    ["rect", { class: "pic-fill", x: 12, y: -20, width: 6, height: 16, rx: 2, transform: "rotate(-28 15 -12)" }],
    ["circle", { class: "pic-line pic-wheel", cx: -5, cy: 12, r: 10, "stroke-width": 4 }],
    ["circle", { class: "pic-fill", cx: -5, cy: 12, r: 3 }],
    ["circle", { class: "pic-fill", cx: 20, cy: 16, r: 6 }],
  ],
  soldier: [ // a foot soldier's helmet with its crest
    ["path", { class: "pic-fill", d: "M-19,9 Q-20,-17 0,-18 Q20,-17 19,9 Z" }],
    ["rect", { class: "pic-fill", x: -25, y: 9, width: 50, height: 7, rx: 3 }],
    ["path", { class: "pic-line", d: "M0,-18 Q3,-27 15,-27", "stroke-width": 5, "stroke-linecap": "round" }],
    ["rect", { class: "pic-cut", x: -13, y: -4, width: 26, height: 5, rx: 2 }],
    ["rect", { class: "pic-cut", x: -2.5, y: 1, width: 5, height: 8 }],
    ["path", { class: "pic-fill", d: "M-8,16 L8,16 L0,25 Z" }],
  ],
};

const SVG_NS = "http://www.w3.org/2000/svg";
const FULL_RADIUS = 44; // the piece size the drawings are made for

/**
 * Draw the picture of `kind` into the piece's group `parent`, sized for `radius`.
 * @param {Element} parent
 * @param {import("./pieces.js").PieceKind} kind
 * @param {number} radius
 * @returns {Element}
 */
export function drawPicture(parent, kind, radius) {
  const g = document.createElementNS(SVG_NS, "g");
  g.setAttribute("class", "piece-picture");
  g.setAttribute("data-kind", kind);
  g.setAttribute("transform", `scale(${(radius / FULL_RADIUS).toFixed(3)})`);
  for (const [name, attrs] of PICTURES[kind]) {
    const node = document.createElementNS(SVG_NS, name);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    g.appendChild(node);
  }
  parent.appendChild(g);
  return g;
}
