// @ts-check
// The puzzle page, "/puzzles" (the next puzzle) and "/puzzles/{id}": find the moves that mate
// against the engine's best defence. The server judges every move (a move off the stored
// solution is checked by a search); this page shows the board, a hint on request (the piece,
// then the move), the solution after a wrong move, and keeps the streak in localStorage.

import * as api from "./api.js";
import { BoardView, parsePlacement, pieceCharacter } from "./board.js";
import { $, clear, show, toast } from "./dom.js";
import { describePiece, notationFor, sideName, t, translatePage } from "./i18n.js";
import { syncThemeSettings, themeOf } from "./settings.js";

const STORE_KEY = "chuhan.puzzles";
const REPLY_DELAY_MS = 350; // the defence is shown a moment after the solver's move
const SOLUTION_STEP_MS = 700;

/** @typedef {import("./protocol.js").Puzzle} Puzzle */
/** @typedef {import("./pieces.js").Placement} Placement */
/**
 * What this browser keeps of the puzzles.
 * @typedef {{streak: number, best: number, solved: string[], game: string | null}} PuzzleRecord
 */
/** A sentence to show: its key and parameters.
 * @typedef {[string, Record<string, unknown>]} Sentence */

/** The streak, the best streak, the puzzles solved and the game of the next puzzles (what
 * was kept is checked field by field).
 * @returns {PuzzleRecord} */
export function loadRecord() {
  let record = null;
  try {
    record = JSON.parse(localStorage.getItem(STORE_KEY) || "null");
  } catch {
    record = null;
  }
  const fresh = { streak: 0, best: 0, solved: [], game: null };
  if (!record || typeof record !== "object") return fresh;
  return {
    streak: Number.isInteger(record.streak) && record.streak > 0 ? record.streak : 0,
    best: Number.isInteger(record.best) && record.best > 0 ? record.best : 0,
    solved: Array.isArray(record.solved) ? record.solved.filter((/** @type {unknown} */ id) => typeof id === "string") : [],
    game: record.game === "janggi" || record.game === "xiangqi" ? record.game : null,
  };
}

/** @param {PuzzleRecord} record */
function saveRecord(record) {
  try {
    localStorage.setItem(STORE_KEY, JSON.stringify(record));
  } catch {
    // (private windows: the streak lasts for this page)
  }
}

/** "Red to move: mate in 3" for a puzzle as the server describes it.
 * @param {Pick<Puzzle, "game" | "turn" | "mate_in">} puzzle @returns {string} */
export function puzzleTask(puzzle) {
  return t("puzzleTask", { side: sideName(puzzle.game, puzzle.turn === "first"), n: puzzle.mate_in });
}

/** @param {import("./protocol.js").PuzzleSource} source @returns {string} */
function describeSource(source) {
  if (source.mined) {
    return t("puzzleMined", { game: source.game, ply: source.ply });
  }
  const name = source.name ? ` «${source.name}»` : "";
  return `${source.collection} · ${source.case}${name}`;
}

/** The placement after `move` (ICCS): the piece goes from its square to the other; a pass
 * (the king's square twice) changes nothing. No rules: the server said it is legal.
 * @param {Placement} pieces @param {string} move @returns {Placement} */
function played(pieces, move) {
  const from = move.slice(0, 2);
  const to = move.slice(2, 4);
  if (from === to || !pieces[from]) return pieces;
  const next = { ...pieces };
  next[to] = next[from];
  delete next[from];
  return next;
}

/** A sentence to show, as its key and parameters (so a change of language rewrites it).
 * @param {string} key @param {Record<string, unknown>} [params] @returns {Sentence} */
function say(key, params = {}) {
  return [key, params];
}

/** @param {number} ms @returns {Promise<void>} */
function pause(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class PuzzleView {
  /** @param {import("./settings.js").Settings} settings the player's, read live */
  constructor(settings) {
    this.settings = settings;
    /** @type {Puzzle | null} */
    this.puzzle = null;
    this.record = loadRecord();
    /** @type {{version: number, status: string, moves: string[], replayed?: boolean}} the
     * attempt (its status: loading, missing, playing, checking, solved, failed) */
    this.state = { version: 0, status: "loading", moves: [] };
    /** @type {Placement[]} the placement after each ply of the attempt, the start first */
    this.positions = [];
    /** @type {import("./protocol.js").Dests | null} */
    this.legal = null;
    /** @type {[string, string] | null} */
    this.lastMove = null;
    this.hintStage = 0;
    /** @type {string | null} */
    this.hintMove = null;
    this.usedHint = false;
    this.failed = false; // a wrong move or the solution shown: no streak for this one
    /** @type {Sentence | null} written in the language of the moment */
    this.feedback = null;
    /** @type {string[] | null} */
    this.solution = null;
    this.replaying = 0; // counts solution replays, so an old one stops
    this.board = new BoardView($("puzzle-board"), {
      onMove: (from, to) => this.move(from + to),
      describePiece: (piece) => describePiece(
        this.game(), piece, pieceCharacter(this.game(), piece.kind, piece.first)),
    });
    $("puzzle-hint").addEventListener("click", () => this.hint());
    $("puzzle-show").addEventListener("click", () => this.giveUp());
    $("puzzle-retry").addEventListener("click", () => this.retry());
    $("puzzle-next").addEventListener("click", () => this.next());
    $("puzzle-game").addEventListener("change", () => {
      const checked = /** @type {HTMLInputElement | null} */ (document.querySelector('input[name="puzzle-game"]:checked'));
      this.record.game = checked ? checked.value : null;
      saveRecord(this.record);
    });
  }

  game() {
    return this.puzzle ? this.puzzle.game : "xiangqi";
  }

  flipped() {
    return Boolean(this.puzzle && this.puzzle.turn === "second");
  }

  /** @param {string} status */
  setStatus(status) {
    this.state = { ...this.state, status, version: this.state.version + 1 };
  }

  /** @param {string | null} id */
  async open(id) {
    show($("puzzle"), true);
    try {
      if (!id) id = await this.pick(null);
      this.puzzle = await api.puzzle(id);
    } catch (err) {
      this.feedback = say("error", { message: /** @type {Error} */ (err).message });
      this.setStatus("missing");
      this.render();
      return;
    }
    syncThemeSettings(this.settings, this.puzzle.game); // the settings edit this game's look
    if (location.pathname !== `/puzzles/${id}`) history.replaceState(null, "", `/puzzles/${encodeURIComponent(id)}`);
    this.start();
  }

  start() {
    if (!this.puzzle) return; // (open() and retry come with one)
    this.replaying += 1;
    this.positions = [parsePlacement(this.puzzle.fen, this.game())];
    this.legal = this.puzzle.legal;
    this.lastMove = null;
    this.hintStage = 0;
    this.hintMove = null;
    this.solution = null;
    this.state = { ...this.state, moves: [] };
    this.feedback = say("puzzleYourTurn");
    this.setStatus("playing");
    this.render();
  }

  pieces() {
    return this.positions[this.positions.length - 1];
  }

  /** @param {string} move */
  async move(move) {
    if (this.state.status !== "playing" || !this.puzzle) return;
    const before = this.state.moves;
    this.positions.push(played(this.pieces(), move));
    this.lastMove = [move.slice(0, 2), move.slice(2, 4)];
    this.hintStage = 0;
    this.hintMove = null;
    this.feedback = say("puzzleChecking");
    this.setStatus("checking");
    this.render();
    let answer;
    try {
      answer = await api.puzzleMove(this.puzzle.id, before, move);
    } catch (err) {
      this.positions.pop(); // not judged: the player may try again
      this.lastMove = null;
      this.feedback = say("error", { message: /** @type {Error} */ (err).message });
      this.setStatus("playing");
      this.render();
      return;
    }
    if (answer.result === "solved") {
      this.state = { ...this.state, moves: answer.moves };
      this.solved();
    } else if (answer.result === "right") {
      this.feedback = say("puzzleRight");
      this.render();
      await pause(REPLY_DELAY_MS);
      this.positions.push(played(this.pieces(), answer.reply));
      this.lastMove = [answer.reply.slice(0, 2), answer.reply.slice(2, 4)];
      this.legal = answer.legal;
      this.state = { ...this.state, moves: answer.moves };
      this.feedback = say("puzzleRightGoOn");
      this.setStatus("playing");
      this.render();
    } else {
      this.positions.pop();
      this.fail(say("puzzleWrong"), answer.solution, answer.notation);
    }
  }

  solved() {
    if (!this.puzzle) return; // (only a move of a puzzle solves it)
    const record = this.record;
    if (!record.solved.includes(this.puzzle.id)) record.solved.push(this.puzzle.id);
    if (this.failed) {
      this.feedback = say("puzzleSolvedAfterFailing");
    } else if (this.usedHint) {
      this.feedback = say("puzzleSolvedWithHint");
    } else {
      record.streak += 1;
      record.best = Math.max(record.best, record.streak);
      this.feedback = say("puzzleSolved");
    }
    saveRecord(record);
    this.setStatus("solved");
    this.render();
  }

  /** A wrong move, or the solution asked for: the streak ends, and the solution plays out
   * on the board from the position the solver was in.
   * @param {Sentence} message @param {string[] | undefined} solution
   * @param {import("./protocol.js").LineNotation | undefined} notation */
  fail(message, solution, notation) {
    this.failed = true;
    this.record.streak = 0;
    saveRecord(this.record);
    this.feedback = message;
    this.solution = solution || [];
    this.solutionText = notation || { iccs: this.solution };
    this.setStatus("failed");
    this.render();
    this.replaySolution();
  }

  async replaySolution() {
    if (!this.solution) return; // (fail() sets it first)
    const run = ++this.replaying;
    let pieces = this.pieces();
    for (const move of this.solution) {
      await pause(SOLUTION_STEP_MS);
      if (run !== this.replaying) return;
      pieces = played(pieces, move);
      this.positions.push(pieces);
      this.lastMove = [move.slice(0, 2), move.slice(2, 4)];
      this.render();
    }
    if (run === this.replaying) {
      this.state = { ...this.state, version: this.state.version + 1, replayed: true };
    }
  }

  async hint() {
    if (this.state.status !== "playing" || !this.puzzle) return;
    if (!this.hintMove) {
      try {
        const answer = await api.puzzleHint(this.puzzle.id, this.state.moves);
        this.hintMove = answer.move;
      } catch (err) {
        toast(t("error", { message: /** @type {Error} */ (err).message }));
        return;
      }
    }
    if (!this.hintMove) return;
    this.usedHint = true;
    this.hintStage = Math.min(2, this.hintStage + 1);
    this.feedback = say(this.hintStage === 1 ? "hintPiece" : "hintMove");
    this.setStatus("playing");
    this.render();
    if (this.hintStage === 1) this.board.select(this.hintMove.slice(0, 2));
  }

  async giveUp() {
    if (this.state.status !== "playing" || !this.puzzle) return;
    let answer;
    try {
      answer = await api.puzzleSolution(this.puzzle.id, this.state.moves);
    } catch (err) {
      toast(t("error", { message: /** @type {Error} */ (err).message }));
      return;
    }
    this.fail(say("puzzleGaveUp"), answer.line, answer.notation);
  }

  retry() {
    this.start();
  }

  /** The id of a puzzle of the chosen game not solved here yet (any other if all are).
   * @param {string | null} current @returns {Promise<string>} */
  async pick(current) {
    const { puzzles } = await api.puzzleList();
    const game = this.record.game || (this.puzzle && this.puzzle.game);
    const ofGame = puzzles.filter((p) => !game || p.game === game);
    const candidates = ofGame.length ? ofGame : puzzles;
    const unsolved = candidates.filter((p) => !this.record.solved.includes(p.id) && p.id !== current);
    const choices = unsolved.length ? unsolved : candidates.filter((p) => p.id !== current);
    return choices[Math.floor(Math.random() * choices.length)].id;
  }

  async next() {
    try {
      const id = await this.pick(this.puzzle ? this.puzzle.id : null);
      location.assign(`/puzzles/${encodeURIComponent(id)}`);
    } catch (err) {
      toast(t("error", { message: /** @type {Error} */ (err).message }));
    }
  }

  render() {
    translatePage();
    const puzzle = this.puzzle;
    const status = this.state.status;
    const record = this.record;
    $("puzzle-streak").textContent = String(record.streak);
    $("puzzle-best").textContent = record.best ? t("bestStreak", { n: record.best }) : "";
    $("puzzle-solved-count").textContent = t("puzzlesSolved", { n: record.solved.length });
    const gameInput = /** @type {HTMLInputElement | null} */ (
      document.querySelector(`input[name="puzzle-game"][value="${record.game || this.game()}"]`));
    if (gameInput) gameInput.checked = true;
    const feedback = $("puzzle-feedback");
    feedback.textContent = this.feedback ? t(...this.feedback) : "";
    feedback.className = `puzzle-feedback ${status}`;
    const solution = $("puzzle-solution");
    show(solution, Boolean(this.solution));
    if (this.solution && this.solutionText) { // (fail() sets both)
      const written = this.solutionText[notationFor(this.settings.notation, this.game())] || this.solution;
      solution.textContent = t("puzzleSolution", { moves: written.join(" ") || "—" });
      solution.dataset.iccs = this.solution.join(" ");
    } else {
      solution.textContent = "";
    }
    if (!puzzle) {
      $("puzzle-title").textContent = t("puzzles");
      for (const id of ["puzzle-hint", "puzzle-show", "puzzle-retry"]) show($(id), false);
      return;
    }
    document.body.classList.toggle("janggi", puzzle.game === "janggi");
    $("puzzle-title").textContent = t("puzzleTitle", { game: t(puzzle.game) });
    $("puzzle-task").textContent = puzzleTask(puzzle);
    $("puzzle-source").textContent = t("puzzleSource", { source: describeSource(puzzle.source) });
    const playing = status === "playing";
    show($("puzzle-hint"), playing || status === "checking");
    show($("puzzle-show"), playing || status === "checking");
    show($("puzzle-retry"), status === "failed" || status === "solved");
    $("puzzle-hint").disabled = !playing || this.hintStage >= 2;
    $("puzzle-show").disabled = !playing;
    const theme = themeOf(this.settings, puzzle.game);
    this.board.update({
      game: puzzle.game,
      pieces: this.pieces(),
      flipped: this.flipped(),
      pieceSet: theme.pieces,
      boardTheme: theme.board,
      animation: this.settings.animation,
      lastMove: this.lastMove,
      dests: playing ? this.legal : null,
      interactive: playing,
      touchMove: this.settings.touchMove,
      hint: playing && this.hintStage >= 2 && this.hintMove
        ? [this.hintMove.slice(0, 2), this.hintMove.slice(2, 4)] : null,
    });
  }
}

/** Open the puzzle page: `id` or, for "/puzzles", a puzzle not solved here yet.
 * @param {string | null} id @param {import("./settings.js").Settings} settings
 * @returns {PuzzleView} */
export function startPuzzles(id, settings) {
  const view = new PuzzleView(settings);
  clear($("puzzle-solution"));
  view.open(id);
  return view;
}
