// The board in SVG: lines, river, palaces, pieces, highlights, and the pointer input
// (click-click and drag-drop). No rules here: which pieces may be picked and where they may
// go come from the server's state message, as `dests` ({"h2": ["h9", "e2", ...], ...}).

const SVG_NS = "http://www.w3.org/2000/svg";
const STEP = 100; // distance between two lines
const MARGIN = 100; // room around the grid for the coordinates
const WIDTH = 8 * STEP + 2 * MARGIN;
const HEIGHT = 9 * STEP + 2 * MARGIN;
const FILES = "abcdefghi";
const DRAG_THRESHOLD = 6; // board units a press must travel to become a drag

// FEN letters to piece kinds (the project writes the elephant b and the horse n; WXF's e and h
// are read too).
const KIND_OF_LETTER = {
  k: "king", a: "advisor", b: "elephant", e: "elephant", n: "horse", h: "horse",
  r: "rook", c: "cannon", p: "pawn",
};

// Characters on the pieces: [first mover (red / Cho), second mover (black / Han)].
const CHARACTERS = {
  xiangqi: {
    king: ["帥", "將"], advisor: ["仕", "士"], elephant: ["相", "象"], horse: ["傌", "馬"],
    rook: ["俥", "車"], cannon: ["炮", "砲"], pawn: ["兵", "卒"],
  },
  janggi: {
    king: ["楚", "漢"], advisor: ["士", "士"], elephant: ["象", "象"], horse: ["馬", "馬"],
    rook: ["車", "車"], cannon: ["包", "包"], pawn: ["卒", "兵"],
  },
};
// Letters for newcomers: the WXF letters the notation uses.
const LETTERS = {
  king: "K", advisor: "A", elephant: "E", horse: "H", rook: "R", cannon: "C", pawn: "P",
};
// Janggi pieces come in three sizes: the general biggest, guards and soldiers smallest.
const JANGGI_RADIUS = {
  king: 47, advisor: 33, pawn: 33, elephant: 40, horse: 40, rook: 40, cannon: 40,
};
const XIANGQI_RADIUS = 44;

/** Parse the placement field of a FEN into {square: {kind, first, letter}}. */
export function parsePlacement(fen) {
  const placement = fen.trim().split(/\s+/)[0];
  const rows = placement.split("/");
  const pieces = {};
  rows.forEach((row, index) => {
    const rank = 9 - index;
    let file = 0;
    for (const ch of row) {
      if (ch >= "0" && ch <= "9") {
        file += Number(ch);
        continue;
      }
      const kind = KIND_OF_LETTER[ch.toLowerCase()];
      if (kind && file < 9) {
        pieces[FILES[file] + rank] = { kind, first: ch === ch.toUpperCase(), letter: ch };
      }
      file += 1;
    }
  });
  return pieces;
}

export function pieceCharacter(game, kind, first) {
  return CHARACTERS[game][kind][first ? 0 : 1];
}

export function pieceLetter(kind) {
  return LETTERS[kind];
}

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

export class BoardView {
  /**
   * @param {HTMLElement} container where the <svg> goes
   * @param {object} hooks onMove(from, to), describePiece(piece) -> tooltip text
   */
  constructor(container, hooks = {}) {
    this.hooks = hooks;
    this.state = {
      game: "xiangqi", pieces: {}, flipped: false, labels: "chinese", lastMove: null,
      check: null, bikjang: null, dests: null, interactive: false, touchMove: false, hint: null,
      coordinates: "traditional",
    };
    this.selected = null;
    this.locked = false; // touch-move: the picked piece must be moved
    this.drag = null;
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
   * the piece the player has picked. */
  update(changes) {
    const positionChanged = "pieces" in changes
      && placementKey(changes.pieces) !== placementKey(this.state.pieces);
    Object.assign(this.state, changes);
    if (positionChanged || !this.state.interactive) {
      this.selected = null;
      this.locked = false;
    }
    if (this.selected && !this.destsOf(this.selected).length) {
      this.selected = null;
      this.locked = false;
    }
    this.render();
  }

  destsOf(square) {
    return (this.state.dests && this.state.dests[square]) || [];
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

  render() {
    this.svg.replaceChildren();
    const janggi = this.state.game === "janggi";
    this.svg.setAttribute("class", `board board-${this.state.game}`);
    this.drawGrid(janggi);
    this.drawCoordinates(janggi);
    this.drawHighlights();
    this.pieceLayer = el("g", { class: "pieces" }, this.svg);
    for (const [square, piece] of Object.entries(this.state.pieces)) {
      this.drawPiece(square, piece, janggi);
    }
    this.drawDests();
    this.drawHint();
  }

  // The engine's best move, as an arrow over the pieces.
  drawHint() {
    if (!this.state.hint) return;
    const [from, to] = this.state.hint;
    const [x1, y1] = this.point(from);
    const [x2, y2] = this.point(to);
    const length = Math.hypot(x2 - x1, y2 - y1);
    if (!length) return;
    const ux = (x2 - x1) / length;
    const uy = (y2 - y1) / length;
    const g = el("g", { class: "hint" }, this.svg);
    const tipX = x2 - ux * 20;
    const tipY = y2 - uy * 20;
    el("line", { x1, y1, x2: tipX - ux * 20, y2: tipY - uy * 20 }, g);
    const back = [tipX - ux * 34, tipY - uy * 34];
    el("polygon", {
      points: [
        `${tipX},${tipY}`,
        `${back[0] - uy * 18},${back[1] + ux * 18}`,
        `${back[0] + uy * 18},${back[1] - ux * 18}`,
      ].join(" "),
    }, g);
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
    const letters = this.state.labels === "letters";
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
      el("rect", { class: cls, x: x - 48, y: y - 48, width: 96, height: 96, rx: 10 }, g);
    };
    if (this.state.lastMove) {
      const [from, to] = this.state.lastMove;
      box(from, "last-move");
      if (to !== from) box(to, "last-move");
    }
    if (this.selected) box(this.selected, "selected");
    const glow = (square, cls) => {
      const [x, y] = this.point(square);
      el("circle", { class: cls, cx: x, cy: y, r: 54 }, g);
    };
    if (this.state.check) glow(this.state.check, "check");
    for (const square of this.state.bikjang || []) glow(square, "bikjang");
  }

  drawPiece(square, piece, janggi) {
    const [x, y] = this.point(square);
    const side = janggi ? (piece.first ? "cho" : "han") : (piece.first ? "red" : "black");
    const g = el("g", {
      class: `piece piece-${side} piece-${piece.kind}`,
      transform: `translate(${x} ${y})`,
      "data-square": square,
      "data-piece": piece.letter,
    }, this.pieceLayer);
    const title = el("title", {}, g);
    title.textContent = this.hooks.describePiece ? this.hooks.describePiece(piece) : piece.kind;
    if (janggi) {
      const r = JANGGI_RADIUS[piece.kind];
      el("polygon", { class: "piece-body", points: octagon(r) }, g);
      el("polygon", { class: "piece-rim", points: octagon(r - 5) }, g);
    } else {
      el("circle", { class: "piece-shadow", cx: 2, cy: 4, r: XIANGQI_RADIUS }, g);
      el("circle", { class: "piece-body", r: XIANGQI_RADIUS }, g);
      el("circle", { class: "piece-rim", r: XIANGQI_RADIUS - 6 }, g);
    }
    const letters = this.state.labels === "letters";
    const label = letters ? LETTERS[piece.kind] : pieceCharacter(this.state.game, piece.kind, piece.first);
    const radius = janggi ? JANGGI_RADIUS[piece.kind] : XIANGQI_RADIUS;
    const text = el("text", {
      class: letters ? "piece-label piece-letter" : "piece-label",
      "font-size": Math.round(radius * (letters ? 1.05 : 1.2)),
    }, g);
    text.textContent = label;
    if (this.state.interactive && this.destsOf(square).length) g.classList.add("movable");
    return g;
  }

  drawDests() {
    if (!this.selected) return;
    const g = el("g", { class: "dests" }, this.svg);
    for (const square of this.destsOf(this.selected)) {
      const [x, y] = this.point(square);
      if (this.state.pieces[square] && square !== this.selected) {
        el("circle", { class: "dest dest-capture", cx: x, cy: y, r: 46, "data-square": square }, g);
      } else {
        el("circle", { class: "dest", cx: x, cy: y, r: 14, "data-square": square }, g);
      }
    }
  }

  // ---- input ----

  select(square) {
    this.selected = square;
    this.locked = Boolean(square && this.state.touchMove);
    this.render();
    if (this.hooks.onSelect) this.hooks.onSelect(square);
  }

  tryMove(from, to) {
    if (!this.destsOf(from).includes(to)) return false;
    this.selected = null;
    this.locked = false;
    if (this.hooks.onMove) this.hooks.onMove(from, to);
    return true;
  }

  onPointerDown(event) {
    if (!this.state.interactive || event.button > 0) return;
    const square = this.squareAt(event);
    if (!square) return;
    event.preventDefault();
    if (this.selected && square !== this.selected && this.destsOf(this.selected).includes(square)) {
      this.tryMove(this.selected, square);
      return;
    }
    if (this.destsOf(square).length) {
      if (this.locked && square !== this.selected) return; // touch-move: keep the picked piece
      if (square !== this.selected) this.select(square);
      const start = this.svgPoint(event);
      const node = this.pieceLayer.querySelector(`[data-square="${square}"]`);
      this.drag = { from: square, start, node, moved: false, pointer: event.pointerId };
      this.svg.setPointerCapture(event.pointerId);
      return;
    }
    if (!this.locked && this.selected) this.select(null);
  }

  onPointerMove(event) {
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
    if (!this.drag || event.pointerId !== this.drag.pointer) return;
    const drag = this.drag;
    this.drag = null;
    if (!drag.moved) return; // a click: the piece stays picked, the next click moves it
    const square = this.squareAt(event);
    if (!(square && square !== drag.from && this.tryMove(drag.from, square))) this.render();
  }

  cancelDrag() {
    if (this.drag) {
      this.drag = null;
      this.render();
    }
  }
}

export const BOARD_SIZE = { width: WIDTH, height: HEIGHT };
