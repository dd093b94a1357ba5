// The board in SVG: lines, river, palaces, pieces, highlights, the pointer input
// (click-click and drag-drop, premoves, arrows and circles with the right button) and the
// move animation. No rules here: which pieces may be picked and where they may go come from
// the server's state message, as `dests` ({"h2": ["h9", "e2", ...], ...}), and the
// waiting player's candidate premoves as `premoveDests` (the state's `premoves`).

import { drawPicture } from "./piece-pictures.js";
import { pieceCharacter, pieceLetter } from "./pieces.js";

export { parsePlacement, pieceCharacter, pieceLetter } from "./pieces.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const STEP = 100; // distance between two lines
const MARGIN = 100; // room around the grid for the coordinates
const WIDTH = 8 * STEP + 2 * MARGIN;
const HEIGHT = 9 * STEP + 2 * MARGIN;
const FILES = "abcdefghi";
const DRAG_THRESHOLD = 6; // board units a press must travel to become a drag

// Janggi pieces come in three sizes: the general biggest, guards and soldiers smallest.
const JANGGI_RADIUS = {
  king: 47, guard: 33, soldier: 33, elephant: 40, horse: 40, chariot: 40, cannon: 40,
};
const XIANGQI_RADIUS = 44;

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
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

/** The placement as a string, to tell a new position from the same one sent again. */
function placementKey(pieces) {
  return Object.keys(pieces).sort().map((square) => `${square}${pieces[square].letter}`).join(",");
}

// The board's looks, chosen in the settings for each game (themes.css paints them).
export const BOARD_THEMES = ["wood", "paper", "dark"];
export const PIECE_SETS = ["chinese", "letters", "pictures"];

// Right-drag brushes, as lichess has them: plain green, shift or ctrl red, alt blue, both
// yellow. "engine" is the analysis' best move.
const BRUSHES = ["green", "red", "blue", "yellow"];
const ANIMATION_MS = 200;

function brushOf(event) {
  const red = event.shiftKey || event.ctrlKey;
  const blue = event.altKey || event.metaKey;
  return BRUSHES[(red ? 1 : 0) + (blue ? 2 : 0)];
}

function sameShape(a, b) {
  return a.orig === b.orig && (a.dest || null) === (b.dest || null);
}

function reducedMotion() {
  return Boolean(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

/** The one piece that moved from `before` to `after` (a move, or a move taken back), with
 * what it took (`captured`, faded out) and what came back (`appeared`, faded in); null
 * when the two positions are not one move apart. */
function singleMove(before, after) {
  const removed = [];
  const added = [];
  for (const square of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[square];
    const now = after[square];
    if (was && (!now || now.letter !== was.letter)) removed.push(square);
    if (now && (!was || now.letter !== was.letter)) added.push(square);
  }
  if (removed.length < 1 || removed.length > 2 || added.length < 1 || added.length > 2) return null;
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

export class BoardView {
  /**
   * @param {HTMLElement} container where the <svg> goes
   * @param {object} hooks onMove(from, to), onPremove(from, to) (null, null: cancelled),
   *   describePiece(piece) -> tooltip text
   */
  constructor(container, hooks = {}) {
    this.hooks = hooks;
    this.state = {
      game: "xiangqi", pieces: {}, flipped: false, pieceSet: "chinese", boardTheme: "wood",
      lastMove: null, check: null, bikjang: null, dests: null, interactive: false,
      touchMove: false, hint: null, coordinates: "traditional",
      premoveDests: null, // the waiting player's candidate premoves, like dests
      animation: true, // slide the moved piece (also off when the system asks for less motion)
      ply: null, // the ply shown: a jump of more than one is not animated
    };
    this.selected = null;
    this.locked = false; // touch-move: the picked piece must be moved
    this.drag = null;
    this.premove = null; // [from, to] set while the opponent is to move
    this.userShapes = []; // arrows and circles drawn with the right button
    this.autoShapes = []; // shapes set by the page (engine arrows)
    this.drawing = null; // the right-drag under way: {orig, dest, brush, pointer}
    this.anim = null; // the move being animated: {from, to, captured, appeared, start}
    this.frame = null;
    this.hasDrawn = false;
    this.dropped = null; // the move just made by drag-and-drop: not animated again
    this.svg = el("svg", {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "board", role: "img",
      "aria-label": "board", preserveAspectRatio: "xMidYMid meet",
    });
    container.appendChild(this.svg);
    this.svg.addEventListener("pointerdown", (event) => this.onPointerDown(event));
    this.svg.addEventListener("pointermove", (event) => this.onPointerMove(event));
    this.svg.addEventListener("pointerup", (event) => this.onPointerUp(event));
    this.svg.addEventListener("pointercancel", () => this.cancelDrag());
    this.svg.addEventListener("contextmenu", (event) => event.preventDefault());
  }

  /** Merge `changes` into the state and draw again. A new position clears the selection;
   * the same position sent again (a state message about presence, clocks or offers) keeps
   * the piece the player has picked. A new position one move from the last is animated.
   * `labels` (the old name of `pieceSet`) is still understood. */
  update(changes) {
    if ("labels" in changes && !("pieceSet" in changes)) {
      changes = { ...changes, pieceSet: changes.labels };
    }
    const before = this.state.pieces;
    const beforePly = this.state.ply;
    const beforeGame = this.state.game;
    const positionChanged = "pieces" in changes
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
    if (positionChanged) this.planAnimation(before, beforePly, beforeGame);
    this.render();
  }

  /** Shapes drawn by the page (engine arrows): [{orig, dest, brush}] or a circle without
   * dest; drawn with the player's own, replaced by the next call. */
  setAutoShapes(shapes) {
    this.autoShapes = (shapes || []).filter((shape) => shape && shape.orig);
    this.renderShapes();
  }

  /** The player's own arrows and circles are wiped. */
  clearShapes() {
    if (!this.userShapes.length) return;
    this.userShapes = [];
    this.renderShapes();
  }

  /** Play the premove if it is legal now (the player's turn came); else drop it. Returns
   * the premove [from, to] and whether it was played, or null when none was set. */
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

  destsOf(square) {
    return (this.state.dests && this.state.dests[square]) || [];
  }

  /** Whether the player may pick pieces now: "move" on their turn, "premove" while the
   * opponent is to move, else null. */
  movable() {
    if (this.state.interactive) return "move";
    if (this.state.premoveDests) return "premove";
    return null;
  }

  movableDests(square) {
    const mode = this.movable();
    if (mode === "move") return this.destsOf(square);
    if (mode === "premove") return this.state.premoveDests[square] || [];
    return [];
  }

  // ---- geometry ----

  point(square) {
    const file = FILES.indexOf(square[0]);
    const rank = Number(square.slice(1));
    const col = this.state.flipped ? 8 - file : file;
    const row = this.state.flipped ? rank : 9 - rank;
    return [MARGIN + col * STEP, MARGIN + row * STEP];
  }

  squareAt(event) {
    const matrix = this.svg.getScreenCTM();
    if (!matrix) return null;
    const pt = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    const col = Math.round((pt.x - MARGIN) / STEP);
    const row = Math.round((pt.y - MARGIN) / STEP);
    if (col < 0 || col > 8 || row < 0 || row > 9) return null;
    const file = this.state.flipped ? 8 - col : col;
    const rank = this.state.flipped ? row : 9 - row;
    return FILES[file] + rank;
  }

  svgPoint(event) {
    const matrix = this.svg.getScreenCTM();
    return new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
  }

  // ---- drawing ----

  pieceSet() {
    return PIECE_SETS.includes(this.state.pieceSet) ? this.state.pieceSet : "chinese";
  }

  render() {
    this.svg.replaceChildren();
    const janggi = this.state.game === "janggi";
    const theme = BOARD_THEMES.includes(this.state.boardTheme) ? this.state.boardTheme : "wood";
    this.svg.setAttribute(
      "class", `board board-${this.state.game} theme-${theme} pieces-${this.pieceSet()}`);
    this.drawGrid(janggi);
    this.drawCoordinates(janggi);
    this.drawHighlights();
    this.pieceLayer = el("g", { class: "pieces" }, this.svg);
    for (const [square, piece] of Object.entries(this.state.pieces)) {
      this.drawPiece(square, piece, janggi);
    }
    if (Object.keys(this.state.pieces).length) this.hasDrawn = true;
    this.drawDests();
    this.shapeLayer = el("g", { class: "shapes" }, this.svg);
    this.drawShapes();
    if (this.anim) this.drawAnimation();
  }

  drawGrid(janggi) {
    el("rect", {
      class: "board-wood", x: 0, y: 0, width: WIDTH, height: HEIGHT, rx: 18,
    }, this.svg);
    const grid = el("g", { class: "grid" }, this.svg);
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
      this.drawRiver();
      this.drawMarkers(grid);
    }
  }

  drawRiver() {
    const y = MARGIN + 4.5 * STEP;
    const river = el("g", { class: "river" }, this.svg);
    const words = [["楚", "河"], ["漢", "界"]];
    const xs = [[MARGIN + 1.2 * STEP, MARGIN + 2.3 * STEP], [MARGIN + 5.7 * STEP, MARGIN + 6.8 * STEP]];
    words.forEach((pair, side) => {
      pair.forEach((ch, i) => {
        const text = el("text", { x: xs[side][i], y, class: "river-text" }, river);
        text.textContent = ch;
      });
    });
  }

  // The small crosses where cannons and soldiers start.
  drawMarkers(grid) {
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

  drawCoordinates(janggi) {
    const g = el("g", { class: "coords" }, this.svg);
    const put = (x, y, label) => {
      const text = el("text", { x, y }, g);
      text.textContent = label;
    };
    // Players who do not read the characters get the ICCS letters and digits.
    const letters = this.pieceSet() !== "chinese";
    for (let col = 0; col < 9; col++) {
      const file = this.state.flipped ? 8 - col : col;
      const x = MARGIN + col * STEP;
      if (letters) {
        put(x, HEIGHT - 30, FILES[file]);
      } else if (janggi) {
        // Korean (GIB) files run 1-9 from the left of the player at the bottom.
        put(x, HEIGHT - 30, String(col + 1));
      } else {
        // Each side counts its files from its own right: the bottom player's 一..九, the top's 1..9.
        const bottomFirst = !this.state.flipped;
        const bottom = "九八七六五四三二一"[col];
        const top = String(col + 1);
        put(x, HEIGHT - 30, bottomFirst ? bottom : "９８７６５４３２１"[col]);
        put(x, 30, bottomFirst ? top : "一二三四五六七八九"[col]);
      }
    }
    if (letters || janggi) {
      for (let row = 0; row < 10; row++) {
        const rank = this.state.flipped ? row : 9 - row;
        const label = letters ? String(rank) : String((row + 1) % 10);
        put(30, MARGIN + row * STEP, label);
        put(WIDTH - 30, MARGIN + row * STEP, label);
      }
    }
  }

  drawHighlights() {
    const g = el("g", { class: "highlights" }, this.svg);
    const box = (square, cls) => {
      const [x, y] = this.point(square);
      return el("rect", { class: cls, x: x - 48, y: y - 48, width: 96, height: 96, rx: 10 }, g);
    };
    if (this.state.lastMove) {
      const [from, to] = this.state.lastMove;
      box(from, "last-move");
      if (to !== from) box(to, "last-move");
    }
    if (this.premove) {
      for (const square of this.premove) box(square, "premove").setAttribute("data-square", square);
    }
    if (this.selected) box(this.selected, this.movable() === "premove" ? "selected premove-selected" : "selected");
    const glow = (square, cls) => {
      const [x, y] = this.point(square);
      el("circle", { class: cls, cx: x, cy: y, r: 54 }, g);
    };
    if (this.state.check) glow(this.state.check, "check");
    for (const square of this.state.bikjang || []) glow(square, "bikjang");
  }

  drawPiece(square, piece, janggi, parent = this.pieceLayer) {
    const [x, y] = this.point(square);
    const side = janggi ? (piece.first ? "cho" : "han") : (piece.first ? "red" : "black");
    const g = el("g", {
      class: `piece piece-${side} piece-${piece.kind}`,
      transform: `translate(${x} ${y})`,
      "data-square": square,
      "data-piece": piece.letter,
    }, parent);
    const title = el("title", {}, g);
    title.textContent = this.hooks.describePiece ? this.hooks.describePiece(piece) : piece.kind;
    const radius = janggi ? JANGGI_RADIUS[piece.kind] || XIANGQI_RADIUS : XIANGQI_RADIUS;
    if (janggi) {
      el("polygon", { class: "piece-body", points: octagon(radius) }, g);
      el("polygon", { class: "piece-rim", points: octagon(radius - 5) }, g);
    } else {
      el("circle", { class: "piece-shadow", cx: 2, cy: 4, r: radius }, g);
      el("circle", { class: "piece-body", r: radius }, g);
      el("circle", { class: "piece-rim", r: radius - 6 }, g);
    }
    const set = this.pieceSet();
    if (set === "pictures") {
      drawPicture(g, piece.kind, radius);
    } else {
      const letters = set === "letters";
      const label = letters ? pieceLetter(piece.kind) : pieceCharacter(this.state.game, piece.kind, piece.first);
      const text = el("text", {
        class: letters ? "piece-label piece-letter" : "piece-label",
        "font-size": Math.round(radius * (letters ? 1.05 : 1.2)),
      }, g);
      text.textContent = label;
    }
    if (this.movableDests(square).length) g.classList.add(this.state.interactive ? "movable" : "premovable");
    return g;
  }

  drawDests() {
    if (!this.selected) return;
    const premove = this.movable() === "premove";
    const g = el("g", { class: premove ? "dests premove-dests" : "dests" }, this.svg);
    for (const square of this.movableDests(this.selected)) {
      const [x, y] = this.point(square);
      const kind = premove ? "premove-dest" : "dest";
      if (this.state.pieces[square] && square !== this.selected) {
        el("circle", { class: `${kind} ${kind}-capture`, cx: x, cy: y, r: 46, "data-square": square }, g);
      } else {
        el("circle", { class: kind, cx: x, cy: y, r: 14, "data-square": square }, g);
      }
    }
  }

  // ---- shapes: the player's arrows and circles, the page's (engine) ones, the hint ----

  /** The page's shapes, the analysis hint among them, then the player's own on top. */
  allShapes() {
    const auto = this.autoShapes.map((shape) => ({ ...shape, owner: "auto" }));
    if (this.state.hint) {
      const [orig, dest] = this.state.hint;
      auto.push({ orig, dest, brush: "engine", owner: "auto", hint: true });
    }
    return [...auto, ...this.userShapes.map((shape) => ({ ...shape, owner: "user" }))];
  }

  renderShapes() {
    if (!this.shapeLayer) return;
    this.shapeLayer.replaceChildren();
    this.drawShapes();
  }

  drawShapes() {
    for (const shape of this.allShapes()) this.drawShape(shape, this.shapeLayer);
    if (this.drawing) {
      const preview = this.drawShape(
        { orig: this.drawing.orig, dest: this.drawing.dest, brush: this.drawing.brush },
        this.shapeLayer);
      if (preview) preview.setAttribute("class", `shape-preview brush-${this.drawing.brush}`);
    }
  }

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

  /** A shape drawn again is taken off; drawn again in another colour, it changes colour. */
  toggleShape(shape) {
    const index = this.userShapes.findIndex((other) => sameShape(other, shape));
    if (index < 0) {
      this.userShapes.push(shape);
    } else if (this.userShapes[index].brush === shape.brush) {
      this.userShapes.splice(index, 1);
    } else {
      this.userShapes[index] = shape;
    }
  }

  // ---- animation: the moved piece slides, a captured one fades ----

  animationsOn() {
    return this.state.animation !== false && !reducedMotion();
  }

  planAnimation(before, beforePly, beforeGame) {
    const dropped = this.dropped;
    this.dropped = null;
    this.anim = null;
    if (!this.hasDrawn || !this.animationsOn() || beforeGame !== this.state.game) return;
    const ply = this.state.ply;
    if (typeof ply === "number" && typeof beforePly === "number" && Math.abs(ply - beforePly) > 1) return;
    const move = singleMove(before, this.state.pieces);
    if (!move) return;
    // A piece the player dropped on its square is there already.
    if (dropped && dropped[0] === move.from && dropped[1] === move.to) return;
    this.anim = { ...move, start: performance.now() };
    if (!this.frame) this.frame = requestAnimationFrame(() => this.stepAnimation());
  }

  /** After a render while a move is animated: the captured piece drawn again to fade out,
   * and everything put where the animation has got to. */
  drawAnimation() {
    const anim = this.anim;
    if (anim.captured) {
      const ghost = this.drawPiece(anim.to, anim.captured, this.state.game === "janggi");
      ghost.classList.remove("piece", "movable", "premovable"); // not a piece to find or pick
      ghost.classList.add("piece-ghost");
      ghost.removeAttribute("data-square");
      this.pieceLayer.insertBefore(ghost, this.pieceLayer.firstChild);
    }
    const mover = this.pieceLayer.querySelector(`.piece[data-square="${anim.to}"]`);
    if (mover) this.pieceLayer.appendChild(mover); // over the captured piece
    this.applyAnimation();
  }

  applyAnimation() {
    const anim = this.anim;
    if (!anim) return;
    const elapsed = (performance.now() - anim.start) / ANIMATION_MS;
    const done = elapsed >= 1;
    const t = done ? 1 : 1 - (1 - elapsed) ** 3; // fast start, soft landing
    const mover = this.pieceLayer.querySelector(`.piece[data-square="${anim.to}"]`);
    if (mover && !(this.drag && this.drag.node === mover)) {
      const [x1, y1] = this.point(anim.from);
      const [x2, y2] = this.point(anim.to);
      const x = x1 + (x2 - x1) * t;
      const y = y1 + (y2 - y1) * t;
      mover.setAttribute("transform", `translate(${x.toFixed(1)} ${y.toFixed(1)})`);
    }
    const ghost = this.pieceLayer.querySelector(".piece-ghost");
    if (ghost) {
      if (done) ghost.remove();
      else ghost.setAttribute("opacity", (1 - t).toFixed(3));
    }
    for (const square of anim.appeared) {
      const node = this.pieceLayer.querySelector(`.piece[data-square="${square}"]`);
      if (!node) continue;
      if (done) node.removeAttribute("opacity");
      else node.setAttribute("opacity", t.toFixed(3));
    }
    if (done) this.anim = null;
  }

  stepAnimation() {
    this.frame = null;
    if (!this.anim) return;
    this.applyAnimation();
    if (this.anim) this.frame = requestAnimationFrame(() => this.stepAnimation());
  }

  // ---- input ----

  select(square) {
    this.selected = square;
    this.locked = Boolean(square && this.state.touchMove && this.movable() === "move");
    this.render();
    if (this.hooks.onSelect) this.hooks.onSelect(square);
  }

  tryMove(from, to) {
    if (!this.movableDests(from).includes(to)) return false;
    this.selected = null;
    this.locked = false;
    if (this.movable() === "premove") {
      this.premove = [from, to];
      this.render();
      if (this.hooks.onPremove) this.hooks.onPremove(from, to);
      return true;
    }
    if (this.hooks.onMove) this.hooks.onMove(from, to);
    return true;
  }

  onPointerDown(event) {
    if (event.button === 2) {
      this.startDrawing(event);
      return;
    }
    if (event.button > 0) return;
    // A left click wipes the player's arrows and circles, as on lichess.
    const hadShapes = this.userShapes.length > 0;
    this.userShapes = [];
    const mode = this.movable();
    const square = mode ? this.squareAt(event) : null;
    if (!square) {
      const hadPremove = Boolean(this.premove || (mode === "premove" && this.selected));
      if (hadPremove) {
        this.selected = null;
        this.cancelPremove();
      }
      if (hadShapes || hadPremove) this.render();
      return;
    }
    event.preventDefault();
    if (this.selected && square !== this.selected && this.movableDests(this.selected).includes(square)) {
      this.tryMove(this.selected, square);
      return;
    }
    if (this.premove) this.cancelPremove(); // picking again replaces it; elsewhere, cancels it
    if (this.movableDests(square).length) {
      if (this.locked && square !== this.selected) return; // touch-move: keep the picked piece
      if (square !== this.selected) this.select(square);
      else if (hadShapes) this.render();
      const start = this.svgPoint(event);
      const node = this.pieceLayer.querySelector(`[data-square="${square}"]`);
      this.drag = { from: square, start, node, moved: false, pointer: event.pointerId };
      this.svg.setPointerCapture(event.pointerId);
      return;
    }
    if (!this.locked && this.selected) this.select(null);
    else this.render();
  }

  /** The right button: a press starts an arrow (or, let go on the same point, a circle),
   * and cancels a premove and a picked piece. */
  startDrawing(event) {
    const square = this.squareAt(event);
    event.preventDefault();
    if (this.drag) this.cancelDrag();
    const cancelled = Boolean(this.premove) || (this.selected && !this.locked);
    this.cancelPremove();
    if (!this.locked) this.selected = null;
    if (!square) {
      if (cancelled) this.render();
      return;
    }
    this.drawing = { orig: square, dest: null, brush: brushOf(event), pointer: event.pointerId };
    this.svg.setPointerCapture(event.pointerId);
    if (cancelled) this.render();
    else this.renderShapes();
  }

  onPointerMove(event) {
    if (this.drawing && event.pointerId === this.drawing.pointer) {
      const square = this.squareAt(event);
      const dest = square && square !== this.drawing.orig ? square : null;
      if (dest !== this.drawing.dest) {
        this.drawing.dest = dest;
        this.renderShapes();
      }
      return;
    }
    if (!this.drag || event.pointerId !== this.drag.pointer) return;
    const pt = this.svgPoint(event);
    const dx = pt.x - this.drag.start.x;
    const dy = pt.y - this.drag.start.y;
    if (!this.drag.moved && Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
    this.drag.moved = true;
    const [x, y] = this.point(this.drag.from);
    if (this.drag.node) {
      this.drag.node.setAttribute("transform", `translate(${x + dx} ${y + dy})`);
      this.drag.node.classList.add("dragging");
      this.pieceLayer.appendChild(this.drag.node); // on top of the others
    }
  }

  onPointerUp(event) {
    if (this.drawing && event.pointerId === this.drawing.pointer && event.button === 2) {
      const { orig, brush } = this.drawing;
      const square = this.squareAt(event);
      this.drawing = null;
      if (square) this.toggleShape(square === orig ? { orig, brush } : { orig, dest: square, brush });
      this.renderShapes();
      return;
    }
    if (!this.drag || event.pointerId !== this.drag.pointer) return;
    const drag = this.drag;
    this.drag = null;
    if (!drag.moved) return; // a click: the piece stays picked, the next click moves it
    const square = this.squareAt(event);
    if (square && square !== drag.from && this.movableDests(drag.from).includes(square)) {
      if (this.movable() === "move") this.dropped = [drag.from, square];
      this.tryMove(drag.from, square);
    } else {
      this.render();
    }
  }

  cancelDrag() {
    if (this.drawing) {
      this.drawing = null;
      this.renderShapes();
    }
    if (this.drag) {
      this.drag = null;
      this.render();
    }
  }
}

export const BOARD_SIZE = { width: WIDTH, height: HEIGHT };
