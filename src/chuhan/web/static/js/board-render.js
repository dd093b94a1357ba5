// @ts-check
// Drawing the board from its state: the grid, river and palaces, the coordinates, the
// highlights (last move, check, premove, the picked piece), the pieces in the chosen set and
// the picked piece's destinations. The shapes and the animation draw on top (board-shapes.js,
// board-animation.js).

import { FILES, HEIGHT, MARGIN, STEP, WIDTH, el, octagon } from "./board-geometry.js";
import { drawPicture } from "./piece-pictures.js";
import { pieceCharacter, pieceLetter } from "./pieces.js";

/** @typedef {import("./board.js").BoardView} BoardView */
/** @typedef {import("./pieces.js").Piece} Piece */

// The board's looks, chosen in the settings for each game (themes.css paints them).
export const BOARD_THEMES = ["wood", "paper", "dark"];
export const PIECE_SETS = ["chinese", "letters", "pictures"];

// Janggi pieces come in three sizes: the general biggest, guards and soldiers smallest.
/** @type {Partial<Record<import("./pieces.js").PieceKind, number>>} */
const JANGGI_RADIUS = {
  king: 47, guard: 33, soldier: 33, elephant: 40, horse: 40, chariot: 40, cannon: 40,
};
const XIANGQI_RADIUS = 44;

/**
 * The piece set to draw with ("chinese" when the setting names none we have).
 * @param {BoardView} board
 * @returns {string}
 */
export function pieceSetOf(board) {
  return PIECE_SETS.includes(board.state.pieceSet) ? board.state.pieceSet : "chinese";
}

/**
 * Draw the whole board again from its state.
 * @param {BoardView} board
 */
export function renderBoard(board) {
  const svg = board.svg;
  svg.replaceChildren();
  const janggi = board.state.game === "janggi";
  const theme = BOARD_THEMES.includes(board.state.boardTheme) ? board.state.boardTheme : "wood";
  svg.setAttribute("class", `board board-${board.state.game} theme-${theme} pieces-${pieceSetOf(board)}`);
  drawGrid(svg, janggi);
  drawCoordinates(board, janggi);
  drawHighlights(board);
  board.pieceLayer = el("g", { class: "pieces" }, svg);
  for (const [square, piece] of Object.entries(board.state.pieces)) {
    drawPiece(board, square, piece, janggi, board.pieceLayer);
  }
  drawDests(board);
}

/**
 * @param {SVGSVGElement} svg
 * @param {boolean} janggi
 */
function drawGrid(svg, janggi) {
  el("rect", {
    class: "board-wood", x: 0, y: 0, width: WIDTH, height: HEIGHT, rx: 18,
  }, svg);
  const grid = el("g", { class: "grid" }, svg);
  const left = MARGIN;
  const right = MARGIN + 8 * STEP;
  const top = MARGIN;
  const bottom = MARGIN + 9 * STEP;
  el("rect", {
    class: "frame", x: left - 10, y: top - 10, width: right - left + 20, height: bottom - top + 20,
  }, grid);
  for (let row = 0; row < 10; row++) {
    const y = top + row * STEP;
    el("line", { x1: left, y1: y, x2: right, y2: y }, grid);
  }
  for (let col = 0; col < 9; col++) {
    const x = left + col * STEP;
    if (janggi || col === 0 || col === 8) {
      el("line", { x1: x, y1: top, x2: x, y2: bottom }, grid);
    } else {
      el("line", { x1: x, y1: top, x2: x, y2: top + 4 * STEP }, grid);
      el("line", { x1: x, y1: top + 5 * STEP, x2: x, y2: bottom }, grid);
    }
  }
  // Palace diagonals.
  for (const base of [0, 7]) {
    const y0 = top + base * STEP;
    const y1 = y0 + 2 * STEP;
    el("line", { x1: left + 3 * STEP, y1: y0, x2: left + 5 * STEP, y2: y1 }, grid);
    el("line", { x1: left + 5 * STEP, y1: y0, x2: left + 3 * STEP, y2: y1 }, grid);
  }
  if (!janggi) {
    drawRiver(svg);
    drawMarkers(grid);
  }
}

/** @param {SVGSVGElement} svg */
function drawRiver(svg) {
  const y = MARGIN + 4.5 * STEP;
  const river = el("g", { class: "river" }, svg);
  const words = [["楚", "河"], ["漢", "界"]];
  const xs = [[MARGIN + 1.2 * STEP, MARGIN + 2.3 * STEP], [MARGIN + 5.7 * STEP, MARGIN + 6.8 * STEP]];
  words.forEach((pair, side) => {
    pair.forEach((ch, i) => {
      const text = el("text", { x: xs[side][i], y, class: "river-text" }, river);
      text.textContent = ch;
    });
  });
}

/** The small crosses where cannons and soldiers start.
 * @param {SVGElement} grid */
function drawMarkers(grid) {
  const spots = [[1, 2], [7, 2], [1, 7], [7, 7]];
  for (let col = 0; col < 9; col += 2) spots.push([col, 3], [col, 6]);
  const d = 8;
  const len = 18;
  for (const [col, row] of spots) {
    const x = MARGIN + col * STEP;
    const y = MARGIN + row * STEP;
    for (const sx of [-1, 1]) {
      if ((col === 0 && sx < 0) || (col === 8 && sx > 0)) continue;
      for (const sy of [-1, 1]) {
        const cx = x + sx * d;
        const cy = y + sy * d;
        el("polyline", {
          class: "marker",
          points: `${cx + sx * len},${cy} ${cx},${cy} ${cx},${cy + sy * len}`,
        }, grid);
      }
    }
  }
}

/**
 * @param {BoardView} board
 * @param {boolean} janggi
 */
function drawCoordinates(board, janggi) {
  const g = el("g", { class: "coords" }, board.svg);
  /** @param {number} x @param {number} y @param {string} label */
  const put = (x, y, label) => {
    const text = el("text", { x, y }, g);
    text.textContent = label;
  };
  const flipped = board.state.flipped;
  // Players who do not read the characters get the ICCS letters and digits.
  const letters = pieceSetOf(board) !== "chinese";
  for (let col = 0; col < 9; col++) {
    const file = flipped ? 8 - col : col;
    const x = MARGIN + col * STEP;
    if (letters) {
      put(x, HEIGHT - 30, FILES[file]);
    } else if (janggi) {
      // Korean (GIB) files run 1-9 from the left of the player at the bottom.
      put(x, HEIGHT - 30, String(col + 1));
    } else {
      // Each side counts its files from its own right: the bottom player's 一..九, the top's 1..9.
      const bottomFirst = !flipped;
      const bottom = "九八七六五四三二一"[col];
      const top = String(col + 1);
      put(x, HEIGHT - 30, bottomFirst ? bottom : "９８７６５４３２１"[col]);
      put(x, 30, bottomFirst ? top : "一二三四五六七八九"[col]);
    }
  }
  if (letters || janggi) {
    for (let row = 0; row < 10; row++) {
      const rank = flipped ? row : 9 - row;
      const label = letters ? String(rank) : String((row + 1) % 10);
      put(30, MARGIN + row * STEP, label);
      put(WIDTH - 30, MARGIN + row * STEP, label);
    }
  }
}

/** @param {BoardView} board */
function drawHighlights(board) {
  const g = el("g", { class: "highlights" }, board.svg);
  /** @param {string} square @param {string} cls */
  const box = (square, cls) => {
    const [x, y] = board.point(square);
    return el("rect", { class: cls, x: x - 48, y: y - 48, width: 96, height: 96, rx: 10 }, g);
  };
  if (board.state.lastMove) {
    const [from, to] = board.state.lastMove;
    box(from, "last-move");
    if (to !== from) box(to, "last-move");
  }
  if (board.premove) {
    for (const square of board.premove) box(square, "premove").setAttribute("data-square", square);
  }
  if (board.selected) {
    box(board.selected, board.movable() === "premove" ? "selected premove-selected" : "selected");
  }
  /** @param {string} square @param {string} cls */
  const glow = (square, cls) => {
    const [x, y] = board.point(square);
    el("circle", { class: cls, cx: x, cy: y, r: 54 }, g);
  };
  if (board.state.check) glow(board.state.check, "check");
  for (const square of board.state.bikjang || []) glow(square, "bikjang");
}

/**
 * Draw one piece on `square` into `parent`.
 * @param {BoardView} board
 * @param {string} square
 * @param {Piece} piece
 * @param {boolean} janggi
 * @param {SVGElement} parent
 * @returns {SVGElement} the piece's group
 */
export function drawPiece(board, square, piece, janggi, parent) {
  const [x, y] = board.point(square);
  const side = janggi ? (piece.first ? "cho" : "han") : (piece.first ? "red" : "black");
  const g = el("g", {
    class: `piece piece-${side} piece-${piece.kind}`,
    transform: `translate(${x} ${y})`,
    "data-square": square,
    "data-piece": piece.letter,
  }, parent);
  const title = el("title", {}, g);
  title.textContent = board.hooks.describePiece ? board.hooks.describePiece(piece) : piece.kind;
  const radius = janggi ? JANGGI_RADIUS[piece.kind] || XIANGQI_RADIUS : XIANGQI_RADIUS;
  if (janggi) {
    el("polygon", { class: "piece-body", points: octagon(radius) }, g);
    el("polygon", { class: "piece-rim", points: octagon(radius - 5) }, g);
  } else {
    el("circle", { class: "piece-shadow", cx: 2, cy: 4, r: radius }, g);
    el("circle", { class: "piece-body", r: radius }, g);
    el("circle", { class: "piece-rim", r: radius - 6 }, g);
  }
  const set = pieceSetOf(board);
  if (set === "pictures") {
    drawPicture(g, piece.kind, radius);
  } else {
    const letters = set === "letters";
    const label = letters ? pieceLetter(piece.kind) : pieceCharacter(board.state.game, piece.kind, piece.first);
    const text = el("text", {
      class: letters ? "piece-label piece-letter" : "piece-label",
      "font-size": Math.round(radius * (letters ? 1.05 : 1.2)),
    }, g);
    text.textContent = label;
  }
  if (board.movableDests(square).length) g.classList.add(board.state.interactive ? "movable" : "premovable");
  return g;
}

/** The picked piece's destinations (captures as rings).
 * @param {BoardView} board */
function drawDests(board) {
  if (!board.selected) return;
  const premove = board.movable() === "premove";
  const g = el("g", { class: premove ? "dests premove-dests" : "dests" }, board.svg);
  for (const square of board.movableDests(board.selected)) {
    const [x, y] = board.point(square);
    const kind = premove ? "premove-dest" : "dest";
    if (board.state.pieces[square] && square !== board.selected) {
      el("circle", { class: `${kind} ${kind}-capture`, cx: x, cy: y, r: 46, "data-square": square }, g);
    } else {
      el("circle", { class: kind, cx: x, cy: y, r: 14, "data-square": square }, g);
    }
  }
}
