// @ts-check
// The board's coordinates: squares ("e0") to points of the SVG's viewBox and back, and the
// small SVG helpers every part of the board draws with.

export const SVG_NS = "http://www.w3.org/2000/svg";
export const STEP = 100; // distance between two lines
export const MARGIN = 100; // room around the grid for the coordinates
export const WIDTH = 8 * STEP + 2 * MARGIN;
export const HEIGHT = 9 * STEP + 2 * MARGIN;
export const FILES = "abcdefghi";

/**
 * An SVG element with these attributes, appended to `parent` when given.
 * @param {string} name
 * @param {Record<string, string | number>} [attrs]
 * @param {Element | null} [parent]
 * @returns {SVGElement}
 */
export function el(name, attrs = {}, parent = null) {
  const node = /** @type {SVGElement} */ (document.createElementNS(SVG_NS, name));
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

/**
 * The points of a janggi piece's octagon of this radius.
 * @param {number} radius
 * @returns {string}
 */
export function octagon(radius) {
  const points = [];
  for (let i = 0; i < 8; i++) {
    const angle = Math.PI / 8 + (i * Math.PI) / 4;
    points.push(`${(radius * Math.cos(angle)).toFixed(1)},${(radius * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

/**
 * The centre of a square in the viewBox.
 * @param {string} square
 * @param {boolean} flipped the second mover at the bottom
 * @returns {[number, number]}
 */
export function pointOf(square, flipped) {
  const file = FILES.indexOf(square[0]);
  const rank = Number(square.slice(1));
  const col = flipped ? 8 - file : file;
  const row = flipped ? rank : 9 - rank;
  return [MARGIN + col * STEP, MARGIN + row * STEP];
}

/**
 * Where a pointer event is, in the viewBox of `svg`.
 * @param {SVGSVGElement} svg
 * @param {{clientX: number, clientY: number}} event
 * @returns {DOMPoint | null} null while the SVG is not laid out
 */
export function svgPoint(svg, event) {
  const matrix = svg.getScreenCTM();
  if (!matrix) return null;
  return new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
}

/**
 * The square nearest a pointer event, or null off the board.
 * @param {SVGSVGElement} svg
 * @param {{clientX: number, clientY: number}} event
 * @param {boolean} flipped
 * @returns {string | null}
 */
export function squareAt(svg, event, flipped) {
  const pt = svgPoint(svg, event);
  if (!pt) return null;
  const col = Math.round((pt.x - MARGIN) / STEP);
  const row = Math.round((pt.y - MARGIN) / STEP);
  if (col < 0 || col > 8 || row < 0 || row > 9) return null;
  const file = flipped ? 8 - col : col;
  const rank = flipped ? row : 9 - row;
  return FILES[file] + rank;
}
