// @ts-check
// The analysis board (/analysis): any position (a finished game's ply, a FEN, the start),
// free moves that grow a move tree, the engine's lines streamed as it deepens, an evaluation
// bar and the best move's arrow, and a whole-game review. Every rule and notation comes
// from the server's /ws/analysis socket (docs/web-protocol.md); this module only shows them.
//
// The address: /analysis?variant=xiangqi&rules=asian&fen=...&moves=h2e2,h9g7&ply=1, or
// /analysis?game=ID&ply=N for a finished game (or an imported record), /analysis?master=ID&ply=N
// for a master game of the opening explorer (read-only: it is not stored as a game here).

import { BoardView, parsePlacement, pieceCharacter } from "./board.js";
import { $, make, show, toast } from "./dom.js";
import { ExplorerPanel, openingName } from "./explorer.js";
import { describePiece, language, notationFor, sideName, t, translatePage } from "./i18n.js";
import { MoveTree, renderTree } from "./move-tree.js";
import { Socket } from "./net.js";
import { MARK_GLYPHS, renderGraph, renderSummary } from "./review.js";
import { syncThemeSettings, themeOf } from "./settings.js";

const DEBOUNCE_MS = 120; // stepping through moves quickly asks the server once at the end
const PV_SHOWN = 12; // moves of each engine line shown

/** @typedef {import("./protocol.js").EngineLine} EngineLine */
/** @typedef {import("./protocol.js").PositionAnswer} PositionAnswer */
/** @typedef {import("./protocol.js").AnalysisMessage} AnalysisMessage */
/** @typedef {import("./protocol.js").ReviewDone} ReviewDone */
/** @typedef {import("./move-tree.js").TreeNode} TreeNode */

/** "+0.35" or "#3" / "#-3", from the first mover's (Red's, Cho's) side, as pychess shows it.
 * @param {EngineLine | null | undefined} line @returns {string} */
export function formatScore(line) {
  if (!line) return "";
  if (line.first_mate !== null && line.first_mate !== undefined) {
    return line.first_mate > 0 ? `#${line.first_mate}` : `#-${Math.abs(line.first_mate)}`;
  }
  if (line.first_cp === null || line.first_cp === undefined) return "";
  const pawns = line.first_cp / 100;
  return `${pawns >= 0 ? "+" : "−"}${Math.abs(pawns).toFixed(2)}`;
}

/** The first mover's chance of winning from an engine line (the bar's height).
 * @param {EngineLine | null} line @returns {number} */
function chanceOf(line) {
  if (!line) return 0.5;
  if (line.first_mate !== null && line.first_mate !== undefined) return line.first_mate > 0 ? 1 : 0;
  const cp = Math.max(-4000, Math.min(4000, line.first_cp || 0));
  return 1 / (1 + 10 ** (-cp / 400));
}

export class AnalysisBoard {
  /** @param {import("./settings.js").Settings} settings the player's, read live */
  constructor(settings) {
    this.settings = settings;
    const params = new URLSearchParams(location.search);
    this.params = params;
    this.gameId = params.get("game");
    this.masterId = this.gameId ? null : params.get("master");
    /** @type {import("./pieces.js").Game} */
    this.variant = params.get("variant") === "janggi" ? "janggi" : "xiangqi";
    this.rules = params.get("rules") || null;
    this.startFen = params.get("fen") || null;
    /** @type {import("./protocol.js").Side} */
    this.startTurn = "first";
    this.tree = new MoveTree();
    /** @type {TreeNode} */
    this.current = this.tree.root;
    /** @type {TreeNode[]} the finished game's moves, for the review's marks */
    this.gameNodes = [];
    /** @type {Partial<Record<string, string | null>> | null} the finished game's names */
    this.players = null;
    this.userFlip = false;
    this.loaded = false;
    this.engineOn = params.get("engine") !== "off";
    this.multipv = Math.max(1, Math.min(5, Number(params.get("multipv")) || 1));
    // The position request whose answer and lines are current, and the node it is about
    // (answers can cross: each goes to the node it was asked for).
    this.positionSeq = 0;
    /** @type {TreeNode | null} */
    this.positionNode = null;
    /** @type {Map<number | undefined, (answer: PositionAnswer) => void>} seq ->
     * callback(answer) for requests that add moves (an error may come without a seq) */
    this.pending = new Map();
    this.engineName = "";
    this.engineDone = false;
    /** @type {{plies: number, evaluations: import("./protocol.js").Evaluation[],
     *   judged: ReviewDone | null} | null} */
    this.review = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    this.board = new BoardView($("analysis-board"), {
      onMove: (from, to) => this.play([from + to]),
      describePiece: (piece) => describePiece(
        this.variant, piece, pieceCharacter(this.variant, piece.kind, piece.first)),
    });
    // The hello needs no field; after each welcome the board asks again for what it shows.
    this.socket = new Socket("/ws/analysis", {
      // (a message on this socket has the protocol's shape: protocol.js)
      onMessage: (message) => this.onMessage(/** @type {AnalysisMessage} */ (message)),
      onStatus: (status) => {
        if (status === "reconnecting" || status === "busy") this.setStatus(t("reconnecting"));
      },
    });
    this.explorer = new ExplorerPanel({
      onMove: (iccs) => this.play([iccs]),
      onGame: (game, source) => {
        // A game of this server opens as its own finished game; a master game read-only.
        const query = new URLSearchParams({ ply: String(game.ply ?? 0) });
        if (source === "site") query.set("game", game.origin);
        else query.set("master", String(game.id));
        location.href = `/analysis?${query}`;
      },
    });
    this.wire();
    this.socket.connect();
  }

  game() {
    return this.variant;
  }

  notation() {
    return notationFor(this.settings.notation, this.variant);
  }

  // ---- the server ----

  /** @param {AnalysisMessage} message */
  onMessage(message) {
    switch (message.type) {
      case "welcome":
        this.pending.clear(); // (a new connection numbers its requests from 1 again)
        this.engineName = message.engine || "";
        this.setStatus("");
        if (!this.loaded) this.load();
        else this.ask(this.current);
        break;
      case "game":
        this.onGame(message);
        break;
      case "position":
        this.onPosition(message);
        break;
      case "lines":
        if (message.seq === this.positionSeq) this.onLines(message);
        break;
      case "review_started":
      case "review":
      case "review_done":
        this.onReview(message);
        break;
      case "error":
        this.onError(message);
        break;
      default:
        break;
    }
  }

  /** The first answer: the finished game, or the position of the address. */
  load() {
    if (this.gameId) {
      this.socket.send("game", { game: this.gameId });
      return;
    }
    if (this.masterId) {
      this.loadMaster(this.masterId);
      return;
    }
    const moves = (this.params.get("moves") || "").split(/[\s,]+/).filter(Boolean);
    const seq = this.socket.send("position", {
      variant: this.variant, rules: this.rules, fen: this.startFen, moves, all_moves: true,
    });
    this.pending.set(seq, (answer) => this.start(answer, this.params.get("ply")));
  }

  /** A master game from the explorer's index: its moves from its start, its players.
   * @param {string} id */
  async loadMaster(id) {
    let game;
    try {
      const response = await fetch(`/api/explorer/games/${encodeURIComponent(id)}`);
      game = await response.json();
      if (!response.ok) throw new Error(game.error ? game.error.message : response.statusText);
    } catch (error) {
      this.showError(error instanceof Error ? error.message : String(error));
      this.masterId = null;
      const seq = this.socket.send("position", { variant: this.variant, moves: [], all_moves: true });
      this.pending.set(seq, (answer) => this.start(answer, null));
      return;
    }
    this.players = { first: game.red || null, second: game.black || null };
    $("an-master").textContent = [game.event, game.date, game.result,
      openingName(game.ecco_opening) || game.ecco, game.opening].filter(Boolean).join(" · ");
    show($("an-master"), true);
    const seq = this.socket.send("position", {
      variant: "xiangqi", fen: game.fen, moves: game.moves, all_moves: true,
    });
    this.pending.set(seq, (answer) => this.start(answer, this.params.get("ply")));
  }

  /** Set the tree from a whole line's answer and go to `ply` (default: its end).
   * @param {PositionAnswer} answer @param {string | number | null | undefined} ply */
  start(answer, ply) {
    this.loaded = true;
    this.variant = answer.variant;
    this.rules = answer.rules;
    this.startFen = answer.start_fen;
    this.startTurn = answer.start_fen.split(/\s+/)[1] === "b" ? "second" : "first";
    this.tree = new MoveTree();
    this.tree.root.fen = answer.start_fen;
    const end = this.tree.addLine(this.tree.root, answer.moves);
    if (end === this.tree.root) this.tree.root.position = answer;
    else end.position = answer;
    this.gameNodes = this.tree.path(end);
    $("an-variant").value = this.variant;
    const wanted = ply === null || ply === undefined || ply === "" ? null : Number(ply);
    const target = wanted === null || !Number.isFinite(wanted)
      ? end : (wanted <= 0 ? this.tree.root : this.gameNodes[Math.min(wanted, this.gameNodes.length) - 1]);
    this.goTo(target);
  }

  /** @param {Extract<AnalysisMessage, {type: "game"}>} message */
  onGame(message) {
    this.players = message.players;
    show($("review-card"), true);
    const line = (this.params.get("moves") || "").split(/[\s,]+/).filter(Boolean);
    this.start(message.position, line.length ? 0 : this.params.get("ply"));
    if (line.length) this.play(line); // a line of one's own from the game's start
  }

  /** @param {PositionAnswer} message */
  onPosition(message) {
    const callback = this.pending.get(message.seq);
    if (callback) {
      this.pending.delete(message.seq);
      callback(message);
      return;
    }
    if (message.seq !== this.positionSeq || !this.positionNode) return;
    this.positionNode.position = message;
    if (this.positionNode === this.current) this.render();
  }

  /** @param {import("./protocol.js").LinesMessage} message */
  onLines(message) {
    const node = this.positionNode;
    if (!node) return;
    const known = node.lines;
    // What was found before (an earlier visit, a first look) stays until the engine goes
    // deeper: the depth shown for a position never goes back.
    const shallower = known && known.lines.length === message.lines.length
      && known.depth > message.depth;
    if (shallower && !message.done) return;
    node.lines = shallower ? { ...known, done: true } : message;
    if (node !== this.current) return;
    this.engineDone = message.done;
    this.renderEngine();
    this.renderBoard();
  }

  /** @param {import("./protocol.js").ErrorMessage} message */
  onError(message) {
    const callback = this.pending.get(message.seq);
    if (callback) this.pending.delete(message.seq);
    if (message.code === "game_in_progress") {
      this.showError(t("analysisGameInProgress"), message.message);
      return;
    }
    if (!this.loaded && message.seq) {
      // The address's position cannot be read: say why, and start from the game's start.
      // The server's sentence (which move, which FEN) is English: other languages say it in
      // their own words, the sentence on hover.
      const own = `analysis_${message.code}`;
      const english = language() === "en" || t(own) === own;
      this.showError(english ? message.message : t(own), english ? "" : message.message);
      this.loaded = true;
      const seq = this.socket.send("position", { variant: this.variant, moves: [], all_moves: true });
      this.pending.set(seq, (answer) => this.start(answer, null));
      return;
    }
    if (message.code === "rate_limited" || message.code === "replayed_seq") return;
    toast(message.message);
  }

  /** @param {string} text @param {string} [title] */
  showError(text, title = "") {
    const node = $("an-error");
    node.textContent = text;
    node.title = title;
    show(node, true);
  }

  // ---- moving about ----

  /** Ask the server about the node's position (its dests, and the engine if on).
   * @param {TreeNode} node */
  ask(node) {
    const seq = this.socket.send("position", {
      variant: this.variant, rules: this.rules, fen: this.startFen, moves: this.tree.moves(node),
      engine: this.engineOn, multipv: this.multipv, longer: node.longer || 0,
      ...(node.deeperThan !== undefined ? { deeper_than: node.deeperThan } : {}),
    });
    if (seq) {
      this.positionSeq = seq;
      this.positionNode = node;
    }
    this.engineDone = false;
  }

  /** @param {TreeNode | undefined} node */
  goTo(node) {
    if (!node) return;
    this.current = node;
    clearTimeout(this.timer);
    this.remember();
    this.render();
    this.timer = setTimeout(() => this.ask(this.current), DEBOUNCE_MS);
  }

  /** Play moves from the current node (the board's move, an engine line's moves): known
   * ones are followed, new ones described by the server and added to the tree.
   * @param {string[]} iccsMoves */
  play(iccsMoves) {
    let node = this.current;
    const rest = [...iccsMoves];
    while (rest.length) {
      const child = node.children.find((c) => c.iccs === rest[0]);
      if (!child) break;
      node = child;
      rest.shift();
    }
    if (!rest.length) {
      this.goTo(node);
      return;
    }
    const from = node;
    const moves = [...this.tree.moves(from), ...rest];
    const seq = this.socket.send("position", {
      variant: this.variant, rules: this.rules, fen: this.startFen, moves, all_moves: true,
      engine: this.engineOn, multipv: this.multipv,
    });
    if (!seq) return;
    clearTimeout(this.timer); // the board goes to the new move: no question about the old
    this.positionSeq = seq;
    this.positionNode = null; // until the answer says which node
    this.pending.set(seq, (answer) => {
      const end = this.tree.addLine(from, answer.moves.slice(this.tree.moves(from).length));
      end.position = answer;
      this.current = end;
      if (this.positionSeq === seq) this.positionNode = end;
      else this.ask(end); // a later question about the old node crossed this one
      this.engineDone = false;
      this.remember();
      this.render();
    });
  }

  /** Keep the address in step with the board, so that a reload or a shared link opens
   * the same position: a game's ply, or the line from the start. */
  remember() {
    const query = new URLSearchParams();
    if (this.gameId || this.masterId) {
      if (this.gameId) query.set("game", this.gameId);
      else query.set("master", String(this.masterId));
      const ply = this.gameNodes.indexOf(this.current) + 1;
      if (ply > 0 || this.current === this.tree.root) query.set("ply", String(ply));
      else query.set("moves", this.tree.moves(this.current).join(","));
    } else {
      if (this.variant !== "xiangqi") query.set("variant", this.variant);
      if (this.params.get("fen")) query.set("fen", String(this.startFen)); // (as set() would)
      const moves = this.tree.moves(this.current);
      if (moves.length) query.set("moves", moves.join(","));
    }
    if (this.multipv > 1) query.set("multipv", String(this.multipv));
    if (!this.engineOn) query.set("engine", "off");
    const text = query.toString();
    history.replaceState(null, "", `/analysis${text ? `?${text}` : ""}`);
  }

  /** @param {number} delta -1 back, 1 on (the main line) */
  step(delta) {
    if (delta < 0 && this.current.parent) this.goTo(this.current.parent);
    else if (delta > 0 && this.current.children.length) this.goTo(this.current.children[0]);
  }

  // ---- controls ----

  wire() {
    $("an-first").addEventListener("click", () => this.goTo(this.tree.root));
    $("an-prev").addEventListener("click", () => this.step(-1));
    $("an-next").addEventListener("click", () => this.step(1));
    $("an-last").addEventListener("click", () => this.goTo(this.tree.lineEnd(this.current)));
    $("an-flip").addEventListener("click", () => {
      this.userFlip = !this.userFlip;
      this.render();
    });
    $("an-pass").addEventListener("click", () => {
      const position = this.current.position;
      if (position && position.pass_move) this.play([position.pass_move]);
    });
    $("an-promote").addEventListener("click", () => this.promote(false));
    $("an-mainline").addEventListener("click", () => this.promote(true));
    $("an-delete").addEventListener("click", () => this.deleteCurrent());
    $("engine-on").checked = this.engineOn;
    $("engine-on").addEventListener("change", () => {
      this.engineOn = $("engine-on").checked;
      this.remember();
      if (this.engineOn) this.ask(this.current);
      else this.socket.send("stop");
      this.renderEngine();
    });
    $("engine-multipv").value = String(this.multipv);
    $("engine-multipv").addEventListener("change", () => {
      this.multipv = Number($("engine-multipv").value);
      this.remember();
      this.current.lines = null;
      this.ask(this.current);
      this.renderEngine();
    });
    $("engine-more").addEventListener("click", () => {
      // Each time as long again as the first look: the search starts from depth 1 (its
      // hash table warm), so it goes deeper only with more time than before.
      this.current.longer = Math.min(9, (this.current.longer || 0) + 1);
      // The server goes on until it is deeper than what is shown, or says why it cannot.
      this.current.deeperThan = this.current.lines ? this.current.lines.depth : 0;
      this.ask(this.current);
    });
    $("review-start").addEventListener("click", () => {
      if (!this.gameId) return;
      $("review-start").disabled = true;
      this.socket.send("review", { game: this.gameId });
    });
    $("an-setup").addEventListener("submit", (/** @type {SubmitEvent} */ event) => {
      event.preventDefault();
      const variant = $("an-variant").value;
      const fen = $("an-fen").value.trim();
      const query = new URLSearchParams({ variant });
      if (fen) query.set("fen", fen);
      location.href = `/analysis?${query}`;
    });
    document.addEventListener("keydown", (event) => {
      const target = event.target;
      if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) return;
      /** @type {Record<string, () => void>} */
      const keys = {
        ArrowLeft: () => this.step(-1),
        ArrowRight: () => this.step(1),
        ArrowUp: () => this.goTo(this.tree.root),
        Home: () => this.goTo(this.tree.root),
        ArrowDown: () => this.goTo(this.tree.lineEnd(this.current)),
        End: () => this.goTo(this.tree.lineEnd(this.current)),
        f: () => $("an-flip").click(),
        l: () => $("engine-on").click(),
      };
      const action = keys[event.key];
      if (!action) return;
      event.preventDefault();
      action();
    });
  }

  /** @param {boolean} all the whole line to the main line, else up one level */
  promote(all) {
    const changed = all ? this.tree.makeMainLine(this.current) : this.tree.promote(this.current);
    if (changed) this.render();
  }

  deleteCurrent() {
    if (!this.current.parent) return;
    const parent = this.tree.remove(this.current);
    this.gameNodes = this.gameNodes.filter((node) => this.tree.nodes.has(node.id));
    this.goTo(parent);
  }

  // ---- the review ----

  /** @param {Extract<AnalysisMessage, {type: "review_started" | "review" | "review_done"}>} message */
  onReview(message) {
    if (message.type === "review_started") {
      this.review = { plies: message.plies, evaluations: [], judged: null };
    } else if (message.type === "review") {
      if (!this.review) this.review = { plies: message.plies, evaluations: [], judged: null };
      this.review.evaluations[message.evaluation.ply] = message.evaluation;
    } else {
      this.review = { plies: message.plies, evaluations: message.evaluations, judged: message };
      for (const move of message.moves) {
        const node = this.gameNodes[move.ply - 1];
        if (node && node.ply === move.ply) {
          node.mark = move.mark;
          node.best = move.best;
          node.matedIn = move.mated_in;
        }
      }
      $("review-start").disabled = false;
      show($("review-start"), false);
    }
    this.render();
  }

  renderReview() {
    const review = this.review;
    const progress = $("review-progress");
    show(progress, Boolean(review));
    if (!review) return;
    const done = review.evaluations.filter(Boolean).length;
    progress.textContent = review.judged
      ? t("reviewDone") : t("reviewing", { n: done, total: review.plies + 1 });
    const onLine = this.gameNodes.includes(this.current) || this.current === this.tree.root;
    renderGraph(
      this.variant, review.evaluations.filter(Boolean), review.plies, review.judged,
      onLine ? this.current.ply : null, (ply) => this.goTo(ply === 0 ? this.tree.root : this.gameNodes[ply - 1]),
    );
    renderSummary(this.variant, review.judged);
  }

  // ---- drawing ----

  /** @param {string} text */
  setStatus(text) {
    $("an-status").textContent = text;
  }

  flipped() {
    return this.userFlip;
  }

  render() {
    translatePage();
    document.body.classList.toggle("janggi", this.variant === "janggi");
    if (this.syncedTheme !== this.variant) {
      /** @type {string | undefined} the settings' board and pieces edit this game's */
      this.syncedTheme = this.variant;
      syncThemeSettings(this.settings, this.variant);
    }
    $("set-notation").value = this.notation();
    this.renderBoard();
    this.renderPlayers();
    renderTree($("move-tree"), this.tree, {
      current: this.current, notation: this.notation(), startTurn: this.startTurn,
      onSelect: (node) => this.goTo(node),
      onMenu: (node) => this.goTo(node),
    });
    this.renderComment();
    this.renderEngine();
    this.renderReview();
    this.renderExplorer();
    $("an-promote").disabled = this.tree.isMainLine(this.current);
    $("an-mainline").disabled = this.tree.isMainLine(this.current);
    $("an-delete").disabled = !this.current.parent;
  }

  renderPlayers() {
    const bottom = this.flipped() ? "second" : "first";
    for (const [id, side] of [["an-bar-bottom", bottom], ["an-bar-top", bottom === "first" ? "second" : "first"]]) {
      const label = sideName(this.variant, side === "first");
      const name = this.players && this.players[side];
      $(id).querySelector(".player-name").textContent = name && name !== label ? `${label} · ${name}` : label;
      const position = this.current.position;
      const turn = position ? position.turn : null;
      $(id).classList.toggle("to-move", turn === side);
    }
  }

  renderBoard() {
    const node = this.current;
    const fen = node.position ? node.position.fen : (node.entry ? node.entry.fen : node.fen);
    if (!fen) return;
    const position = node.position;
    const theme = themeOf(this.settings, this.variant);
    // The FEN box shows the position on the board (to copy, or to edit and load).
    if (document.activeElement !== $("an-fen")) $("an-fen").value = fen;
    const best = this.bestLine(node);
    const first = best && best.pv && best.pv.iccs && best.pv.iccs[0];
    this.board.update({
      game: this.variant,
      pieces: parsePlacement(fen, this.variant),
      flipped: this.flipped(),
      pieceSet: theme.pieces,
      boardTheme: theme.board,
      animation: this.settings.animation,
      ply: node.ply,
      lastMove: node.entry ? [node.entry.from, node.entry.to] : null,
      check: position ? position.check : null,
      dests: position ? position.dests : null,
      interactive: Boolean(position && !position.over),
      touchMove: false,
      hint: this.engineOn && first ? [first.slice(0, 2), first.slice(2, 4)] : null,
    });
    // The other lines' first moves as fainter arrows (the best one is the hint's).
    const others = this.engineOn && node.lines ? node.lines.lines.slice(1) : [];
    this.board.setAutoShapes(others.map((line) => line.pv.iccs[0]).filter(Boolean).map((move) => ({
      orig: move.slice(0, 2), dest: move.slice(2, 4), brush: "engine-other",
    })));
    show($("an-pass"), Boolean(position && position.can_pass));
    // The evaluation bar: the first mover's chance, its side at the bottom unless flipped.
    const chance = this.engineOn && best ? chanceOf(best) : 0.5;
    const fill = $("eval-fill");
    fill.style.height = `${(chance * 100).toFixed(1)}%`;
    $("eval-bar").classList.toggle("flipped", this.flipped());
    $("eval-bar").title = best ? formatScore(best) : "";
    $("eval-bar").dataset.score = best ? formatScore(best) : "";
  }

  renderExplorer() {
    const node = this.current;
    const fen = node.position ? node.position.fen : (node.entry ? node.entry.fen : node.fen);
    if (fen) this.explorer.show(this.variant, fen, this.notation());
  }

  /** @param {TreeNode} node @returns {EngineLine | null} */
  bestLine(node) {
    const lines = node.lines && node.lines.lines;
    return lines && lines.length ? lines[0] : null;
  }

  renderEngine() {
    const node = this.current;
    const list = $("engine-lines");
    list.replaceChildren();
    const message = this.engineOn ? node.lines : null;
    const position = node.position;
    const over = position && position.over;
    const status = $("engine-status");
    // The engine gave the position its time (or is sure): more time is one click away.
    show($("engine-more"), Boolean(this.engineOn && message && message.done && !over
      && message.lines.length && message.lines[0].first_mate === null));
    $("engine-eval").textContent = message && message.lines.length ? formatScore(message.lines[0]) : "";
    $("engine-depth").textContent = message && message.depth ? t("depth", { n: message.depth }) : "";
    if (!this.engineOn) {
      status.textContent = t("engineOff");
      return;
    }
    if (over) {
      const english = language() === "en";
      status.textContent = t("nothingToAnalyse", { reason: english ? over.reason : t(`term_${over.termination}`) });
      status.title = english ? "" : over.reason;
      return;
    }
    status.title = "";
    if (!message) {
      status.textContent = t("thinking");
      return;
    }
    const knps = message.nps ? ` · ${Math.round(message.nps / 1000)} kN/s` : "";
    const why = message.done && message.not_deeper ? ` · ${t(`notDeeper_${message.not_deeper}`)}` : "";
    status.textContent = `${this.engineName}${knps}${message.done ? ` · ${t("engineDone")}` : ""}${why}`;
    const notation = this.notation();
    const offset = this.startTurn === "second" ? 1 : 0;
    for (const line of message.lines) {
      const item = make("li", "engine-line");
      item.dataset.multipv = String(line.multipv);
      item.appendChild(make("span", "line-score", formatScore(line)));
      const moves = make("span", "line-moves");
      const texts = (line.pv[notation] || line.pv.iccs).slice(0, PV_SHOWN);
      texts.forEach((text, index) => {
        const ply = node.ply + index + 1;
        const firstMover = ((ply - 1 + offset) % 2) === 0;
        const number = Math.floor((ply - 1 + offset) / 2) + 1;
        if (firstMover || index === 0) moves.appendChild(make("span", "line-number", firstMover ? `${number}.` : `${number}…`));
        const move = make("button", "line-move", text);
        move.type = "button";
        move.addEventListener("click", () => this.play(line.pv.iccs.slice(0, index + 1)));
        moves.appendChild(move);
      });
      item.appendChild(moves);
      list.appendChild(item);
    }
  }

  renderComment() {
    const node = this.current;
    const comment = $("review-comment");
    show(comment, Boolean(node.mark));
    if (!node.mark) return;
    const best = node.best ? node.best[this.notation()] || node.best.iccs : null;
    comment.className = `review-comment mark-${node.mark}`;
    const mate = node.matedIn ? ` — ${t("intoMate", { n: node.matedIn })}` : "";
    comment.textContent = `${t(node.mark)} (${MARK_GLYPHS[node.mark]})${mate}${best ? ` — ${t("bestWas", { move: best })}` : ""}`;
  }
}
