// @ts-check
// The move animation: when a new position is one move from the last, the moved piece slides,
// a captured one fades out and a piece a takeback brings back fades in.

import { drawPiece } from "./board-render.js";

/** @typedef {import("./board.js").BoardView} BoardView */
/** @typedef {import("./pieces.js").Piece} Piece */
/** @typedef {import("./pieces.js").Placement} Placement */
/**
 * @typedef {object} SingleMove
 * @property {string} from
 * @property {string} to
 * @property {Piece | null} captured faded out on `to`
 * @property {string[]} appeared squares whose pieces came back (faded in)
 */

const ANIMATION_MS = 200;

function reducedMotion() {
  return Boolean(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

/**
 * The one piece that moved from `before` to `after` (a move, or a move taken back), with
 * what it took (`captured`, faded out) and what came back (`appeared`, faded in); null
 * when the two positions are not one move apart.
 * @param {Placement} before
 * @param {Placement} after
 * @returns {SingleMove | null}
 */
export function singleMove(before, after) {
  /** @type {string[]} */
  const removed = [];
  /** @type {string[]} */
  const added = [];
  for (const square of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[square];
    const now = after[square];
    if (was && (!now || now.letter !== was.letter)) removed.push(square);
    if (now && (!was || now.letter !== was.letter)) added.push(square);
  }
  if (removed.length < 1 || removed.length > 2 || added.length < 1 || added.length > 2) return null;
  /** @type {[string, string][]} */
  const movers = [];
  for (const from of removed) {
    for (const to of added) {
      if (from !== to && !after[from] && before[from].letter === after[to].letter) movers.push([from, to]);
    }
  }
  if (movers.length !== 1) return null;
  const [from, to] = movers[0];
  const captured = before[to] && before[to].letter !== after[to].letter ? before[to] : null;
  const appeared = added.filter((square) => square !== to);
  const gone = removed.filter((square) => square !== from && square !== to);
  if (gone.length) return null; // two pieces left their squares: not one move
  return { from, to, captured, appeared };
}

export class MoveAnimation {
  /** @param {BoardView} board */
  constructor(board) {
    this.board = board;
    /** @type {(SingleMove & {start: number}) | null} the move being animated */
    this.anim = null;
    /** @type {number | null} */
    this.frame = null;
    /** @type {[string, string] | null} the move just made by drag-and-drop: not animated again */
    this.dropped = null;
  }

  on() {
    return this.board.state.animation !== false && !reducedMotion();
  }

  /**
   * After a new position: animate it if it is one move from the one before.
   * @param {Placement} before
   * @param {number | null} beforePly
   * @param {string} beforeGame
   * @param {boolean} hasDrawn whether a position was drawn before (the first is not animated)
   */
  plan(before, beforePly, beforeGame, hasDrawn) {
    const board = this.board;
    const dropped = this.dropped;
    this.dropped = null;
    this.anim = null;
    if (!hasDrawn || !this.on() || beforeGame !== board.state.game) return;
    const ply = board.state.ply;
    if (typeof ply === "number" && typeof beforePly === "number" && Math.abs(ply - beforePly) > 1) return;
    const move = singleMove(before, board.state.pieces);
    if (!move) return;
    // A piece the player dropped on its square is there already.
    if (dropped && dropped[0] === move.from && dropped[1] === move.to) return;
    this.anim = { ...move, start: performance.now() };
    if (!this.frame) this.frame = requestAnimationFrame(() => this.step());
  }

  /** After a render while a move is animated: the captured piece drawn again to fade out,
   * and everything put where the animation has got to. */
  draw() {
    const anim = this.anim;
    const layer = this.board.pieceLayer;
    if (!anim || !layer) return;
    if (anim.captured) {
      const ghost = drawPiece(this.board, anim.to, anim.captured, this.board.state.game === "janggi", layer);
      ghost.classList.remove("piece", "movable", "premovable"); // not a piece to find or pick
      ghost.classList.add("piece-ghost");
      ghost.removeAttribute("data-square");
      layer.insertBefore(ghost, layer.firstChild);
    }
    const mover = layer.querySelector(`.piece[data-square="${anim.to}"]`);
    if (mover) layer.appendChild(mover); // over the captured piece
    this.apply();
  }

  apply() {
    const anim = this.anim;
    const layer = this.board.pieceLayer;
    if (!anim || !layer) return;
    const elapsed = (performance.now() - anim.start) / ANIMATION_MS;
    const done = elapsed >= 1;
    const t = done ? 1 : 1 - (1 - elapsed) ** 3; // fast start, soft landing
    const mover = layer.querySelector(`.piece[data-square="${anim.to}"]`);
    const drag = this.board.drag;
    if (mover && !(drag && drag.node === mover)) {
      const [x1, y1] = this.board.point(anim.from);
      const [x2, y2] = this.board.point(anim.to);
      const x = x1 + (x2 - x1) * t;
      const y = y1 + (y2 - y1) * t;
      mover.setAttribute("transform", `translate(${x.toFixed(1)} ${y.toFixed(1)})`);
    }
    const ghost = layer.querySelector(".piece-ghost");
    if (ghost) {
      if (done) ghost.remove();
      else ghost.setAttribute("opacity", (1 - t).toFixed(3));
    }
    for (const square of anim.appeared) {
      const node = layer.querySelector(`.piece[data-square="${square}"]`);
      if (!node) continue;
      if (done) node.removeAttribute("opacity");
      else node.setAttribute("opacity", t.toFixed(3));
    }
    if (done) this.anim = null;
  }

  step() {
    this.frame = null;
    if (!this.anim) return;
    this.apply();
    if (this.anim) this.frame = requestAnimationFrame(() => this.step());
  }
}
