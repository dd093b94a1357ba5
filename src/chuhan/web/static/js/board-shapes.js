// @ts-check
// The shapes over the board: the player's own arrows and circles (drawn with the right
// button, wiped by a left click), the page's (the engine's lines) and the analysis hint.

import { el } from "./board-geometry.js";

/**
 * An arrow from `orig` to `dest`, or a circle on `orig` without `dest`.
 * @typedef {{orig: string, dest?: string | null, brush?: string, hint?: boolean}} Shape
 */
/** @typedef {Shape & {owner: "auto" | "user"}} OwnedShape */

// Right-drag brushes, as lichess has them: plain green, shift or ctrl red, alt blue, both
// yellow. "engine" is the analysis' best move.
const BRUSHES = ["green", "red", "blue", "yellow"];

/**
 * The brush of a right-button press, from the keys held.
 * @param {{shiftKey: boolean, ctrlKey: boolean, altKey: boolean, metaKey: boolean}} event
 * @returns {string}
 */
export function brushOf(event) {
  const red = event.shiftKey || event.ctrlKey;
  const blue = event.altKey || event.metaKey;
  return BRUSHES[(red ? 1 : 0) + (blue ? 2 : 0)];
}

/** @param {Shape} a @param {Shape} b */
function sameShape(a, b) {
  return a.orig === b.orig && (a.dest || null) === (b.dest || null);
}

export class BoardShapes {
  /** @param {(square: string) => [number, number]} point where a square is drawn */
  constructor(point) {
    this.point = point;
    /** @type {Shape[]} arrows and circles drawn with the right button */
    this.user = [];
    /** @type {Shape[]} shapes set by the page (engine arrows) */
    this.auto = [];
    /** @type {{orig: string, dest: string | null, brush: string, pointer: number} | null}
     * the right-drag under way */
    this.drawing = null;
    /** @type {[string, string] | null} the analysis hint, an arrow of the engine's brush */
    this.hint = null;
    /** @type {SVGElement | null} */
    this.layer = null;
  }

  /** The page's shapes, the analysis hint among them, then the player's own on top.
   * @returns {OwnedShape[]} */
  all() {
    /** @type {OwnedShape[]} */
    const auto = this.auto.map((shape) => ({ ...shape, owner: "auto" }));
    if (this.hint) {
      const [orig, dest] = this.hint;
      auto.push({ orig, dest, brush: "engine", owner: "auto", hint: true });
    }
    return [...auto, ...this.user.map((shape) => /** @type {OwnedShape} */ ({ ...shape, owner: "user" }))];
  }

  /** Draw the shapes into a new layer of `svg` (after the board is drawn again).
   * @param {SVGSVGElement} svg */
  drawInto(svg) {
    this.layer = el("g", { class: "shapes" }, svg);
    this.draw();
  }

  /** Draw the shapes again in their layer. */
  redraw() {
    if (!this.layer) return;
    this.layer.replaceChildren();
    this.draw();
  }

  draw() {
    const layer = this.layer;
    if (!layer) return;
    for (const shape of this.all()) this.drawShape(shape, layer);
    if (this.drawing) {
      const { orig, dest, brush } = this.drawing;
      const preview = this.drawShape({ orig, dest, brush, owner: "user" }, layer);
      preview.setAttribute("class", `shape-preview brush-${brush}`);
    }
  }

  /**
   * @param {OwnedShape} shape
   * @param {SVGElement} parent
   * @returns {SVGElement}
   */
  drawShape(shape, parent) {
    const brush = shape.brush || "green";
    const classes = ["shape", shape.owner, `brush-${brush}`];
    if (shape.hint) classes.push("hint");
    const [x1, y1] = this.point(shape.orig);
    if (!shape.dest || shape.dest === shape.orig) {
      return el("circle", {
        class: classes.join(" "), cx: x1, cy: y1, r: 44, "data-orig": shape.orig,
      }, parent);
    }
    const [x2, y2] = this.point(shape.dest);
    const length = Math.hypot(x2 - x1, y2 - y1);
    const ux = (x2 - x1) / length;
    const uy = (y2 - y1) / length;
    const g = el("g", {
      class: classes.join(" "), "data-orig": shape.orig, "data-dest": shape.dest,
    }, parent);
    const tipX = x2 - ux * 14;
    const tipY = y2 - uy * 14;
    const back = [tipX - ux * 38, tipY - uy * 38];
    el("line", { x1, y1, x2: back[0] + ux * 4, y2: back[1] + uy * 4 }, g);
    el("polygon", {
      points: [
        `${tipX},${tipY}`,
        `${back[0] - uy * 22},${back[1] + ux * 22}`,
        `${back[0] + uy * 22},${back[1] - ux * 22}`,
      ].join(" "),
    }, g);
    return g;
  }

  /** A shape drawn again is taken off; drawn again in another colour, it changes colour.
   * @param {Shape} shape */
  toggle(shape) {
    const index = this.user.findIndex((other) => sameShape(other, shape));
    if (index < 0) {
      this.user.push(shape);
    } else if (this.user[index].brush === shape.brush) {
      this.user.splice(index, 1);
    } else {
      this.user[index] = shape;
    }
  }
}
