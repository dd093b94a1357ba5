// The app: the home page (new game, my games, replaying a record file) and the game page
// (played, watched or replayed). Every rule, notation and result sentence comes from the
// server; this module only shows them and sends the player's choices.

import { BoardView, parsePlacement, pieceCharacter } from "./board.js";
import {
  LANGUAGES, defaultNotation, describePiece, detectLanguage, language, setLanguage, sideName,
  t, translatePage,
} from "./i18n.js";
import { Connection } from "./net.js";
import { gameEntry, loadSettings, myGames, rememberGame, saveSettings } from "./settings.js";
import { playSound, setSoundEnabled } from "./sound.js";

const $ = (id) => document.getElementById(id);
const settings = loadSettings();
let options = null; // GET /api/options
let optionsLoaded = Promise.resolve(); // settles when the home page has asked for them
let view = null; // the game page's controller, when on a game page

// ---------------------------------------------------------------- small helpers

function show(node, visible) {
  node.hidden = !visible;
}

function clear(node) {
  node.replaceChildren();
}

function make(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

let toastTimer = null;
function toast(message) {
  const node = $("toast");
  node.textContent = message;
  show(node, true);
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => show(node, false), 5000);
}

async function api(path, init = {}) {
  const response = await fetch(path, init);
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const message = body && body.error ? body.error.message : `${response.status} ${response.statusText}`;
    throw new Error(message);
  }
  return body;
}

function postJson(path, data) {
  return api(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(data),
  });
}

function formatClock(ms) {
  const clamped = Math.max(0, ms);
  if (clamped < 10000) return (clamped / 1000).toFixed(1);
  const total = Math.ceil(clamped / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

function download(filename, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
  const link = make("a");
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function copyField(inputId, button) {
  const input = $(inputId);
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  button.textContent = t("copied");
  setTimeout(() => (button.textContent = t("copy")), 1500);
}

function notationFor(game) {
  const chosen = settings.notation || defaultNotation(game);
  return chosen === "korean" && game !== "janggi" ? "wxf" : chosen;
}

// The server may name pieces as the library does (chariot, soldier, guard) or as the board
// module does (rook, pawn, advisor).
const KIND_ALIASES = { chariot: "rook", soldier: "pawn", guard: "advisor" };
const FEN_LETTERS = {
  king: "k", advisor: "a", elephant: "b", horse: "n", rook: "r", cannon: "c", pawn: "p",
};

function piecesFromState(list) {
  const pieces = {};
  for (const piece of list) {
    const first = piece.side === "first";
    const kind = KIND_ALIASES[piece.kind] || piece.kind;
    const letter = FEN_LETTERS[kind];
    if (!letter) continue;
    pieces[piece.square] = { kind, first, letter: first ? letter.toUpperCase() : letter };
  }
  return pieces;
}

function other(side) {
  return side === "first" ? "second" : "first";
}

// ---------------------------------------------------------------- settings panel

function setUpSettings() {
  const select = $("set-language");
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const option = make("option", null, name);
    option.value = code;
    select.appendChild(option);
  }
  select.value = language();
  select.addEventListener("change", () => {
    settings.language = select.value;
    saveSettings(settings);
    setLanguage(select.value);
    refreshTexts();
  });
  const labels = $("set-labels");
  labels.value = settings.labels;
  labels.addEventListener("change", () => {
    settings.labels = labels.value;
    saveSettings(settings);
    if (view) view.render();
  });
  const notation = $("set-notation");
  notation.addEventListener("change", () => {
    settings.notation = notation.value;
    saveSettings(settings);
    if (view) view.render();
  });
  const sound = $("set-sound");
  sound.checked = settings.sound;
  setSoundEnabled(settings.sound);
  sound.addEventListener("change", () => {
    settings.sound = sound.checked;
    setSoundEnabled(sound.checked);
    saveSettings(settings);
  });
  const touchMove = $("set-touch-move");
  touchMove.checked = settings.touchMove;
  touchMove.addEventListener("change", () => {
    settings.touchMove = touchMove.checked;
    saveSettings(settings);
    if (view) view.render();
  });
  document.addEventListener("click", (event) => {
    const panel = $("settings");
    if (panel.open && !panel.contains(event.target)) panel.open = false;
  });
}

function refreshTexts() {
  translatePage();
  document.title = t("title");
  $("set-notation").value = notationFor(view ? view.game() : "xiangqi");
  if (view) view.render();
  else refreshHome();
}

// ---------------------------------------------------------------- home page

function selectedValue(form, name) {
  const checked = form.querySelector(`input[name="${name}"]:checked`);
  return checked ? checked.value : null;
}

function fillRules(form) {
  const variant = selectedValue(form, "variant");
  const rules = $("rules");
  // A rule set the player already chose for this game survives a refill (the options
  // arriving, the language changing); a change of game starts from that game's default.
  const kept = rules.dataset.variant === variant ? rules.value : null;
  clear(rules);
  const list = options ? options.variants[variant] : [variant === "janggi" ? "official" : "asian"];
  for (const name of list) {
    const option = make("option", null, t(`rules_${name}`));
    option.value = name;
    rules.appendChild(option);
  }
  if (kept && list.includes(kept)) rules.value = kept;
  else if (options) rules.value = options.default_rules[variant];
  rules.dataset.variant = variant;
  $("colour-first").textContent = sideName(variant, true);
  $("colour-second").textContent = sideName(variant, false);
}

function updateFormVisibility(form) {
  const tc = selectedValue(form, "tc");
  show($("tc-fischer"), tc === "fischer");
  show($("tc-byoyomi"), tc === "byoyomi");
  const kind = selectedValue(form, "kind");
  show($("level-row"), kind === "computer");
  show($("colour-row"), kind !== "local");
  show($("fen-row"), Boolean(options && options.custom_fen));
}

function timeControlOf(form) {
  const tc = selectedValue(form, "tc");
  const number = (name) => Math.max(0, Math.round(Number(form.elements[name].value) || 0));
  if (tc === "fischer") return `${number("fischer_minutes")}+${number("fischer_increment")}`;
  if (tc === "byoyomi") {
    return `${number("byo_minutes")} ${Math.max(1, number("byo_periods"))}x${number("byo_seconds")}`;
  }
  return "none";
}

async function createGame(form) {
  const error = $("create-error");
  const button = $("create");
  if (button.disabled) return; // Enter in a field while the last request is on its way
  show(error, false);
  button.disabled = true;
  try {
    await optionsLoaded; // the custom-position field counts only where the server takes one
    const kind = selectedValue(form, "kind");
    const request = {
      kind,
      variant: selectedValue(form, "variant"),
      rules: $("rules").value,
      time_control: timeControlOf(form),
    };
    if (kind === "computer") request.level = Number($("level").value);
    if (kind !== "local") request.color = $("colour").value;
    const fen = $("fen").value.trim();
    if (fen && options && options.custom_fen) request.fen = fen;
    const created = await postJson("/api/games", request);
    rememberGame({
      game_id: created.game_id, token: created.token, seat: created.seat, kind,
      variant: request.variant, invite_url: created.invite_url || null,
      watch_url: created.watch_url,
    });
    location.href = created.seat_url;
  } catch (err) {
    error.textContent = t("error", { message: err.message });
    show(error, true);
  } finally {
    button.disabled = false;
  }
}

function describeListedGame(game) {
  const parts = [t(game.variant)];
  if (game.kind === "computer") parts.push(t("computerLevel", { n: game.level }));
  else if (game.kind === "friend") parts.push(t("vsFriend"));
  else if (game.kind === "local") parts.push(t("vsHere"));
  if (game.time_control) parts.push(game.time_control);
  if (game.status === "over" && game.result) parts.push(game.result.result || "");
  else parts.push(game.your_turn ? t("yourMove") : t("theirMove"));
  return parts.filter(Boolean).join(" · ");
}

let myGamesAsked = 0; // the newest request for the list: only its answer draws it

async function refreshMyGames() {
  const asked = ++myGamesAsked;
  const saved = myGames();
  let listed = [];
  if (saved.length) {
    try {
      listed = (await postJson("/api/games/mine", { tokens: saved.map((g) => g.token) })).games;
    } catch (err) {
      if (asked === myGamesAsked) toast(t("error", { message: err.message }));
      return;
    }
  }
  if (asked !== myGamesAsked) return; // a later refresh (a language switch) draws it
  const playing = $("games-playing");
  const over = $("games-over");
  clear(playing);
  clear(over);
  show($("no-games"), listed.length === 0);
  show($("head-playing"), listed.some((g) => g.status !== "over"));
  show($("head-over"), listed.some((g) => g.status === "over"));
  for (const game of listed) {
    const item = make("li", game.your_turn && game.status !== "over" ? "your-turn" : null);
    const link = make("a", null, describeListedGame(game));
    link.href = game.seat_url;
    item.appendChild(link);
    (game.status === "over" ? over : playing).appendChild(item);
  }
}

async function importRecord(file) {
  const error = $("import-error");
  const list = $("imported");
  show(error, false);
  clear(list);
  try {
    const result = await api("/api/import", { method: "POST", body: file });
    for (const game of result.games) {
      const item = make("li");
      const names = [game.red, game.black].filter(Boolean).join(" – ");
      const text = [t(game.variant), names, game.event, game.result].filter(Boolean).join(" · ");
      const link = make("a", null, text);
      link.href = game.watch_url;
      item.appendChild(link);
      list.appendChild(item);
    }
    if (result.errors && result.errors.length) {
      error.textContent = result.errors.join("\n");
      show(error, true);
    }
    if (result.games.length === 1 && !(result.errors && result.errors.length)) {
      location.href = result.games[0].watch_url;
    }
  } catch (err) {
    error.textContent = t("importError", { message: err.message });
    show(error, true);
  }
}

function refreshHome() {
  refreshForm();
  refreshMyGames();
}

function refreshForm() {
  const form = $("new-game");
  fillRules(form);
  const level = $("level");
  const current = level.value || "1";
  clear(level);
  for (const n of (options && options.levels) || [1, 2, 3, 4, 5, 6, 7, 8]) {
    const option = make("option", null, String(n));
    option.value = String(n);
    level.appendChild(option);
  }
  level.value = current;
  updateFormVisibility(form);
}

function startHome() {
  show($("home"), true);
  const form = $("new-game");
  // The form works from the first moment: a click on Start before the options arrive must
  // not fall through to the browser's own form submission (a reload of the home page).
  form.addEventListener("change", (event) => {
    if (event.target.name === "variant") fillRules(form);
    updateFormVisibility(form);
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    createGame(form);
  });
  $("import-file").addEventListener("change", (event) => {
    const file = event.target.files[0];
    if (file) importRecord(file);
  });
  refreshHome();
  optionsLoaded = api("/api/options").then((body) => {
    options = body;
    if (options.engine_available === false) {
      form.querySelector('input[name="kind"][value="computer"]').disabled = true;
      form.querySelector('input[name="kind"][value="friend"]').checked = true;
    }
    refreshForm();
  }).catch((err) => {
    toast(t("error", { message: err.message }));
  });
}

// ---------------------------------------------------------------- game page

class GameView {
  constructor(gameId, token, watching) {
    this.gameId = gameId;
    this.token = token;
    this.watching = watching;
    this.state = null;
    this.role = watching ? "watcher" : null;
    this.receivedAt = 0; // performance.now() when the last state arrived
    this.skewMs = 0; // our clock minus the server's
    this.viewPly = null; // null: live; else the ply shown while stepping through the game
    this.positions = new Map(); // ply -> pieces, fetched for history viewing
    this.userFlip = false;
    this.flagSent = false;
    this.analysis = null;
    this.board = new BoardView($("board"), {
      onMove: (from, to) => this.move(from, to),
      describePiece: (piece) => describePiece(
        this.game(), piece, pieceCharacter(this.game(), piece.kind, piece.first)),
    });
    this.connection = new Connection(gameId, token, {
      onMessage: (message) => this.onMessage(message),
      onStatus: (status, detail) => this.onStatus(status, detail),
    });
    this.wireControls();
    this.ticker = setInterval(() => this.tick(), 100);
    this.connection.connect();
  }

  game() {
    return this.state ? this.state.variant : "xiangqi";
  }

  isPlayer() {
    return this.role && this.role !== "watcher";
  }

  // ---- messages ----

  onStatus(status, detail) {
    const node = $("connection");
    if (status === "open") {
      show(node, false);
      return;
    }
    if (status === "reconnecting" || status === "connecting") {
      if (status === "connecting" && !this.state) return;
      node.textContent = t("reconnecting");
      node.className = "connection warn";
      show(node, true);
    } else if (status === "closed") {
      const sentence = { 4404: "notFound", 4401: "badLink", 1008: "flooded" }[detail.code];
      node.textContent = sentence ? t(sentence) : t("error", { message: detail.reason || detail.code });
      node.className = "connection bad";
      show(node, true);
    }
  }

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
      case "error":
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

  onState(state) {
    const previous = this.state;
    this.state = state;
    this.receivedAt = performance.now();
    if (state.server_time_ms || (state.clock && state.clock.server_time_ms)) {
      this.skewMs = Date.now() - (state.server_time_ms || state.clock.server_time_ms);
    }
    if (state.you) this.role = state.you.role;
    if (previous && (state.ply !== previous.ply || state.version < previous.version)) {
      this.analysis = null;
      if (state.ply < previous.ply) this.positions.clear(); // a takeback
    }
    if (this.viewPly !== null && this.viewPly > state.ply) this.viewPly = null;
    if (!previous || state.version !== previous.version) this.flagSent = false;
    if (previous && state.ply === previous.ply + 1 && state.moves.length) {
      const last = state.moves[state.moves.length - 1];
      playSound(last.check || state.check ? "check" : last.capture ? "capture" : "move");
    }
    this.render();
  }

  // ---- actions ----

  actingSide() {
    // A local game's token plays both seats: offers and resignations act for the side to move.
    return this.role === "both" ? { side: this.state.turn } : {};
  }

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
      if (this.state.kind === "friend") toast(t("offerSent"));
    });
    $("btn-takeback").addEventListener("click", () => {
      if (this.role === "both") {
        // One screen, both sides: asking and agreeing are the same person.
        const side = other(this.state.turn);
        this.connection.action("takeback_request", { side });
        this.pendingLocalTakeback = side;
      } else {
        this.connection.action("takeback_request");
        if (this.state.kind !== "computer") toast(t("offerSent"));
      }
    });
    $("btn-pass").addEventListener("click", () => this.connection.action("pass"));
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
    for (const button of document.querySelectorAll("button.copy")) {
      button.addEventListener("click", () => copyField(button.dataset.copy, button));
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

  answerOffer(accept) {
    const offers = this.state.offers || {};
    if (offers.rematch && !offers.draw && !offers.takeback) {
      if (accept) this.connection.action("rematch");
      show($("offer"), false);
      this.dismissedRematch = !accept;
      return;
    }
    const what = offers.takeback ? "takeback" : "draw";
    const offerer = offers.takeback || offers.draw;
    const fields = this.role === "both" ? { side: other(offerer) } : {};
    this.connection.action(`${what}_${accept ? "accept" : "decline"}`, fields);
  }

  async downloadPgn() {
    const format = notationFor(this.game()); // never korean for xiangqi
    try {
      const response = await fetch(`/api/games/${encodeURIComponent(this.gameId)}/pgn?format=${format}`);
      if (!response.ok) throw new Error(`${response.status}`);
      download(`chuhan-${this.gameId}.pgn`, await response.text());
    } catch (err) {
      toast(t("error", { message: err.message }));
    }
  }

  async downloadFen() {
    const ply = this.shownPly();
    try {
      const body = await api(`/api/games/${encodeURIComponent(this.gameId)}/fen?ply=${ply}`);
      download(`chuhan-${this.gameId}-${ply}.fen`, `${body.fen}\n`);
    } catch (err) {
      toast(t("error", { message: err.message }));
    }
  }

  async analyse() {
    const ply = this.shownPly();
    $("analysis-score").textContent = t("analysing");
    $("analysis-depth").textContent = "";
    $("analysis-line").textContent = "";
    show($("analysis"), true);
    try {
      this.analysis = await postJson(`/api/games/${encodeURIComponent(this.gameId)}/analysis`, {
        ply, movetime_ms: 1000, multipv: 1,
      });
    } catch (err) {
      this.analysis = null;
      $("analysis-score").textContent = t("error", { message: err.message });
      return;
    }
    this.render();
  }

  // ---- history ----

  shownPly() {
    return this.viewPly === null ? (this.state ? this.state.ply : 0) : this.viewPly;
  }

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
        const body = await api(`/api/games/${encodeURIComponent(this.gameId)}/fen?ply=${target}`);
        this.positions.set(target, parsePlacement(body.fen));
      } catch (err) {
        toast(t("error", { message: err.message }));
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

  render() {
    const state = this.state;
    if (!state) return;
    translatePage();
    $("set-notation").value = notationFor(state.variant);
    document.body.classList.toggle("janggi", state.variant === "janggi");
    this.renderBoard();
    this.renderPlayers();
    this.renderStatus();
    this.renderPanels();
    this.renderMoves();
    this.renderAnalysis();
    this.tick();
  }

  renderBoard() {
    const state = this.state;
    const live = this.viewPly === null;
    const pieces = live ? piecesFromState(state.pieces) : this.positions.get(this.viewPly);
    const ply = this.shownPly();
    const lastEntry = ply > 0 ? state.moves[ply - 1] : null;
    const kings = Object.entries(pieces).filter(([, p]) => p.kind === "king").map(([sq]) => sq);
    const interactive = live && state.status === "playing" && this.isPlayer()
      && Boolean(state.you && state.you.your_turn) && !state.thinking;
    this.board.update({
      game: state.variant,
      pieces,
      flipped: this.flipped(),
      labels: settings.labels,
      lastMove: lastEntry ? [lastEntry.from, lastEntry.to] : null,
      check: live ? state.check : null,
      bikjang: live && state.bikjang ? kings : null,
      dests: interactive ? state.legal : null,
      interactive,
      touchMove: settings.touchMove,
      hint: this.bestMove(),
    });
  }

  renderPlayers() {
    const state = this.state;
    const bottom = this.flipped() ? "second" : "first";
    for (const [barId, side] of [["bar-bottom", bottom], ["bar-top", other(bottom)]]) {
      const bar = $(barId);
      const player = (state.players && state.players[side]) || {};
      const name = bar.querySelector(".player-name");
      const label = sideName(state.variant, side === "first");
      const plain = !player.name || player.name === label
        || (state.side_names && player.name.toLowerCase() === state.side_names[side]);
      name.textContent = plain ? label : `${label} · ${player.name}`;
      bar.classList.toggle("offline", player.connected === false);
      bar.classList.toggle("to-move", state.status === "playing" && state.turn === side);
      bar.classList.toggle(`side-${state.side_names ? state.side_names[side] : side}`, true);
      bar.dataset.side = side;
    }
  }

  renderStatus() {
    const state = this.state;
    const status = $("status");
    let text;
    if (state.status === "over") text = t("result");
    else if (state.status === "setup") text = t("setupTitle");
    else if (state.thinking) text = t("thinking");
    else if (this.role === "first" || this.role === "second") {
      text = state.you && state.you.your_turn ? t("yourMove") : t("theirMove");
    } else {
      text = t("toMove", { side: sideName(state.variant, state.turn === "first") });
    }
    if (state.status === "playing" && state.check) text += ` — ${t("check")}`;
    if (state.status === "playing" && state.bikjang) text += ` — ${t("bikjang")}`;
    if (this.role === "watcher") text = `${t("spectating")} · ${text}`;
    status.textContent = text;

    const banner = $("banner");
    show(banner, state.status === "over" && Boolean(state.result));
    if (state.result) {
      const result = state.result;
      const verdict = result.winner
        ? t("wins", { side: sideName(state.variant, result.winner === "first") })
        : t("drawn");
      const title = result.result ? `${verdict} · ${result.result}` : verdict;
      $("banner-title").textContent = title;
      // The referee's sentence is English; other languages show the kind of ending in
      // their own words, with the sentence on hover.
      const english = language() === "en" || !result.termination;
      let reason = english ? result.reason || "" : t(`term_${result.termination}`);
      if (result.points && !reason.includes(String(result.points.han))) {
        const { cho, han } = result.points;
        reason += ` (${t("score")}: ${t("cho")} ${cho}, ${t("han")} ${han})`;
      }
      $("banner-reason").textContent = reason;
      $("banner-reason").title = english ? "" : result.reason || "";
    }
  }

  renderPanels() {
    const state = this.state;
    const player = this.isPlayer();
    const over = state.status === "over";
    const live = !over;

    // Invite: a friend game whose other seat has not come yet.
    const entry = this.token ? gameEntry(this.token) : null;
    const otherSeat = this.role === "first" || this.role === "second" ? other(this.role) : null;
    const waiting = state.kind === "friend" && player && otherSeat && live && state.ply === 0
      && !(state.players && state.players[otherSeat] && state.players[otherSeat].connected);
    show($("invite"), Boolean(waiting && entry && entry.invite_url));
    if (entry && entry.invite_url) {
      const origin = shareOrigin();
      $("invite-url").value = origin + entry.invite_url;
      $("watch-url").value = origin + (entry.watch_url || `/w/${this.gameId}`);
    }
    show($("invite-local"), Boolean(options && options.local_only));

    // The janggi setup choice.
    const setup = state.setup;
    show($("setup"), state.status === "setup" && Boolean(setup));
    if (state.status === "setup" && setup) {
      const choices = $("setup-choices");
      clear(choices);
      const mine = player && state.you && state.you.your_turn;
      for (const arrangement of setup.choices) {
        const button = make("button", "setup-choice");
        button.type = "button";
        button.dataset.arrangement = arrangement;
        button.appendChild(make("span", "hangul", arrangement));
        const letters = [...arrangement].map((ch) => (ch === "마" ? "H" : "E")).join(" ");
        button.appendChild(make("span", "letters", letters));
        if (arrangement === setup.default) button.classList.add("default");
        button.disabled = !mine;
        button.addEventListener("click", () => this.connection.action("setup", { arrangement }));
        choices.appendChild(button);
      }
    }

    // Standing offers from the other side (or, on one screen, from either side).
    const offers = state.offers || {};
    const showOffer = (what, by) => {
      if (!by || !player) return false;
      if (this.role !== "both" && by === this.role) return false;
      return what;
    };
    const pending = showOffer("takeback", offers.takeback) || showOffer("draw", offers.draw)
      || (!this.dismissedRematch && showOffer("rematch", offers.rematch));
    if (this.role === "both" && offers.takeback && this.pendingLocalTakeback === offers.takeback) {
      this.pendingLocalTakeback = null;
      this.connection.action("takeback_accept", { side: other(offers.takeback) });
    }
    show($("offer"), Boolean(pending));
    if (pending) {
      $("offer-text").textContent = pending === "takeback" ? t("takebackRequested")
        : pending === "draw" ? t("drawOffered") : `${t("rematch")}?`;
    }

    // Buttons.
    show($("controls"), true);
    const playing = state.status === "playing";
    for (const id of ["btn-resign", "btn-draw", "btn-takeback"]) {
      show($(id), player && live);
    }
    $("btn-resign").disabled = !playing && state.status !== "setup";
    $("btn-draw").disabled = !playing;
    $("btn-takeback").disabled = !playing || state.ply === 0;
    show($("btn-pass"), player && state.variant === "janggi" && live);
    $("btn-pass").disabled = !(state.can_pass && state.you && state.you.your_turn && this.viewPly === null);
    show($("after-controls"), over);
    show($("btn-rematch"), over && player && state.kind !== "imported");
    show($("btn-analyse"), over && !(options && options.engine_available === false));
  }

  renderMoves() {
    const state = this.state;
    const list = $("moves");
    clear(list);
    const notation = notationFor(state.variant);
    const shown = this.shownPly();
    let row = null;
    for (const entry of state.moves) {
      if (entry.side === "first" || !row) {
        row = make("li", "move-row");
        row.appendChild(make("span", "move-number", `${Math.floor((entry.ply - 1) / 2) + 1}.`));
        list.appendChild(row);
        if (entry.side === "second") row.appendChild(make("span", "move empty", "…"));
      }
      const text = entry[notation] || entry.iccs;
      const cell = make("button", "move", text);
      cell.type = "button";
      cell.dataset.ply = String(entry.ply);
      if (entry.ply === shown) cell.classList.add("current");
      cell.addEventListener("click", () => this.viewAt(entry.ply));
      row.appendChild(cell);
      if (entry.side === "second") row = null;
    }
    const current = list.querySelector(".current");
    if (current && this.viewPly === null) {
      // Scroll the list itself, never the page: on a phone that would take the board away.
      const box = list.getBoundingClientRect();
      const item = current.getBoundingClientRect();
      if (item.top < box.top) list.scrollTop -= box.top - item.top;
      else if (item.bottom > box.bottom) list.scrollTop += item.bottom - box.bottom;
    }
    show($("viewing"), this.viewPly !== null);
    if (this.viewPly !== null) $("viewing-text").textContent = t("viewing", { n: this.viewPly });
  }

  /** The engine's first move for the position on the board, if it was analysed. */
  bestMove() {
    const analysis = this.analysis;
    if (!analysis || analysis.ply !== this.shownPly() || !analysis.lines.length) return null;
    const first = analysis.lines[0].pv && analysis.lines[0].pv.iccs && analysis.lines[0].pv.iccs[0];
    return first ? [first.slice(0, 2), first.slice(2, 4)] : null;
  }

  renderAnalysis() {
    const analysis = this.analysis;
    if (!analysis) {
      const waiting = $("analysis-score").textContent === t("analysing");
      if (!waiting) show($("analysis"), false);
      return;
    }
    show($("analysis"), true);
    const line = analysis.lines[0];
    if (!line) return;
    const mover = sideName(this.game(), analysis.turn === "first");
    $("analysis-score").textContent = line.mate !== null && line.mate !== undefined
      ? `${mover}: ${t("mate", { n: Math.abs(line.mate) })}${line.mate < 0 ? " (−)" : ""}`
      : `${mover}: ${(line.score_cp >= 0 ? "+" : "") + (line.score_cp / 100).toFixed(2)}`;
    $("analysis-depth").textContent = t("depth", { n: line.depth });
    const notation = notationFor(this.game());
    const moves = (line.pv && (line.pv[notation] || line.pv.iccs)) || [];
    $("analysis-line").textContent = moves.join(" ");
  }

  /** Clocks and the setup countdown, counted down locally from the last state. */
  tick() {
    const state = this.state;
    if (!state) return;
    const elapsed = performance.now() - this.receivedAt;
    const clock = state.clock;
    for (const barId of ["bar-top", "bar-bottom"]) {
      const bar = $(barId);
      const node = bar.querySelector(".player-clock");
      if (!clock) {
        node.textContent = "";
        continue;
      }
      const side = bar.dataset.side;
      const running = clock.running === side && state.status === "playing";
      const control = clock.control;
      let main = clock[side].remaining_ms - (running ? elapsed : 0);
      let periods = clock[side].periods;
      let text;
      let low;
      if (main > 0 || !control.periods) {
        text = formatClock(main);
        low = main < Math.min(20000, control.base_ms * 0.1 + 10000);
        if (running && main <= -500 && !this.flagSent && this.isPlayer()) {
          this.flagSent = true;
          this.connection.action("flag");
        }
      } else {
        // Byo-yomi: each period of period_ms starts again after a move.
        let overrun = -main;
        while (overrun >= control.period_ms && periods > 1) {
          overrun -= control.period_ms;
          periods -= 1;
        }
        const left = control.period_ms - overrun;
        text = `${formatClock(left)} (${periods}×${Math.round(control.period_ms / 1000)})`;
        low = left < 10000;
      }
      node.textContent = text;
      bar.classList.toggle("low-time", Boolean(low && state.status === "playing"));
      bar.classList.toggle("clock-running", running);
    }
    if (state.status === "setup" && state.setup) {
      const left = Math.max(0, state.setup.deadline_ms - (Date.now() - this.skewMs));
      const chooser = sideName(state.variant, state.setup.chooser === "first");
      const mine = state.you && state.you.your_turn && this.isPlayer();
      const waitKey = state.setup.chooser === "second" ? "setupWaitHan" : "setupWaitCho";
      let who = mine ? t("yourSide", { side: chooser }) : t(waitKey);
      if (this.role === "both") who = t("toMove", { side: chooser });
      const countdown = t("secondsLeft", { n: Math.ceil(left / 1000) });
      $("setup-status").textContent = `${who} — ${countdown}`;
    }
  }
}

// ---------------------------------------------------------------- start

function isLoopback(hostname) {
  return hostname === "localhost" || hostname.startsWith("127.") || hostname === "[::1]";
}

/** The origin for links to give a friend: the page's own, unless the page was opened on
 * this machine's loopback address and the server knows the address other machines use. */
function shareOrigin() {
  if (isLoopback(location.hostname) && options && options.share_origin) return options.share_origin;
  return location.origin;
}

function route() {
  const path = location.pathname;
  const playMatch = path.match(/^\/g\/([A-Za-z0-9_-]+)\/?$/);
  const watchMatch = path.match(/^\/w\/([A-Za-z0-9_-]+)\/?$/);
  if (playMatch || watchMatch) {
    // The game page needs the options only for the invite links and the analysis button.
    api("/api/options").then((body) => {
      options = body;
      if (view) view.render();
    }).catch(() => {});
  }
  if (playMatch) {
    const token = new URLSearchParams(location.search).get("t");
    if (token) rememberGame({ game_id: playMatch[1], token });
    show($("game"), true);
    view = new GameView(playMatch[1], token, !token);
  } else if (watchMatch) {
    show($("game"), true);
    view = new GameView(watchMatch[1], null, true);
  } else {
    startHome();
  }
}

function start() {
  setLanguage(settings.language || detectLanguage(navigator.language));
  setUpSettings();
  translatePage();
  document.title = t("title");
  $("set-notation").value = notationFor("xiangqi");
  route();
  window.chuhanApp = { get view() { return view; } }; // for the browser tests' diagnostics
}

start();
