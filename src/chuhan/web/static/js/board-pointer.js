// @ts-check
// The pointer on the board: click-click and drag-and-drop moves, touch-move, premoves while
// the opponent is to move, and the right button's arrows and circles. Which pieces may be
// picked and where they may go is the board's state (the server's `dests` and `premoves`):
// no rules here.

import { squareAt, svgPoint } from "./board-geometry.js";
import { brushOf } from "./board-shapes.js";

/** @typedef {import("./board.js").BoardView} BoardView */

const DRAG_THRESHOLD = 6; // board units a press must travel to become a drag

/**
 * Listen to the pointer on the board's SVG.
 * @param {BoardView} board
 */
export function attachPointer(board) {
  const svg = board.svg;
  svg.addEventListener("pointerdown", (event) => onPointerDown(board, event));
  svg.addEventListener("pointermove", (event) => onPointerMove(board, event));
  svg.addEventListener("pointerup", (event) => onPointerUp(board, event));
  svg.addEventListener("pointercancel", () => cancelDrag(board));
  svg.addEventListener("contextmenu", (event) => event.preventDefault());
}

/**
 * The square under the pointer, or null.
 * @param {BoardView} board
 * @param {PointerEvent} event
 */
function squareOf(board, event) {
  return squareAt(board.svg, event, board.state.flipped);
}

/**
 * Pick a piece (or none).
 * @param {BoardView} board
 * @param {string | null} square
 */
export function select(board, square) {
  board.selected = square;
  board.locked = Boolean(square && board.state.touchMove && board.movable() === "move");
  board.render();
  if (board.hooks.onSelect) board.hooks.onSelect(square);
}

/**
 * Move (or premove) the piece on `from` to `to` if it may go there.
 * @param {BoardView} board
 * @param {string} from
 * @param {string} to
 * @returns {boolean} whether it was a move or premove
 */
export function tryMove(board, from, to) {
  if (!board.movableDests(from).includes(to)) return false;
  board.selected = null;
  board.locked = false;
  if (board.movable() === "premove") {
    board.premove = [from, to];
    board.render();
    if (board.hooks.onPremove) board.hooks.onPremove(from, to);
    return true;
  }
  if (board.hooks.onMove) board.hooks.onMove(from, to);
  return true;
}

/**
 * @param {BoardView} board
 * @param {PointerEvent} event
 */
function onPointerDown(board, event) {
  if (event.button === 2) {
    startDrawing(board, event);
    return;
  }
  if (event.button > 0) return;
  // A left click wipes the player's arrows and circles, as on lichess.
  const hadShapes = board.shapes.user.length > 0;
  board.shapes.user = [];
  const mode = board.movable();
  const square = mode ? squareOf(board, event) : null;
  if (!square) {
    const hadPremove = Boolean(board.premove || (mode === "premove" && board.selected));
    if (hadPremove) {
      board.selected = null;
      board.cancelPremove();
    }
    if (hadShapes || hadPremove) board.render();
    return;
  }
  event.preventDefault();
  if (board.selected && square !== board.selected && board.movableDests(board.selected).includes(square)) {
    tryMove(board, board.selected, square);
    return;
  }
  if (board.premove) board.cancelPremove(); // picking again replaces it; elsewhere, cancels it
  if (board.movableDests(square).length) {
    if (board.locked && square !== board.selected) return; // touch-move: keep the picked piece
    if (square !== board.selected) select(board, square);
    else if (hadShapes) board.render();
    const start = svgPoint(board.svg, event);
    if (!start) return;
    const node = board.pieceLayer ? board.pieceLayer.querySelector(`[data-square="${square}"]`) : null;
    board.drag = { from: square, start, node, moved: false, pointer: event.pointerId };
    board.svg.setPointerCapture(event.pointerId);
    return;
  }
  if (!board.locked && board.selected) select(board, null);
  else board.render();
}

/** The right button: a press starts an arrow (or, let go on the same point, a circle),
 * and cancels a premove and a picked piece.
 * @param {BoardView} board
 * @param {PointerEvent} event */
function startDrawing(board, event) {
  const square = squareOf(board, event);
  event.preventDefault();
  if (board.drag) cancelDrag(board);
  const cancelled = Boolean(board.premove) || Boolean(board.selected && !board.locked);
  board.cancelPremove();
  if (!board.locked) board.selected = null;
  if (!square) {
    if (cancelled) board.render();
    return;
  }
  board.shapes.drawing = { orig: square, dest: null, brush: brushOf(event), pointer: event.pointerId };
  board.svg.setPointerCapture(event.pointerId);
  if (cancelled) board.render();
  else board.shapes.redraw();
}

/**
 * @param {BoardView} board
 * @param {PointerEvent} event
 */
function onPointerMove(board, event) {
  const drawing = board.shapes.drawing;
  if (drawing && event.pointerId === drawing.pointer) {
    const square = squareOf(board, event);
    const dest = square && square !== drawing.orig ? square : null;
    if (dest !== drawing.dest) {
      drawing.dest = dest;
      board.shapes.redraw();
    }
    return;
  }
  const drag = board.drag;
  if (!drag || event.pointerId !== drag.pointer) return;
  const pt = svgPoint(board.svg, event);
  if (!pt) return;
  const dx = pt.x - drag.start.x;
  const dy = pt.y - drag.start.y;
  if (!drag.moved && Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
  drag.moved = true;
  const [x, y] = board.point(drag.from);
  if (drag.node && board.pieceLayer) {
    drag.node.setAttribute("transform", `translate(${x + dx} ${y + dy})`);
    drag.node.classList.add("dragging");
    board.pieceLayer.appendChild(drag.node); // on top of the others
  }
}

/**
 * @param {BoardView} board
 * @param {PointerEvent} event
 */
function onPointerUp(board, event) {
  const drawing = board.shapes.drawing;
  if (drawing && event.pointerId === drawing.pointer && event.button === 2) {
    const { orig, brush } = drawing;
    const square = squareOf(board, event);
    board.shapes.drawing = null;
    if (square) board.shapes.toggle(square === orig ? { orig, brush } : { orig, dest: square, brush });
    board.shapes.redraw();
    return;
  }
  const drag = board.drag;
  if (!drag || event.pointerId !== drag.pointer) return;
  board.drag = null;
  if (!drag.moved) return; // a click: the piece stays picked, the next click moves it
  const square = squareOf(board, event);
  if (square && square !== drag.from && board.movableDests(drag.from).includes(square)) {
    if (board.movable() === "move") board.animation.dropped = [drag.from, square];
    tryMove(board, drag.from, square);
  } else {
    board.render();
  }
}

/** @param {BoardView} board */
function cancelDrag(board) {
  if (board.shapes.drawing) {
    board.shapes.drawing = null;
    board.shapes.redraw();
  }
  if (board.drag) {
    board.drag = null;
    board.render();
  }
}
