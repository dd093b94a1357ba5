// @ts-check
// The board in SVG, composed of its parts: board-render.js draws it (lines, river, palaces,
// pieces, highlights), board-pointer.js takes the pointer (click-click and drag-drop,
// premoves, arrows and circles with the right button), board-shapes.js keeps and draws the
// arrows, board-animation.js slides the moved piece. No rules here: which pieces may be
// picked and where they may go come from the server's state message, as `dests`
// ({"h2": ["h9", "e2", ...], ...}), and the waiting player's candidate premoves as
// `premoveDests` (the state's `premoves`).

import { MoveAnimation } from "./board-animation.js";
import { HEIGHT, WIDTH, el, pointOf } from "./board-geometry.js";
import { attachPointer, select, tryMove } from "./board-pointer.js";
import { renderBoard } from "./board-render.js";
import { BoardShapes } from "./board-shapes.js";

export { BOARD_THEMES, PIECE_SETS } from "./board-render.js";
export { parsePlacement, pieceCharacter, pieceLetter } from "./pieces.js";

/** @typedef {import("./pieces.js").Piece} Piece */
/** @typedef {import("./pieces.js").Placement} Placement */
/** @typedef {import("./board-shapes.js").Shape} Shape */
/** @typedef {Record<string, string[]>} Dests square -> the squares its piece may go to */

/**
 * What the board shows; `update` merges changes into it.
 * @typedef {object} BoardState
 * @property {import("./pieces.js").Game} game
 * @property {Placement} pieces
 * @property {boolean} flipped the second mover at the bottom
 * @property {string} pieceSet "chinese", "letters" or "pictures"
 * @property {string} boardTheme "wood", "paper" or "dark"
 * @property {[string, string] | null} lastMove
 * @property {string | null} check the checked king's square
 * @property {string[] | null} bikjang the two generals facing each other
 * @property {Dests | null} dests
 * @property {boolean} interactive the player may move now
 * @property {boolean} touchMove a picked piece must be moved
 * @property {[string, string] | null} hint the analysis' best move, as an arrow
 * @property {string} coordinates
 * @property {Dests | null} premoveDests the waiting player's candidate premoves, like dests
 * @property {boolean} animation slide the moved piece (also off when the system asks for less motion)
 * @property {number | null} ply the ply shown: a jump of more than one is not animated
 */

/**
 * @typedef {object} BoardHooks
 * @property {(from: string, to: string) => void} [onMove]
 * @property {(from: string | null, to: string | null) => void} [onPremove] (null, null: cancelled)
 * @property {(square: string | null) => void} [onSelect]
 * @property {(piece: Piece) => string} [describePiece] the piece's tooltip
 */

/**
 * A drag under way: the piece's square, where the press was, the piece's node.
 * @typedef {{from: string, start: DOMPoint, node: Element | null, moved: boolean, pointer: number}} Drag
 */

/** The placement as a string, to tell a new position from the same one sent again.
 * @param {Placement} pieces */
function placementKey(pieces) {
  return Object.keys(pieces).sort().map((square) => `${square}${pieces[square].letter}`).join(",");
}

export class BoardView {
  /**
   * @param {HTMLElement} container where the <svg> goes
   * @param {BoardHooks} [hooks]
   */
  constructor(container, hooks = {}) {
    this.hooks = hooks;
    /** @type {BoardState} */
    this.state = {
      game: "xiangqi", pieces: {}, flipped: false, pieceSet: "chinese", boardTheme: "wood",
      lastMove: null, check: null, bikjang: null, dests: null, interactive: false,
      touchMove: false, hint: null, coordinates: "traditional",
      premoveDests: null, animation: true, ply: null,
    };
    /** @type {string | null} the picked piece's square */
    this.selected = null;
    this.locked = false; // touch-move: the picked piece must be moved
    /** @type {Drag | null} */
    this.drag = null;
    /** @type {[string, string] | null} set while the opponent is to move */
    this.premove = null;
    this.hasDrawn = false;
    /** @type {SVGElement | null} */
    this.pieceLayer = null;
    this.svg = /** @type {SVGSVGElement} */ (el("svg", {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "board", role: "img",
      "aria-label": "board", preserveAspectRatio: "xMidYMid meet",
    }));
    this.shapes = new BoardShapes((square) => this.point(square));
    this.animation = new MoveAnimation(this);
    container.appendChild(this.svg);
    attachPointer(this);
  }

  /** Merge `changes` into the state and draw again. A new position clears the selection;
   * the same position sent again (a state message about presence, clocks or offers) keeps
   * the piece the player has picked. A new position one move from the last is animated.
   * `labels` (the old name of `pieceSet`) is still understood.
   * @param {Partial<BoardState> & {labels?: string}} changes */
  update(changes) {
    if (changes.labels !== undefined && !("pieceSet" in changes)) {
      changes = { ...changes, pieceSet: changes.labels };
    }
    const before = this.state.pieces;
    const beforePly = this.state.ply;
    const beforeGame = this.state.game;
    const positionChanged = changes.pieces !== undefined
      && placementKey(changes.pieces) !== placementKey(this.state.pieces);
    Object.assign(this.state, changes);
    if (positionChanged || !this.movable()) {
      this.selected = null;
      this.locked = false;
    }
    if (this.selected && !this.movableDests(this.selected).length) {
      this.selected = null;
      this.locked = false;
    }
    if (this.premove && !this.state.interactive && !this.state.premoveDests) this.premove = null;
    if (positionChanged) this.animation.plan(before, beforePly, beforeGame, this.hasDrawn);
    this.render();
  }

  /** Shapes drawn by the page (engine arrows): [{orig, dest, brush}] or a circle without
   * dest; drawn with the player's own, replaced by the next call.
   * @param {(Shape | null)[] | null} shapes */
  setAutoShapes(shapes) {
    this.shapes.auto = /** @type {Shape[]} */ ((shapes || []).filter((shape) => shape && shape.orig));
    this.shapes.redraw();
  }

  /** The player's own arrows and circles are wiped. */
  clearShapes() {
    if (!this.shapes.user.length) return;
    this.shapes.user = [];
    this.shapes.redraw();
  }

  /** Play the premove if it is legal now (the player's turn came); else drop it. Returns
   * the premove [from, to] and whether it was played, or null when none was set.
   * @returns {{from: string, to: string, played: boolean} | null} */
  playPremove() {
    const premove = this.premove;
    if (!premove) return null;
    this.premove = null;
    const [from, to] = premove;
    if (this.state.interactive && this.destsOf(from).includes(to)) {
      this.selected = null;
      this.locked = false;
      if (this.hooks.onMove) this.hooks.onMove(from, to);
      this.render();
      return { from, to, played: true };
    }
    this.render();
    return { from, to, played: false };
  }

  cancelPremove() {
    if (!this.premove) return;
    this.premove = null;
    if (this.hooks.onPremove) this.hooks.onPremove(null, null);
  }

  /** Pick the piece on `square` (null: none), as a click would.
   * @param {string | null} square */
  select(square) {
    select(this, square);
  }

  /** @param {string} from @param {string} to */
  tryMove(from, to) {
    return tryMove(this, from, to);
  }

  /** @param {string} square @returns {string[]} */
  destsOf(square) {
    return (this.state.dests && this.state.dests[square]) || [];
  }

  /** Whether the player may pick pieces now: "move" on their turn, "premove" while the
   * opponent is to move, else null.
   * @returns {"move" | "premove" | null} */
  movable() {
    if (this.state.interactive) return "move";
    if (this.state.premoveDests) return "premove";
    return null;
  }

  /** @param {string} square @returns {string[]} */
  movableDests(square) {
    const mode = this.movable();
    if (mode === "move") return this.destsOf(square);
    if (mode === "premove" && this.state.premoveDests) return this.state.premoveDests[square] || [];
    return [];
  }

  /** Where a square is drawn, in the SVG's viewBox.
   * @param {string} square @returns {[number, number]} */
  point(square) {
    return pointOf(square, this.state.flipped);
  }

  render() {
    renderBoard(this);
    if (Object.keys(this.state.pieces).length) this.hasDrawn = true;
    this.shapes.hint = this.state.hint;
    this.shapes.drawInto(this.svg);
    if (this.animation.anim) this.animation.draw();
  }
}

export const BOARD_SIZE = { width: WIDTH, height: HEIGHT };
