// @ts-check
// The game page, played, watched or replayed: the connection to the game, the player's
// actions, stepping through the moves, and drawing it all. Every rule, notation and result
// sentence comes from the server; this module only shows them and sends the player's choices.

import { onGameRating } from "./account.js";
import * as api from "./api.js";
import { berserk } from "./berserk.js";
import { BoardView, parsePlacement, pieceCharacter } from "./board.js";
import { CHAT_ERRORS, ChatBox, guestName } from "./chat.js";
import { tickClocks } from "./clocks.js";
import { $, copyField, download, setText, setTitle, show, toast } from "./dom.js";
import {
  otherSide, passQuestion, renderAbsence, renderFirstMove, renderAnalysis, renderInvite, renderPanels, renderPlayers, renderStatus,
  renderWatchers,
} from "./game-panels.js";
import { describePiece, language, notationFor, t, translatePage } from "./i18n.js";
import { mergeMoves, moveText, renderMoves } from "./move-list.js";
import { Connection } from "./net.js";
import { fenLetter, isPieceKind } from "./pieces.js";
import { rememberGame, syncThemeSettings, themeOf } from "./settings.js";
import { playSound } from "./sound.js";
import { notifyTurn, showTurn } from "./turn-signal.js";

/** @typedef {import("./protocol.js").Side} Side */
/** @typedef {import("./protocol.js").Role} Role */
/** @typedef {import("./protocol.js").GameState} GameState */
/** @typedef {import("./protocol.js").StateMessage} StateMessage */
/** @typedef {import("./protocol.js").GameMessage} GameMessage */
/** @typedef {import("./protocol.js").PlayerInfo} PlayerInfo */
/** @typedef {import("./board.js").Placement} Placement */
/** The view once a state has come (the panels draw from it).
 * @typedef {GameView & {state: GameState}} LiveGameView */

/** @type {Side[]} */
const SEATS = ["first", "second"];
// A server with too many connections says why with one of these before it closes (4429).
const TOO_MANY_CODES = new Set(["too_many_watchers", "too_many_sockets"]);
// An opponent's answer to an offer, shown to the one who made it.
/** @type {Record<string, string>} */
const DECLINED = { draw_declined: "drawDeclined", takeback_declined: "takebackDeclined" };
// The final closes (net.js): the link is wrong, or the game does not exist.
/** @type {Record<number, string>} */
const CLOSED_SENTENCES = { 4404: "notFound", 4401: "badLink" };

/** The state's pieces, by the server's names for them, as the board takes them.
 * @param {StateMessage["pieces"]} list
 * @returns {Placement} */
function piecesFromState(list) {
  /** @type {Placement} */
  const pieces = {};
  for (const piece of list) {
    const first = piece.side === "first";
    if (!isPieceKind(piece.kind)) continue;
    pieces[piece.square] = { kind: piece.kind, first, letter: fenLetter(piece.kind, first) };
  }
  return pieces;
}

export class GameView {
  /**
   * @param {string} gameId
   * @param {string|null} token the seat token, or null to watch
   * @param {boolean} watching
   * @param {import("./settings.js").Settings} settings the player's settings (themes,
   *   notation, touch-move, animation), read live
   */
  constructor(gameId, token, watching, settings) {
    this.gameId = gameId;
    this.token = token;
    this.watching = watching;
    this.settings = settings;
    /** @type {GameState | null} */
    this.state = null;
    /** @type {Role | null} */
    this.role = watching ? "watcher" : null;
    this.receivedAt = 0; // performance.now() when the last state arrived
    // (a rated game's ratings arrive apart from the state: the bars show them once known)
    onGameRating(() => {
      if (this.hasState()) renderPlayers(this);
    });
    this.skewMs = 0; // our clock minus the server's
    /** @type {number | null} null: live; else the ply shown while stepping through the game */
    this.viewPly = null;
    /** @type {Map<number, Placement>} ply -> pieces, fetched for history viewing */
    this.positions = new Map();
    this.userFlip = false;
    this.flagSent = false;
    /** @type {import("./protocol.js").PositionAnalysis | null} */
    this.analysis = null;
    /** @type {Partial<Record<Side, boolean>> & {watchers?: number}} the newest word on who
     * is connected and how many watch */
    this.presence = {};
    /** @type {Partial<Record<Side, {left_ms?: number, claim_ms: number}>>} while that
     * player is gone */
    this.absence = {};
    this.resyncAsked = false; // a state we could not use is waiting for the whole one
    /** @type {{text: string, title: string, at: number} | null} the server was full, we try
     * again at `at` */
    this.retry = null;
    this.board = new BoardView($("board"), {
      onMove: (from, to) => this.move(from, to),
      describePiece: (piece) => describePiece(
        this.game(), piece, pieceCharacter(this.game(), piece.kind, piece.first)),
    });
    this.connection = new Connection(gameId, token, {
      // (a message on this socket has the protocol's shape: protocol.js)
      onMessage: (message) => this.onMessage(/** @type {GameMessage} */ (message)),
      onStatus: (status, detail) => this.onStatus(status, detail),
    });
    if (watching) this.connection.helloName = guestName(); // the spectators' chat shows it
    this.chat = new ChatBox(this);
    this.wireControls();
    this.ticker = setInterval(() => this.tick(), 100);
    this.connection.connect();
  }

  /** @returns {import("./pieces.js").Game} */
  game() {
    return this.state ? this.state.variant : "xiangqi";
  }

  /** Whether a state has come (the page draws only then).
   * @returns {this is LiveGameView} */
  hasState() {
    return this.state !== null;
  }

  /** Whether this page plays a seat (or both), not watches. */
  isPlayer() {
    return Boolean(this.role && this.role !== "watcher");
  }

  // ---- messages ----

  /** @param {import("./net.js").SocketStatus} status
   * @param {import("./net.js").StatusDetail} [detail] (net.js gives one with each but
   *   "connecting" and "open") */
  onStatus(status, detail) {
    const node = $("connection");
    const waited = this.retry !== null;
    this.retry = null;
    if (status === "open") {
      show(node, false);
      return;
    }
    if (status === "reconnecting" || status === "connecting") {
      if (status === "connecting" && !this.state && !waited) return; // the page's first try
      node.textContent = t("reconnecting");
      node.title = "";
      node.className = "connection warn";
      show(node, true);
    } else if (status === "busy" && detail) {
      // The server's sentence is English; other languages say it in their own words, with
      // the sentence on hover.
      const sentence = detail.error && detail.error.message;
      const english = language() === "en" && sentence;
      this.retry = {
        text: english ? sentence : t("tooManyConnections"),
        title: english ? "" : sentence || "",
        at: Date.now() + (detail.delayMs || 0),
      };
      node.className = "connection warn";
      this.renderRetry();
      show(node, true);
    } else if (status === "closed" && detail) {
      const sentence = detail.code === undefined ? undefined : CLOSED_SENTENCES[detail.code];
      node.textContent = sentence ? t(sentence) : t("error", { message: detail.reason || detail.code });
      node.title = "";
      node.className = "connection bad";
      show(node, true);
    }
  }

  /** The server was full: what it said, and when we try again. */
  renderRetry() {
    if (!this.retry) return;
    const seconds = Math.max(0, Math.ceil((this.retry.at - Date.now()) / 1000));
    const node = $("connection");
    setText(node, `${this.retry.text} ${t("retryIn", { n: seconds })}`);
    setTitle(node, this.retry.title);
  }

  /** @param {GameMessage} message */
  onMessage(message) {
    switch (message.type) {
      case "welcome":
        this.role = message.role;
        if (this.token && this.isPlayer()) {
          rememberGame({ game_id: this.gameId, token: this.token, seat: message.role });
        }
        break;
      case "state":
        this.onState(message);
        break;
      case "presence":
        this.onPresence(message);
        break;
      case "chat":
        this.chat.onMessage(message);
        break;
      case "chat_history":
        this.chat.onHistory(message.messages || []);
        break;
      case "error":
        // A full server's sentence is shown with the connection's status (onStatus "busy").
        if (TOO_MANY_CODES.has(message.code)) break;
        if (CHAT_ERRORS.has(message.code)) {
          this.chat.onError(message); // under the chat box
          break;
        }
        if (message.code !== "stale_version" && message.code !== "replayed_seq") toast(message.message);
        break;
      case "rematch_ready":
        if (message.token) {
          rememberGame({
            game_id: message.game_id, token: message.token, seat: message.seat,
            variant: this.game(), kind: this.state && this.state.kind, watch_url: message.watch_url,
          });
          location.href = message.seat_url;
        } else if (message.watch_url) {
          location.href = message.watch_url;
        }
        break;
      default:
        break;
    }
  }

  /** @param {StateMessage} message */
  onState(message) {
    const previous = this.state;
    const moves = mergeMoves(previous ? previous.moves : [], message);
    if (moves === null) {
      // A state that adds to more moves than we hold: ask for the whole state; if that
      // cannot be used either, a new connection brings it.
      if (this.resyncAsked) this.connection.restart();
      else this.resyncAsked = this.connection.send("resync") > 0;
      return;
    }
    this.resyncAsked = false;
    this.notePresence(message);
    const state = this.withPresence({ ...message, moves });
    this.state = state;
    this.connection.version = state.version; // actions are stamped with what the player saw
    this.receivedAt = performance.now();
    const serverTime = state.server_time_ms || (state.clock && state.clock.server_time_ms);
    if (serverTime) this.skewMs = Date.now() - serverTime;
    if (state.you) this.role = state.you.role;
    if (previous && (state.ply !== previous.ply || state.version < previous.version)) {
      this.analysis = null;
      if (state.ply < previous.ply) {
        this.positions.clear(); // a takeback: the positions after it are gone,
        this.board.cancelPremove(); // and a premove made for them is not played
      }
    }
    if (this.viewPly !== null && this.viewPly > state.ply) this.viewPly = null;
    if (!previous || state.version !== previous.version) this.flagSent = false;
    this.noteDeclined(previous, state);
    this.noteVacation(previous, state);
    if (previous && state.ply === previous.ply + 1 && state.moves.length) {
      const last = state.moves[state.moves.length - 1];
      playSound(last.check || state.check ? "check" : last.capture ? "capture" : "move");
      if (this.myTurn()) notifyTurn(t("title"), `${t("yourMove")}: ${moveText(last, notationFor(this.settings.notation, state.variant))}`);
    }
    this.render();
  }

  /** Who is connected and how many watch changed, nothing else: the players' bars, the
   * invite, the watcher count and an opponent's absence are drawn again; the board (and a
   * picked piece) is not.
   * @param {import("./protocol.js").PresenceMessage} message */
  onPresence(message) {
    this.notePresence(message);
    if (!this.hasState()) return;
    this.state = this.withPresence(this.state);
    renderPlayers(this);
    renderInvite(this);
    renderWatchers(this);
    renderAbsence(this);
  }

  /** The opponent declined this player's offer (or request) just now: say so.
   * @param {GameState | null} previous @param {GameState} state */
  noteDeclined(previous, state) {
    const event = state.last_event;
    if (!previous || state.version === previous.version || !event || !DECLINED[event.kind]) return;
    if (this.role !== "first" && this.role !== "second") return;
    if (event.side !== this.role) toast(t(DECLINED[event.kind]));
  }

  /** The opponent went on vacation just now (a correspondence game): say until when.
   * @param {GameState | null} previous @param {GameState} state */
  noteVacation(previous, state) {
    const event = state.last_event;
    if (!previous || state.version === previous.version || !event || event.kind !== "vacation") return;
    const side = event.side;
    if (!side || side === this.role || typeof event.until !== "number") return;
    const player = state.players ? state.players[side] : undefined;
    const name = (player && player.name) || "";
    toast(t("opponentVacation", { name, date: new Date(event.until * 1000).toLocaleString() }));
  }

  // Presence comes in states (protocol 1 sends the state again when someone comes or goes)
  // and in presence messages (protocol 2); a state without it keeps the newest we have.
  /** @param {{players?: Partial<Record<Side, PlayerInfo>>, watchers?: number}} message */
  notePresence(message) {
    for (const seat of SEATS) {
      const player = message.players && message.players[seat];
      if (player && typeof player.connected === "boolean") this.presence[seat] = player.connected;
      // Presence messages say since when a player is gone (states only whether).
      if (player && player.connected === true) delete this.absence[seat];
      if (player && player.connected === false && typeof player.claim_ms === "number") {
        this.absence[seat] = { left_ms: player.left_ms, claim_ms: player.claim_ms };
      }
    }
    if (typeof message.watchers === "number") this.presence.watchers = message.watchers;
  }

  /** The state with the newest presence we have.
   * @param {GameState} state @returns {GameState} */
  withPresence(state) {
    const players = { ...(state.players || {}) };
    for (const seat of SEATS) {
      if (seat in this.presence) players[seat] = { ...players[seat], connected: this.presence[seat] };
    }
    const watchers = "watchers" in this.presence ? this.presence.watchers : state.watchers;
    return { ...state, players, watchers };
  }

  // ---- actions ----

  /** @returns {{side?: Side}} */
  actingSide() {
    // A local game's token plays both seats: offers and resignations act for the side to move.
    return this.role === "both" && this.state ? { side: this.state.turn } : {};
  }

  /** @param {string} from @param {string} to */
  move(from, to) {
    if (!this.connection.action("move", { from, to })) toast(t("reconnecting"));
  }

  wireControls() {
    $("btn-flip").addEventListener("click", () => {
      this.userFlip = !this.userFlip;
      this.render();
    });
    $("btn-resign").addEventListener("click", () => {
      if (window.confirm(t("resignConfirm"))) this.connection.action("resign", this.actingSide());
    });
    $("btn-draw").addEventListener("click", () => {
      this.connection.action("draw_offer", this.actingSide());
      if (this.state && this.state.kind === "friend") toast(t("offerSent"));
    });
    $("btn-takeback").addEventListener("click", () => {
      if (!this.state) return; // (the buttons show once a state has come)
      if (this.role === "both") {
        // One screen, both sides: asking and agreeing are the same person.
        const side = otherSide(this.state.turn);
        this.connection.action("takeback_request", { side });
        /** @type {Side | null | undefined} a local game's takeback, to be agreed to */
        this.pendingLocalTakeback = side;
      } else {
        this.connection.action("takeback_request");
        if (this.state.kind !== "computer") toast(t("offerSent"));
      }
    });
    $("btn-pass").addEventListener("click", () => this.pass());
    $("claim-win").addEventListener("click", () => this.connection.action("claim_abandoned"));
    $("btn-abort").addEventListener("click", () => this.connection.action("abort", this.actingSide()));
    $("claim-abort").addEventListener("click", () => this.connection.action("abort"));
    $("btn-berserk").addEventListener("click", () => berserk(this.gameId, () => this.render()));
    $("claim-draw").addEventListener("click", () => {
      this.connection.action("claim_abandoned", { draw: true });
    });
    $("offer-accept").addEventListener("click", () => this.answerOffer(true));
    $("offer-decline").addEventListener("click", () => this.answerOffer(false));
    $("btn-rematch").addEventListener("click", () => this.connection.action("rematch"));
    $("btn-pgn").addEventListener("click", () => this.downloadPgn());
    $("btn-fen").addEventListener("click", () => this.downloadFen());
    $("btn-analyse").addEventListener("click", () => this.analyse());
    $("nav-first").addEventListener("click", () => this.viewAt(0));
    $("nav-prev").addEventListener("click", () => this.viewAt(this.shownPly() - 1));
    $("nav-next").addEventListener("click", () => this.viewAt(this.shownPly() + 1));
    $("nav-last").addEventListener("click", () => this.viewAt(null));
    $("nav-live").addEventListener("click", () => this.viewAt(null));
    for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll("button.copy"))) {
      // (each names its field: data-copy="invite-url")
      button.addEventListener("click", () => copyField(/** @type {string} */ (button.dataset.copy), button));
    }
    document.addEventListener("keydown", (event) => {
      if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
      if (event.key === "ArrowLeft") this.viewAt(this.shownPly() - 1);
      else if (event.key === "ArrowRight") this.viewAt(this.shownPly() + 1);
      else if (event.key === "Home") this.viewAt(0);
      else if (event.key === "End") this.viewAt(null);
      else if (event.key === "f") $("btn-flip").click();
    });
  }

  /** Pass; a pass that would end the game at once, or let the opponent win by passing
   * back (the server says how), is asked first. */
  pass() {
    const question = this.state ? passQuestion(this.state) : null;
    if (question && !window.confirm(question)) return;
    this.connection.action("pass");
  }

  /** @param {boolean} accept */
  answerOffer(accept) {
    if (!this.state) return; // (the offer shows once a state has come)
    /** @type {Partial<NonNullable<StateMessage["offers"]>>} */
    const offers = this.state.offers || {};
    if (offers.rematch && !offers.draw && !offers.takeback) {
      if (accept) this.connection.action("rematch");
      show($("offer"), false);
      this.dismissedRematch = !accept;
      return;
    }
    const what = offers.takeback ? "takeback" : "draw";
    const offerer = offers.takeback || offers.draw;
    const fields = this.role === "both" ? { side: otherSide(offerer) } : {};
    this.connection.action(`${what}_${accept ? "accept" : "decline"}`, fields);
  }

  async downloadPgn() {
    const format = notationFor(this.settings.notation, this.game()); // never korean for xiangqi
    try {
      download(`chuhan-${this.gameId}.pgn`, await api.pgnText(this.gameId, format));
    } catch (err) {
      toast(t("error", { message: /** @type {Error} */ (err).message }));
    }
  }

  async downloadFen() {
    const ply = this.shownPly();
    try {
      const body = await api.fenAt(this.gameId, ply);
      download(`chuhan-${this.gameId}-${ply}.fen`, `${body.fen}\n`);
    } catch (err) {
      toast(t("error", { message: /** @type {Error} */ (err).message }));
    }
  }

  async analyse() {
    const ply = this.shownPly();
    $("analysis-score").textContent = t("analysing");
    $("analysis-depth").textContent = "";
    $("analysis-line").textContent = "";
    show($("analysis-eval"), true);
    show($("analysis-best"), true);
    show($("analysis-none"), false);
    show($("analysis"), true);
    try {
      this.analysis = await api.analysePosition(this.gameId, { ply, movetime_ms: 1000, multipv: 1 });
    } catch (err) {
      this.analysis = null;
      $("analysis-score").textContent = t("error", { message: /** @type {Error} */ (err).message });
      return;
    }
    this.render();
  }

  // ---- history ----

  /** @returns {number} the ply on the board */
  shownPly() {
    return this.viewPly === null ? (this.state ? this.state.ply : 0) : this.viewPly;
  }

  /** Show the position after `ply` (null, or the last ply: live).
   * @param {number | null} ply */
  async viewAt(ply) {
    if (!this.state) return;
    if (ply === null || ply >= this.state.ply) {
      this.viewPly = null;
      this.render();
      return;
    }
    const target = Math.max(0, ply);
    if (!this.positions.has(target)) {
      try {
        const body = await api.fenAt(this.gameId, target);
        this.positions.set(target, parsePlacement(body.fen, this.game()));
      } catch (err) {
        toast(t("error", { message: /** @type {Error} */ (err).message }));
        return;
      }
    }
    this.viewPly = target;
    this.render();
  }

  // ---- drawing ----

  flipped() {
    return (this.role === "second") !== this.userFlip;
  }

  /** Whether it is this seat's move in a game in play (not a game at one screen).
   * @returns {boolean} */
  myTurn() {
    const state = this.state;
    return Boolean(state && state.status === "playing" && state.you && state.you.your_turn
      && (this.role === "first" || this.role === "second"));
  }

  render() {
    if (!this.hasState()) return;
    /** @type {GameState} */
    const state = this.state;
    translatePage();
    showTurn(this.myTurn(), t("title"), t("yourMove"));
    $("set-notation").value = notationFor(this.settings.notation, state.variant);
    document.body.classList.toggle("janggi", state.variant === "janggi");
    if (this.themeGame !== state.variant) { // the settings show this game's board and pieces
      /** @type {string | undefined} the game the settings' theme choices show */
      this.themeGame = state.variant;
      syncThemeSettings(this.settings, state.variant);
    }
    this.renderBoard();
    renderPlayers(this);
    renderStatus(this);
    renderWatchers(this);
    renderInvite(this);
    renderPanels(this);
    renderMoves(this);
    renderAnalysis(this);
    this.chat.render();
    this.tick();
  }

  /** The engine's first move for the position on the board, if it was analysed.
   * @returns {[string, string] | null} */
  bestMove() {
    const analysis = this.analysis;
    if (!analysis || analysis.ply !== this.shownPly() || !analysis.lines.length) return null;
    const first = analysis.lines[0].pv && analysis.lines[0].pv.iccs && analysis.lines[0].pv.iccs[0];
    return first ? [first.slice(0, 2), first.slice(2, 4)] : null;
  }

  /** @this {LiveGameView} */
  renderBoard() {
    const state = this.state;
    const viewPly = this.viewPly;
    const live = viewPly === null;
    const pieces = viewPly === null ? piecesFromState(state.pieces) : this.positions.get(viewPly);
    // A takeback forgets the positions fetched while the player may be looking back at one:
    // the board keeps the one it shows (the moves before the takeback are the same).
    if (!pieces) return;
    const ply = this.shownPly();
    const lastEntry = ply > 0 ? state.moves[ply - 1] : null;
    const kings = Object.entries(pieces).filter(([, p]) => p.kind === "king").map(([sq]) => sq);
    const playing = live && state.status === "playing" && this.isPlayer();
    const interactive = playing && Boolean(state.you && state.you.your_turn) && !state.thinking;
    // While the opponent is to move, the player may premove (not on one screen for both).
    const premoves = playing && !interactive && this.role !== "both" && state.premoves;
    const theme = themeOf(this.settings, state.variant);
    this.board.update({
      game: state.variant,
      pieces,
      ply,
      flipped: this.flipped(),
      pieceSet: theme.pieces,
      boardTheme: theme.board,
      animation: this.settings.animation,
      premoveDests: premoves && Object.keys(premoves).length ? premoves : null,
      lastMove: lastEntry ? [lastEntry.from, lastEntry.to] : null,
      check: live ? state.check : null,
      bikjang: live && state.bikjang ? kings : null,
      dests: interactive ? state.legal : null,
      interactive,
      touchMove: this.settings.touchMove,
      hint: this.bestMove(),
    });
    if (interactive && this.board.premove) this.playPremove();
  }

  /** The player's turn has come with a premove set: it is played at once if legal now,
   * else dropped with a note. */
  playPremove() {
    const premove = this.board.playPremove();
    if (premove && !premove.played) toast(t("premoveDropped", { move: premove.from + premove.to }));
  }

  /** Clocks and the setup countdown, counted down locally from the last state. */
  tick() {
    this.renderRetry();
    tickClocks(this);
    if (this.hasState()) {
      renderAbsence(this);
      renderFirstMove(this);
    }
  }
}
