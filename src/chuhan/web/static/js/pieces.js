// @ts-check
// The pieces by the server's names for them (chuhan.variants: `Variant.piece_name`): king,
// advisor (a janggi advisor is a guard), elephant, horse, chariot, cannon, soldier. One key
// for the board, the pictures, the characters, the letters and the hover texts; a FEN's
// letters are read into these names too.

/** @typedef {"xiangqi" | "janggi"} Game */
/** @typedef {"king" | "advisor" | "guard" | "elephant" | "horse" | "chariot" | "cannon" | "soldier"} PieceKind */
/**
 * A piece on the board: its kind, its side (`first`: red, Cho), and its FEN letter (upper
 * case for the first mover), which tells two pieces apart.
 * @typedef {{kind: PieceKind, first: boolean, letter: string}} Piece
 */
/** @typedef {Record<string, Piece>} Placement square ("e0") -> piece */

const FILES = "abcdefghi";

// FEN letters to piece kinds (the project writes the elephant b and the horse n; WXF's e and h
// are read too). Janggi's "a" is a guard.
/** @type {Record<string, PieceKind>} */
const KIND_OF_LETTER = {
  k: "king", a: "advisor", b: "elephant", e: "elephant", n: "horse", h: "horse",
  r: "chariot", c: "cannon", p: "soldier",
};
/** @type {Record<PieceKind, string>} the lower-case FEN letter of each kind */
const FEN_LETTERS = {
  king: "k", advisor: "a", guard: "a", elephant: "b", horse: "n", chariot: "r", cannon: "c",
  soldier: "p",
};

// Characters on the pieces: [first mover (red / Cho), second mover (black / Han)].
/** @type {Record<Game, Partial<Record<PieceKind, [string, string]>>>} */
const CHARACTERS = {
  xiangqi: {
    king: ["帥", "將"], advisor: ["仕", "士"], elephant: ["相", "象"], horse: ["傌", "馬"],
    chariot: ["俥", "車"], cannon: ["炮", "砲"], soldier: ["兵", "卒"],
  },
  janggi: {
    king: ["楚", "漢"], guard: ["士", "士"], elephant: ["象", "象"], horse: ["馬", "馬"],
    chariot: ["車", "車"], cannon: ["包", "包"], soldier: ["卒", "兵"],
  },
};
// Letters for newcomers: the WXF letters the notation uses.
/** @type {Record<PieceKind, string>} */
const LETTERS = {
  king: "K", advisor: "A", guard: "A", elephant: "E", horse: "H", chariot: "R", cannon: "C",
  soldier: "P",
};

/**
 * The kind a FEN letter stands for in `game`, or undefined for a letter that is no piece.
 * @param {Game} game
 * @param {string} letter either case
 * @returns {PieceKind | undefined}
 */
export function kindOfLetter(game, letter) {
  const kind = KIND_OF_LETTER[letter.toLowerCase()];
  return kind === "advisor" && game === "janggi" ? "guard" : kind;
}

/**
 * Whether the server's name for a piece is one this page draws.
 * @param {unknown} kind
 * @returns {kind is PieceKind}
 */
export function isPieceKind(kind) {
  return typeof kind === "string" && Object.prototype.hasOwnProperty.call(FEN_LETTERS, kind);
}

/**
 * The FEN letter of a piece: upper case for the first mover.
 * @param {PieceKind} kind
 * @param {boolean} first
 * @returns {string}
 */
export function fenLetter(kind, first) {
  const letter = FEN_LETTERS[kind];
  return first ? letter.toUpperCase() : letter;
}

/**
 * Parse the placement field of a FEN into {square: {kind, first, letter}}.
 * @param {string} fen
 * @param {Game} game whose names the pieces get (janggi's advisors are guards)
 * @returns {Placement}
 */
export function parsePlacement(fen, game) {
  const placement = fen.trim().split(/\s+/)[0];
  const rows = placement.split("/");
  /** @type {Placement} */
  const pieces = {};
  rows.forEach((row, index) => {
    const rank = 9 - index;
    let file = 0;
    for (const ch of row) {
      if (ch >= "0" && ch <= "9") {
        file += Number(ch);
        continue;
      }
      const kind = kindOfLetter(game, ch);
      if (kind && file < 9) {
        pieces[FILES[file] + rank] = { kind, first: ch === ch.toUpperCase(), letter: ch };
      }
      file += 1;
    }
  });
  return pieces;
}

/**
 * The character written on a piece.
 * @param {Game} game
 * @param {PieceKind} kind
 * @param {boolean} first
 * @returns {string}
 */
export function pieceCharacter(game, kind, first) {
  const pair = CHARACTERS[game][kind];
  return pair ? pair[first ? 0 : 1] : "";
}

/**
 * The WXF letter of a piece kind.
 * @param {PieceKind} kind
 * @returns {string}
 */
export function pieceLetter(kind) {
  return LETTERS[kind];
}
